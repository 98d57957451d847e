package io.multifactor.config.model;

import io.multifactor.kernel.engine.SignalSettings;
import io.multifactor.kernel.latency.LatencyEstimatorType;
import io.multifactor.kernel.plan.RequestRules;
import io.multifactor.kernel.signal.ServerMetricsSettings;

/**
 * The engine-wide {@code signals:} block.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param latencyWindowNs {@code latency_window}: percentiles cover this rolling window.
 * @param latencyRefreshNs {@code latency_refresh}: how often published percentiles are recomputed.
 * @param inflightMaxAgeNs {@code inflight_max_age}: a request never ended is forgotten after this.
 * @param countersFile {@code counters_file}: the file the engine's counters are mapped into (for {@code bin/mf stat}),
 *     or {@code null} for counters in direct memory.
 * @param serverMetrics {@code server_metrics}: how the model servers' metrics are scraped, or {@code null} when they
 *     are not.
 * @param latencyEstimator {@code latency_estimator}: a {@link LatencyEstimatorType} code.
 * @param ewmaDecayNs {@code ewma_decay}: peak-EWMA's time constant.
 * @param defaultRequestTokens {@code default_request_tokens}: the token weight of a lease begun without token counts.
 * @param defaultOutputTokens {@code default_output_tokens}: the output tokens of a request that states none, for the
 *     context window check.
 */
public record SignalsConfig(
    long latencyWindowNs, long latencyRefreshNs, long inflightMaxAgeNs, String countersFile,
    ServerMetricsSettings serverMetrics, int latencyEstimator, long ewmaDecayNs, long defaultRequestTokens,
    long defaultOutputTokens)
{
    /**
     * Settings with the default {@code default_output_tokens} (512).
     *
     * @param latencyWindowNs {@code latency_window}.
     * @param latencyRefreshNs {@code latency_refresh}.
     * @param inflightMaxAgeNs {@code inflight_max_age}.
     * @param countersFile {@code counters_file}, or {@code null}.
     * @param serverMetrics {@code server_metrics}, or {@code null}.
     * @param latencyEstimator {@code latency_estimator}.
     * @param ewmaDecayNs {@code ewma_decay}.
     * @param defaultRequestTokens {@code default_request_tokens}.
     */
    public SignalsConfig(
        final long latencyWindowNs, final long latencyRefreshNs, final long inflightMaxAgeNs, final String countersFile,
        final ServerMetricsSettings serverMetrics, final int latencyEstimator, final long ewmaDecayNs,
        final long defaultRequestTokens)
    {
        this(latencyWindowNs, latencyRefreshNs, inflightMaxAgeNs, countersFile, serverMetrics, latencyEstimator,
            ewmaDecayNs, defaultRequestTokens, RequestRules.DEFAULT_OUTPUT_TOKENS);
    }

    /** Defaults: 60 s window, 1 s refresh, 10 min in-flight age, counters in direct memory, no server metrics. */
    public static final SignalsConfig DEFAULTS =
        new SignalsConfig(60_000_000_000L, 1_000_000_000L, 600_000_000_000L, null, null);

    /**
     * Settings with the window estimator and the default request weight.
     *
     * @param latencyWindowNs {@code latency_window}.
     * @param latencyRefreshNs {@code latency_refresh}.
     * @param inflightMaxAgeNs {@code inflight_max_age}.
     * @param countersFile {@code counters_file}, or {@code null}.
     * @param serverMetrics {@code server_metrics}, or {@code null}.
     */
    public SignalsConfig(
        final long latencyWindowNs, final long latencyRefreshNs, final long inflightMaxAgeNs, final String countersFile,
        final ServerMetricsSettings serverMetrics)
    {
        this(latencyWindowNs, latencyRefreshNs, inflightMaxAgeNs, countersFile, serverMetrics,
            LatencyEstimatorType.WINDOW, SignalSettings.DEFAULT_EWMA_DECAY_NS, SignalSettings.DEFAULT_REQUEST_TOKENS);
    }

    /** @return the engine's signal settings for this block (durations, estimator, request weight). */
    public SignalSettings settings()
    {
        return new SignalSettings(latencyWindowNs, latencyRefreshNs, inflightMaxAgeNs, latencyEstimator, ewmaDecayNs,
            defaultRequestTokens);
    }

    /**
     * Settings without server metrics.
     *
     * @param latencyWindowNs {@code latency_window}.
     * @param latencyRefreshNs {@code latency_refresh}.
     * @param inflightMaxAgeNs {@code inflight_max_age}.
     * @param countersFile {@code counters_file}, or {@code null}.
     */
    public SignalsConfig(
        final long latencyWindowNs, final long latencyRefreshNs, final long inflightMaxAgeNs, final String countersFile)
    {
        this(latencyWindowNs, latencyRefreshNs, inflightMaxAgeNs, countersFile, null);
    }

    /**
     * Settings without a counters file.
     *
     * @param latencyWindowNs {@code latency_window}.
     * @param latencyRefreshNs {@code latency_refresh}.
     * @param inflightMaxAgeNs {@code inflight_max_age}.
     */
    public SignalsConfig(final long latencyWindowNs, final long latencyRefreshNs, final long inflightMaxAgeNs)
    {
        this(latencyWindowNs, latencyRefreshNs, inflightMaxAgeNs, null, null);
    }

    /** Shortest {@code ewma_decay} accepted: 1 ms. */
    public static final long MIN_EWMA_DECAY_NS = 1_000_000L;

    /** Largest {@code default_request_tokens} accepted: 2^31 - 1. */
    public static final long MAX_REQUEST_TOKENS = Integer.MAX_VALUE;

    /** Shortest {@code latency_refresh} accepted: 10 ms; a shorter period keeps the refresh agent busy on a whole core. */
    public static final long MIN_LATENCY_REFRESH_NS = 10_000_000L;
}
