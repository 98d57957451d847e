package io.multifactor.testkit.reference;

import java.util.Objects;

/**
 * What {@link ReferenceScorer#rank} found: the selection, and how close its threshold comparisons came to their
 * boundary. A candidate whose value lies within rounding of {@code best - tie_band} or {@code best - tolerance} (or two scores of {@code pick: p2c} within rounding of each other) can
 * fall on either side in another implementation that computes the same real number in other floating-point steps, so
 * an agreement test compares tie sets and finalists only when {@link #boundaryMargin()} is above its score tolerance.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param result the selection.
 * @param boundaryMargin the smallest distance between a compared value and its threshold, +Infinity when nothing was
 *     compared against one.
 */
public record ReferenceRanking(ReferenceResult result, double boundaryMargin)
{
    /** Checks the result is present. */
    public ReferenceRanking
    {
        Objects.requireNonNull(result, "result");
    }
}
