package io.multifactor.testkit.reference;

import java.util.Objects;

/**
 * A model as configured: its name, its quality score and its prompt and completion prices, each {@code null} when
 * absent.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param name unique model name.
 * @param quality {@code quality_score}, {@code null} when absent.
 * @param promptPer1M {@code prompt_per_1m} in USD per 1M prompt tokens, {@code null} when absent (0 is free).
 * @param completionPer1M {@code completion_per_1m} in USD per 1M completion tokens, {@code null} when absent.
 */
public record ReferenceModel(String name, Double quality, Double promptPer1M, Double completionPer1M)
{
    /**
     * @throws NullPointerException when the name is null.
     */
    public ReferenceModel
    {
        Objects.requireNonNull(name, "name");
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
        this(name, quality, promptPer1M, null);
    }
}
