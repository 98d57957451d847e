package io.multifactor.config.model;

import java.util.List;

/**
 * One entry of {@code models:}: a model's name, its configured signals, and where requests for it go.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param name unique, non-empty name.
 * @param qualityScore {@code quality_score}, finite and >= 0, NaN when absent.
 * @param promptPer1M {@code pricing.prompt_per_1m} in USD per 1M prompt tokens, NaN when absent.
 * @param completionPer1M {@code pricing.completion_per_1m} in USD per 1M completion tokens, NaN when absent.
 * @param providerModelId {@code provider_model_id}: the model id sent to the backends (default: the name).
 * @param backendRefs {@code backend_refs}: the servers of this model, in file order; empty when absent.
 */
public record ModelConfig(
    String name, double qualityScore, double promptPer1M, double completionPer1M, String providerModelId,
    List<BackendRef> backendRefs)
{
    /**
     * @param name unique, non-empty name.
     * @param qualityScore quality, NaN when absent.
     * @param promptPer1M prompt price, NaN when absent.
     * @param completionPer1M completion price, NaN when absent.
     * @param providerModelId the id sent to the backends, or {@code null} for the name.
     * @param backendRefs the servers of this model; copied, {@code null} for none.
     */
    public ModelConfig
    {
        providerModelId = providerModelId == null ? name : providerModelId;
        backendRefs = backendRefs == null ? List.of() : List.copyOf(backendRefs);
    }

    /**
     * A model without backends, whose provider model id is its name.
     *
     * @param name unique, non-empty name.
     * @param qualityScore quality, NaN when absent.
     * @param promptPer1M prompt price, NaN when absent.
     * @param completionPer1M completion price, NaN when absent.
     */
    public ModelConfig(final String name, final double qualityScore, final double promptPer1M, final double completionPer1M)
    {
        this(name, qualityScore, promptPer1M, completionPer1M, null, null);
    }
}
