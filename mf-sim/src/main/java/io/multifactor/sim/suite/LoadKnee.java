package io.multifactor.sim.suite;

/**
 * The load knee of a scenario: the arrival rate at which round-robin's SLO attainment falls below 90%, found by
 * bisection between {@value #LOWEST_PER_S} and {@value #HIGHEST_PER_S} requests/s to within 5% (each step halves the
 * bracket on a logarithmic scale, at the geometric mean of its ends). When the attainment is already below the goal at
 * the lowest rate the knee is that rate; when it never falls below it, the highest; the result says which. The one
 * home of this search: the suite and the figures runners call it.
 * <p>
 * This class is stateless and threadsafe (the attainment function is called on the caller's thread).
 */
public final class LoadKnee
{
    /** The lowest rate searched, requests per second. */
    public static final double LOWEST_PER_S = 1.0;

    /** The highest rate searched, requests per second. */
    public static final double HIGHEST_PER_S = 2000.0;

    /** The SLO attainment whose crossing is the knee. */
    public static final double GOAL = 0.90;

    /** The bisection stops when the bracket's ends are within this ratio. */
    public static final double WITHIN = 1.05;

    /** The knee lies between two probed rates. */
    public static final int FOUND = 0;

    /** Attainment was below the goal already at the lowest rate. */
    public static final int AT_LOWEST = 1;

    /** Attainment never fell below the goal up to the highest rate. */
    public static final int AT_HIGHEST = 2;

    /** SLO attainment at a given arrival rate (one simulation run). */
    @FunctionalInterface
    public interface Attainment
    {
        /**
         * @param ratePerS arrivals per second.
         * @return the SLO attainment at that rate, in [0, 1].
         */
        double at(double ratePerS);
    }

    /**
     * A knee found.
     *
     * @param ratePerS the knee: the lowest probed rate below the goal ({@link #FOUND}), or a bound.
     * @param bound {@link #FOUND}, {@link #AT_LOWEST} or {@link #AT_HIGHEST}.
     * @param probes how many rates were simulated.
     */
    public record Knee(double ratePerS, int bound, int probes)
    {
        /** @return how the report says it: empty when found, else which bound it hit. */
        public String boundNote()
        {
            return bound == AT_LOWEST ? "below 90% already at " + (int)LOWEST_PER_S + "/s (the lowest bound)" :
                bound == AT_HIGHEST ? "never below 90% up to " + (int)HIGHEST_PER_S + "/s (the highest bound)" : "";
        }
    }

    private LoadKnee()
    {
    }

    /**
     * @param attainment SLO attainment at a rate.
     * @return the knee.
     */
    public static Knee find(final Attainment attainment)
    {
        double low = LOWEST_PER_S;
        double high = HIGHEST_PER_S;
        if (attainment.at(low) < GOAL)
        {
            return new Knee(low, AT_LOWEST, 1);
        }
        if (attainment.at(high) >= GOAL)
        {
            return new Knee(high, AT_HIGHEST, 2);
        }
        int probes = 2;
        while (high > low * WITHIN)
        {
            final double mid = Math.sqrt(low * high);
            probes++;
            if (attainment.at(mid) < GOAL)
            {
                high = mid;
            }
            else
            {
                low = mid;
            }
        }
        return new Knee(high, FOUND, probes);
    }
}
