package io.multifactor.config.model;

/**
 * One entry of {@code models:}: a model's name and its configured signals.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param name unique, non-empty name.
 * @param qualityScore {@code quality_score}, finite and >= 0, NaN when absent.
 * @param promptPer1M {@code pricing.prompt_per_1m} in USD per 1M prompt tokens, NaN when absent.
 * @param completionPer1M {@code pricing.completion_per_1m} in USD per 1M completion tokens, NaN when absent.
 */
public record ModelConfig(String name, double qualityScore, double promptPer1M, double completionPer1M)
{
}
