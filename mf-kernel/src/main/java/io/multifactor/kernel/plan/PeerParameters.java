package io.multifactor.kernel.plan;

/**
 * The parameters of a decision's peer policy ({@code algorithm.<type>:}), under the peer's own names and defaults:
 * {@code litellm_latency}'s {@code ttl} and {@code lowest_latency_buffer}, {@code prodstack_session}'s
 * {@code request_stats_window}, and llm-d's profiles' ({@link LlmdParameters}). A policy reads only its own; the others
 * keep their defaults.
 * <p>
 * Instances are immutable and threadsafe.
 */
public final class PeerParameters
{
    /** LiteLLM's default {@code ttl}: one hour, in nanoseconds. */
    public static final long DEFAULT_TTL_NS = 3_600_000_000_000L;

    /** LiteLLM's default {@code lowest_latency_buffer}: only the lowest mean (and its equals) are kept. */
    public static final double DEFAULT_LOWEST_LATENCY_BUFFER = 0.0;

    /** production-stack's default {@code --request-stats-window}, the QPS window: 60 s, in nanoseconds. */
    public static final long DEFAULT_REQUEST_STATS_WINDOW_NS = 60_000_000_000L;

    /** Every parameter at its peer's default. */
    public static final PeerParameters DEFAULTS = new PeerParameters(
        DEFAULT_TTL_NS, DEFAULT_LOWEST_LATENCY_BUFFER, DEFAULT_REQUEST_STATS_WINDOW_NS, LlmdParameters.DEFAULTS);

    private final long ttlNs;
    private final double lowestLatencyBuffer;
    private final long requestStatsWindowNs;
    private final LlmdParameters llmd;

    /**
     * @param ttlNs {@code litellm_latency.ttl}: the oldest a latency sample may be and count, nanoseconds, > 0.
     * @param lowestLatencyBuffer {@code litellm_latency.lowest_latency_buffer}: finite, >= 0.
     * @param requestStatsWindowNs {@code prodstack_session.request_stats_window}: the QPS window, nanoseconds, at least
     *     one millisecond.
     * @param llmd {@code llmd_weighted}'s and {@code llmd_sticky}'s parameters.
     * @throws IllegalArgumentException for a value out of range.
     */
    public PeerParameters(
        final long ttlNs, final double lowestLatencyBuffer, final long requestStatsWindowNs, final LlmdParameters llmd)
    {
        if (ttlNs <= 0)
        {
            throw new IllegalArgumentException("ttl must be > 0: " + ttlNs + " ns");
        }
        if (!(lowestLatencyBuffer >= 0.0 && lowestLatencyBuffer < Double.POSITIVE_INFINITY))
        {
            throw new IllegalArgumentException("lowest_latency_buffer must be finite and >= 0: " + lowestLatencyBuffer);
        }
        if (requestStatsWindowNs < 1_000_000L)
        {
            throw new IllegalArgumentException("request_stats_window must be at least 1ms: " + requestStatsWindowNs +
                " ns");
        }
        this.ttlNs = ttlNs;
        this.lowestLatencyBuffer = lowestLatencyBuffer;
        this.requestStatsWindowNs = requestStatsWindowNs;
        this.llmd = java.util.Objects.requireNonNull(llmd, "llmd");
    }

    /**
     * The parameters of LiteLLM's and production-stack's policies, llm-d's at their defaults.
     *
     * @param ttlNs {@code litellm_latency.ttl} in nanoseconds, > 0.
     * @param lowestLatencyBuffer {@code litellm_latency.lowest_latency_buffer}: finite, >= 0.
     * @param requestStatsWindowNs {@code prodstack_session.request_stats_window} in nanoseconds, at least 1 ms.
     * @throws IllegalArgumentException for a value out of range.
     */
    public PeerParameters(final long ttlNs, final double lowestLatencyBuffer, final long requestStatsWindowNs)
    {
        this(ttlNs, lowestLatencyBuffer, requestStatsWindowNs, LlmdParameters.DEFAULTS);
    }

    /**
     * @param llmd llm-d's profiles' parameters.
     * @return these parameters with {@code llmd} in the place of llm-d's.
     */
    public PeerParameters withLlmd(final LlmdParameters llmd)
    {
        return new PeerParameters(ttlNs, lowestLatencyBuffer, requestStatsWindowNs, llmd);
    }

    /** @return {@code llmd_weighted}'s and {@code llmd_sticky}'s parameters. */
    public LlmdParameters llmd()
    {
        return llmd;
    }

    /** @return {@code litellm_latency.ttl} in nanoseconds. */
    public long ttlNs()
    {
        return ttlNs;
    }

    /** @return {@code litellm_latency.lowest_latency_buffer}. */
    public double lowestLatencyBuffer()
    {
        return lowestLatencyBuffer;
    }

    /** @return {@code prodstack_session.request_stats_window} in nanoseconds. */
    public long requestStatsWindowNs()
    {
        return requestStatsWindowNs;
    }

    @Override
    public boolean equals(final Object other)
    {
        return other instanceof PeerParameters && ((PeerParameters)other).ttlNs == ttlNs &&
            Double.compare(((PeerParameters)other).lowestLatencyBuffer, lowestLatencyBuffer) == 0 &&
            ((PeerParameters)other).requestStatsWindowNs == requestStatsWindowNs &&
            ((PeerParameters)other).llmd.equals(llmd);
    }

    @Override
    public int hashCode()
    {
        return Long.hashCode(ttlNs) * 31 * 31 + Double.hashCode(lowestLatencyBuffer) * 31 +
            Long.hashCode(requestStatsWindowNs) + 31 * 31 * 31 * llmd.hashCode();
    }

    @Override
    public String toString()
    {
        return "PeerParameters{ttlNs=" + ttlNs + ", lowestLatencyBuffer=" + lowestLatencyBuffer +
            ", requestStatsWindowNs=" + requestStatsWindowNs + ", llmd=" + llmd + '}';
    }
}
