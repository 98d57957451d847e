package io.multifactor.kernel.engine;

import io.multifactor.kernel.latency.LatencyEstimatorType;

/**
 * The engine-wide signal settings ({@code signals:} in the YAML): the latency window, how often published percentiles
 * are recomputed, the age after which a lease that never ended is reclaimed, the latency estimator (with peak-EWMA's
 * time constant) and the token weight of a lease begun without token counts.
 * <p>
 * Instances are immutable and threadsafe.
 */
public final class SignalSettings
{
    /** Default latency window: 60 s. */
    public static final long DEFAULT_LATENCY_WINDOW_NS = 60_000_000_000L;

    /** Default refresh period: 1 s. */
    public static final long DEFAULT_LATENCY_REFRESH_NS = 1_000_000_000L;

    /** Default max age of a lease: 10 min. */
    public static final long DEFAULT_INFLIGHT_MAX_AGE_NS = 600_000_000_000L;

    /** Default {@code ewma_decay}: 10 s. */
    public static final long DEFAULT_EWMA_DECAY_NS = 10_000_000_000L;

    /** Default {@code default_request_tokens}: 1000. */
    public static final long DEFAULT_REQUEST_TOKENS = 1_000L;

    private static final SignalSettings DEFAULTS =
        new SignalSettings(DEFAULT_LATENCY_WINDOW_NS, DEFAULT_LATENCY_REFRESH_NS, DEFAULT_INFLIGHT_MAX_AGE_NS);

    private final long latencyWindowNs;
    private final long latencyRefreshNs;
    private final long inflightMaxAgeNs;
    private final int latencyEstimator;
    private final long ewmaDecayNs;
    private final long defaultRequestTokens;

    /**
     * @param latencyWindowNs time the percentiles cover, positive.
     * @param latencyRefreshNs period of republishing percentiles, positive.
     * @param inflightMaxAgeNs age after which a lease is reclaimed, positive.
     * @throws IllegalArgumentException when a value is not positive.
     */
    public SignalSettings(final long latencyWindowNs, final long latencyRefreshNs, final long inflightMaxAgeNs)
    {
        this(latencyWindowNs, latencyRefreshNs, inflightMaxAgeNs, LatencyEstimatorType.WINDOW, DEFAULT_EWMA_DECAY_NS,
            DEFAULT_REQUEST_TOKENS);
    }

    /**
     * @param latencyWindowNs time the percentiles cover (and a peak-EWMA estimate lasts without samples), positive.
     * @param latencyRefreshNs period of republishing the latency estimates, positive.
     * @param inflightMaxAgeNs age after which a lease is reclaimed, positive.
     * @param latencyEstimator a {@link LatencyEstimatorType} code.
     * @param ewmaDecayNs peak-EWMA's time constant tau, positive.
     * @param defaultRequestTokens token weight of a lease begun without token counts, {@code >= 0}.
     * @throws IllegalArgumentException when a value is out of range.
     */
    public SignalSettings(
        final long latencyWindowNs,
        final long latencyRefreshNs,
        final long inflightMaxAgeNs,
        final int latencyEstimator,
        final long ewmaDecayNs,
        final long defaultRequestTokens)
    {
        requirePositive("latency_window", latencyWindowNs);
        requirePositive("latency_refresh", latencyRefreshNs);
        requirePositive("inflight_max_age", inflightMaxAgeNs);
        requirePositive("ewma_decay", ewmaDecayNs);
        LatencyEstimatorType.label(latencyEstimator);
        if (defaultRequestTokens < 0)
        {
            throw new IllegalArgumentException("default_request_tokens must be >= 0: " + defaultRequestTokens);
        }
        this.latencyWindowNs = latencyWindowNs;
        this.latencyRefreshNs = latencyRefreshNs;
        this.inflightMaxAgeNs = inflightMaxAgeNs;
        this.latencyEstimator = latencyEstimator;
        this.ewmaDecayNs = ewmaDecayNs;
        this.defaultRequestTokens = defaultRequestTokens;
    }

    /**
     * @param latencyEstimator a {@link LatencyEstimatorType} code.
     * @param ewmaDecayNs peak-EWMA's time constant, positive.
     * @return these settings with that estimator.
     */
    public SignalSettings withLatencyEstimator(final int latencyEstimator, final long ewmaDecayNs)
    {
        return new SignalSettings(latencyWindowNs, latencyRefreshNs, inflightMaxAgeNs, latencyEstimator, ewmaDecayNs,
            defaultRequestTokens);
    }

    /**
     * @param defaultRequestTokens token weight of a lease begun without token counts, {@code >= 0}.
     * @return these settings with that weight.
     */
    public SignalSettings withDefaultRequestTokens(final long defaultRequestTokens)
    {
        return new SignalSettings(latencyWindowNs, latencyRefreshNs, inflightMaxAgeNs, latencyEstimator, ewmaDecayNs,
            defaultRequestTokens);
    }

    /** @return the {@link LatencyEstimatorType} code of every model's TTFT and TPOT estimate. */
    public int latencyEstimator()
    {
        return latencyEstimator;
    }

    /** @return peak-EWMA's time constant tau ({@code ewma_decay}), in nanoseconds. */
    public long ewmaDecayNs()
    {
        return ewmaDecayNs;
    }

    /** @return the token weight of a lease begun without token counts ({@code default_request_tokens}). */
    public long defaultRequestTokens()
    {
        return defaultRequestTokens;
    }

    /** @return window 60 s, refresh 1 s, inflight max age 10 min. */
    public static SignalSettings defaults()
    {
        return DEFAULTS;
    }

    /** @return time the latency percentiles cover, in nanoseconds. */
    public long latencyWindowNs()
    {
        return latencyWindowNs;
    }

    /** @return period of republishing percentiles, in nanoseconds. */
    public long latencyRefreshNs()
    {
        return latencyRefreshNs;
    }

    /** @return age after which a lease that never ended is reclaimed, in nanoseconds. */
    public long inflightMaxAgeNs()
    {
        return inflightMaxAgeNs;
    }

    @Override
    public String toString()
    {
        return "SignalSettings{latencyWindowNs=" + latencyWindowNs + ", latencyRefreshNs=" + latencyRefreshNs +
            ", inflightMaxAgeNs=" + inflightMaxAgeNs + ", latencyEstimator=" +
            LatencyEstimatorType.label(latencyEstimator) + ", ewmaDecayNs=" + ewmaDecayNs + ", defaultRequestTokens=" +
            defaultRequestTokens + '}';
    }

    private static void requirePositive(final String name, final long valueNs)
    {
        if (valueNs <= 0)
        {
            throw new IllegalArgumentException(name + " must be positive: " + valueNs + " ns");
        }
    }
}
