package io.multifactor.config.model;

/**
 * The engine-wide {@code signals:} block.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param latencyWindowNs {@code latency_window}: percentiles cover this rolling window.
 * @param latencyRefreshNs {@code latency_refresh}: how often published percentiles are recomputed.
 * @param inflightMaxAgeNs {@code inflight_max_age}: a request never ended is forgotten after this.
 */
public record SignalsConfig(long latencyWindowNs, long latencyRefreshNs, long inflightMaxAgeNs)
{
    /** Defaults: 60 s window, 1 s refresh, 10 min in-flight age. */
    public static final SignalsConfig DEFAULTS = new SignalsConfig(60_000_000_000L, 1_000_000_000L, 600_000_000_000L);

    /** Shortest {@code latency_refresh} accepted: 10 ms; a shorter period keeps the refresh agent busy on a whole core. */
    public static final long MIN_LATENCY_REFRESH_NS = 10_000_000L;
}
