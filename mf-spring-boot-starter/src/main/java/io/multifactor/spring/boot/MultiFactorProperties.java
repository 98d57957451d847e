package io.multifactor.spring.boot;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.util.Map;

/**
 * The {@code multifactor.*} properties (their IDE completion comes from the module's
 * {@code META-INF/spring-configuration-metadata.json}).
 * <p>
 * Instances are immutable and threadsafe (the models map is copied).
 *
 * @param config the configuration file: a path, {@code file:path} or {@code classpath:resource}; the auto-configuration
 *     starts nothing when it is absent.
 * @param overlay the overlay that completes a vLLM Semantic Router file (same forms), or {@code null}.
 * @param watch whether a configuration on the file system is reloaded when it changes (default true; a refused file
 *     keeps the running plans).
 * @param decision the decision a call routes on when its options name none (a call's model option that names a
 *     decision wins over it), or {@code null}.
 * @param maxAttempts attempts a call makes at most: the first, then retries on the next candidate for a failure before
 *     the first token (default 2).
 * @param models for a routing chat model: each model's name in the configuration mapped to the name of the bean that
 *     calls it (a framework chat model, built with its own retries off).
 */
@ConfigurationProperties(prefix = "multifactor")
public record MultiFactorProperties(
    String config,
    String overlay,
    @DefaultValue("true") boolean watch,
    String decision,
    @DefaultValue("2") int maxAttempts,
    Map<String, String> models)
{
    /**
     * @param config the configuration file.
     * @param overlay the overlay, or {@code null}.
     * @param watch whether to reload on change.
     * @param decision the default decision, or {@code null}.
     * @param maxAttempts attempts per call, >= 1.
     * @param models model name to bean name; copied ({@code null}: none).
     */
    public MultiFactorProperties
    {
        if (maxAttempts < 1)
        {
            throw new IllegalArgumentException("multifactor.max-attempts must be >= 1: " + maxAttempts);
        }
        models = models == null ? Map.of() : Map.copyOf(models);
    }
}
