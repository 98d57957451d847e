package io.multifactor.config.model;

/**
 * One entry of a model's {@code backend_refs}: a server that answers for the model, as a scheme, host, port and OpenAI
 * base path (the part of the URL before {@code /chat/completions}).
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param name the optional label, or the endpoint or URL as written when absent.
 * @param https whether requests to it use TLS ({@code protocol: https}, or a {@code base_url} with {@code https://}).
 * @param host host name or address, without brackets for IPv6.
 * @param port TCP port, 1..65535 (a {@code base_url} without a port: 80 or 443).
 * @param basePath the OpenAI base path: {@code /v1} for an {@code endpoint}, the URL's path without a trailing slash
 *     for a {@code base_url} (possibly empty).
 * @param weight share among the model's backends, finite and > 0, default 1.
 * @param apiKeyEnv the environment variable holding the backend's API key, or {@code null}.
 */
public record BackendRef(
    String name, boolean https, String host, int port, String basePath, double weight, String apiKeyEnv)
{
    /** The OpenAI base path of a backend given as {@code endpoint: host:port}. */
    public static final String ENDPOINT_BASE_PATH = "/v1";

    /** @return {@code host:port}, with brackets around an IPv6 host. */
    public String authority()
    {
        return (host.indexOf(':') >= 0 ? '[' + host + ']' : host) + ':' + port;
    }
}
