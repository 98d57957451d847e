package io.multifactor.sim;

/**
 * On/off arrivals: requests arrive as a Poisson process for {@code onS} seconds, then none for {@code offS} seconds,
 * and again; during an "on" phase at {@code (onS + offS) / onS} times the profile's {@code arrivals_per_s}, so that
 * the mean rate over a cycle stays {@code arrivals_per_s} (with {@code on_s: 5, off_s: 10}, bursts at 3x the mean).
 * The profile key {@code bursts: {on_s, off_s}}; every cycle starts with its "on" phase at simulated time 0.
 * <p>
 * The arrivals are drawn as a Poisson process over the "on" time alone (gaps at the burst rate), each then placed at
 * its wall-clock time: the {@code k}-th second of "on" time is in cycle {@code floor(k / onS)}.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param onS seconds of arrivals per cycle, > 0 (NaN: no bursts).
 * @param offS seconds without arrivals per cycle, > 0 (NaN: no bursts).
 */
public record ArrivalBursts(double onS, double offS)
{
    /** Plain Poisson arrivals at the profile's rate. */
    public static final ArrivalBursts NONE = new ArrivalBursts(Double.NaN, Double.NaN);

    /**
     * Checks the ranges above.
     *
     * @throws IllegalArgumentException when a value is out of range.
     */
    public ArrivalBursts
    {
        final boolean none = Double.isNaN(onS) && Double.isNaN(offS);
        if (!none && !(onS > 0.0 && onS < 1e6 && offS > 0.0 && offS < 1e6))
        {
            throw new IllegalArgumentException("bursts: on_s and off_s must be in (0, 1e6): " + onS + ", " + offS);
        }
    }

    /** @return whether arrivals come in bursts. */
    public boolean active()
    {
        return !Double.isNaN(onS);
    }

    /**
     * @param meanPerS the mean arrival rate over a cycle.
     * @return the arrival rate during an "on" phase.
     */
    public double burstRatePerS(final double meanPerS)
    {
        return active() ? meanPerS * (onS + offS) / onS : meanPerS;
    }

    /**
     * @param onTimeNs a position on the "on" time line, nanoseconds since simulated time 0.
     * @return its simulated (wall-clock) time: the same position with every "off" phase before it inserted.
     */
    public long wallNs(final long onTimeNs)
    {
        if (!active())
        {
            return onTimeNs;
        }
        final long onNs = Math.max(1L, Math.round(onS * 1e9));
        final long offNs = Math.round(offS * 1e9);
        return onTimeNs / onNs * (onNs + offNs) + onTimeNs % onNs;
    }
}
