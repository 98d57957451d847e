package io.multifactor.serving;

/**
 * One server of a model, ready to send to: where, how, and the {@code Authorization} value read once from its
 * {@code api_key_env}.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param name the backend's label.
 * @param https whether to use TLS.
 * @param host host name or address.
 * @param port TCP port.
 * @param basePath OpenAI base path (such as {@code /v1}); a request's path is this plus {@code /chat/completions} or
 *     {@code /completions}.
 * @param authorization {@code Bearer KEY}, or {@code null} when no key is configured or its variable is unset.
 * @param providerModelId the model id the backend is sent in {@code model}.
 */
public record Backend(
    String name, boolean https, String host, int port, String basePath, String authorization, String providerModelId)
{
}
