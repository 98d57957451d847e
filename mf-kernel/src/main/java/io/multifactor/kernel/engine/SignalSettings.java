package io.multifactor.kernel.engine;

/**
 * The engine-wide signal settings ({@code signals:} in the YAML): the latency window, how often published percentiles
 * are recomputed, and the age after which a lease that never ended is reclaimed.
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

    private static final SignalSettings DEFAULTS =
        new SignalSettings(DEFAULT_LATENCY_WINDOW_NS, DEFAULT_LATENCY_REFRESH_NS, DEFAULT_INFLIGHT_MAX_AGE_NS);

    private final long latencyWindowNs;
    private final long latencyRefreshNs;
    private final long inflightMaxAgeNs;

    /**
     * @param latencyWindowNs time the percentiles cover, positive.
     * @param latencyRefreshNs period of republishing percentiles, positive.
     * @param inflightMaxAgeNs age after which a lease is reclaimed, positive.
     * @throws IllegalArgumentException when a value is not positive.
     */
    public SignalSettings(final long latencyWindowNs, final long latencyRefreshNs, final long inflightMaxAgeNs)
    {
        requirePositive("latency_window", latencyWindowNs);
        requirePositive("latency_refresh", latencyRefreshNs);
        requirePositive("inflight_max_age", inflightMaxAgeNs);
        this.latencyWindowNs = latencyWindowNs;
        this.latencyRefreshNs = latencyRefreshNs;
        this.inflightMaxAgeNs = inflightMaxAgeNs;
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
            ", inflightMaxAgeNs=" + inflightMaxAgeNs + '}';
    }

    private static void requirePositive(final String name, final long valueNs)
    {
        if (valueNs <= 0)
        {
            throw new IllegalArgumentException(name + " must be positive: " + valueNs + " ns");
        }
    }
}
