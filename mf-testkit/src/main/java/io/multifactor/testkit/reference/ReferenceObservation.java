package io.multifactor.testkit.reference;

/**
 * What was observed about one model for one request: its TPOT and TTFT percentiles in milliseconds ({@code null} when
 * not observed), its in-flight count and its in-flight tokens (the sum of its live leases' token weights).
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param tpotMs TPOT percentile in milliseconds, {@code null} when not observed.
 * @param ttftMs TTFT percentile in milliseconds, {@code null} when not observed.
 * @param inflight requests in flight to the model, never negative.
 * @param inflightTokens tokens in flight to the model, never negative (never missing: 0 when nothing is in flight).
 */
public record ReferenceObservation(Double tpotMs, Double ttftMs, long inflight, long inflightTokens)
{
    /** A model with no latency observation and nothing in flight. */
    public static final ReferenceObservation NONE = new ReferenceObservation(null, null, 0L, 0L);

    /**
     * @throws IllegalArgumentException when the in-flight count or tokens are negative.
     */
    public ReferenceObservation
    {
        if (inflight < 0 || inflightTokens < 0)
        {
            throw new IllegalArgumentException("inflight and inflight tokens must be >= 0: " + inflight + ", " +
                inflightTokens);
        }
    }

    /**
     * An observation with no token in flight.
     *
     * @param tpotMs TPOT percentile in milliseconds, {@code null} when not observed.
     * @param ttftMs TTFT percentile in milliseconds, {@code null} when not observed.
     * @param inflight requests in flight to the model, never negative.
     */
    public ReferenceObservation(final Double tpotMs, final Double ttftMs, final long inflight)
    {
        this(tpotMs, ttftMs, inflight, 0L);
    }

    /**
     * @param tokens tokens in flight, &gt;= 0.
     * @return the same observation with these in-flight tokens.
     */
    public ReferenceObservation withInflightTokens(final long tokens)
    {
        return new ReferenceObservation(tpotMs, ttftMs, inflight, tokens);
    }
}
