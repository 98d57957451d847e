package io.multifactor.testkit.reference;

/**
 * What was observed about one model for one request: its TPOT and TTFT percentiles in milliseconds ({@code null} when
 * not observed) and its in-flight count.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param tpotMs TPOT percentile in milliseconds, {@code null} when not observed.
 * @param ttftMs TTFT percentile in milliseconds, {@code null} when not observed.
 * @param inflight requests in flight to the model, never negative.
 */
public record ReferenceObservation(Double tpotMs, Double ttftMs, long inflight)
{
    /** A model with no latency observation and nothing in flight. */
    public static final ReferenceObservation NONE = new ReferenceObservation(null, null, 0L);

    /**
     * @throws IllegalArgumentException when the in-flight count is negative.
     */
    public ReferenceObservation
    {
        if (inflight < 0)
        {
            throw new IllegalArgumentException("inflight must be >= 0: " + inflight);
        }
    }
}
