package io.multifactor.kernel.plan;

/**
 * Codes of a decision's {@code algorithm.type}: the {@code multi_factor} selection (the default) or one of the baseline
 * policies that a policy comparison measures it against. The baselines ignore weights and ceilings: round robin, a
 * uniform random draw, the fewest in-flight leases, and the lowest latency signal (unobserved candidates first).
 * <p>
 * This class is stateless and threadsafe.
 */
public final class AlgorithmType
{
    /** Filter by the ceilings, then rank by the weighted factors (the default). */
    public static final int MULTI_FACTOR = 0;

    /** The candidates in turn, in {@code modelRefs} order. */
    public static final int ROUND_ROBIN = 1;

    /** One candidate uniformly at random. */
    public static final int RANDOM = 2;

    /** The candidate with the fewest in-flight leases; ties go to the earlier in {@code modelRefs}. */
    public static final int LEAST_INFLIGHT = 3;

    /**
     * The candidate with the lowest latency signal (TPOT percentile, else TTFT percentile, under the decision's
     * {@code latency_metric}); an unobserved candidate comes first; ties go to the earlier in {@code modelRefs}.
     */
    public static final int LOWEST_LATENCY = 4;

    private static final String[] LABELS = { "multi_factor", "round_robin", "random", "least_inflight", "lowest_latency" };

    private AlgorithmType()
    {
    }

    /**
     * @param type a code of this class.
     * @return its YAML spelling.
     * @throws IllegalArgumentException for an unknown code.
     */
    public static String label(final int type)
    {
        if (type < 0 || type >= LABELS.length)
        {
            throw new IllegalArgumentException("unknown algorithm type code: " + type);
        }
        return LABELS[type];
    }

    /**
     * @param label a YAML spelling, such as {@code "round_robin"}.
     * @return its code, or -1 when the spelling is unknown.
     */
    public static int parse(final String label)
    {
        for (int i = 0; i < LABELS.length; i++)
        {
            if (LABELS[i].equals(label))
            {
                return i;
            }
        }
        return -1;
    }

    /**
     * @param type a code of this class.
     * @return whether it is a baseline (anything but {@link #MULTI_FACTOR}).
     */
    public static boolean isBaseline(final int type)
    {
        return type != MULTI_FACTOR;
    }

    /** @return every YAML spelling, {@code multi_factor} first. */
    public static String[] labels()
    {
        return LABELS.clone();
    }
}
