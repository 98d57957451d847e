package io.multifactor.config.model;

/**
 * Which kind of file a configuration was read from.
 * <p>
 * Instances are immutable and threadsafe.
 */
public enum ConfigFormat
{
    /** This library's own format: {@code models:}, {@code decisions:}, {@code signals:}. */
    MULTI_FACTOR("multi-factor configuration"),
    /** vLLM Semantic Router's canonical configuration: a root with {@code version: v0.3}. */
    VSR("vLLM Semantic Router v0.3 configuration"),
    /** vLLM Semantic Router's canonical configuration under the {@code config:} key of a Helm values file. */
    VSR_HELM_VALUES("vLLM Semantic Router v0.3 configuration under config: of Helm values");

    private final String description;

    ConfigFormat(final String description)
    {
        this.description = description;
    }

    /** @return how the format is named to a user, such as {@code vLLM Semantic Router v0.3 configuration}. */
    public String description()
    {
        return description;
    }
}
