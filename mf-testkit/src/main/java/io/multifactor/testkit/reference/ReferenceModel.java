package io.multifactor.testkit.reference;

import java.util.Objects;

/**
 * A model as configured: its name, its quality score and its prompt, completion and cached prompt prices, each
 * {@code null} when absent.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param name unique model name.
 * @param quality {@code quality_score}, {@code null} when absent.
 * @param promptPer1M {@code prompt_per_1m} in USD per 1M prompt tokens, {@code null} when absent (0 is free).
 * @param completionPer1M {@code completion_per_1m} in USD per 1M completion tokens, {@code null} when absent.
 * @param cachedPromptPer1M {@code cached_prompt_per_1m} in USD per 1M cached prompt tokens, {@code null} when absent.
 */
public record ReferenceModel(String name, Double quality, Double promptPer1M, Double completionPer1M,
    Double cachedPromptPer1M)
{
    /**
     * @throws NullPointerException when the name is null.
     */
    public ReferenceModel
    {
        Objects.requireNonNull(name, "name");
    }

    /**
     * A model without cached prompt price.
     *
     * @param name unique model name.
     * @param quality {@code quality_score}, {@code null} when absent.
     * @param promptPer1M {@code prompt_per_1m}, {@code null} when absent.
     * @param completionPer1M {@code completion_per_1m}, {@code null} when absent.
     */
    public ReferenceModel(final String name, final Double quality, final Double promptPer1M, final Double completionPer1M)
    {
        this(name, quality, promptPer1M, completionPer1M, null);
    }

    /**
     * @param cachedPrompt {@code cached_prompt_per_1m}, {@code null} for none.
     * @return the same model with this cached prompt price.
     */
    public ReferenceModel withCachedPromptPer1M(final Double cachedPrompt)
    {
        return new ReferenceModel(name, quality, promptPer1M, completionPer1M, cachedPrompt);
    }

    /**
     * A model without completion price.
     *
     * @param name unique model name.
     * @param quality {@code quality_score}, {@code null} when absent.
     * @param promptPer1M {@code prompt_per_1m}, {@code null} when absent.
     */
    public ReferenceModel(final String name, final Double quality, final Double promptPer1M)
    {
        this(name, quality, promptPer1M, null, null);
    }
}
