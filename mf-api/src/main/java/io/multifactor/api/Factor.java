package io.multifactor.api;

/**
 * Indices of the four scoring factors, used for weights and normalized values.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class Factor
{
    /** Configured {@code quality_score}; higher is better. */
    public static final int QUALITY = 0;

    /** Observed latency percentile (by default TPOT, else TTFT; see {@link LatencyMetric}); lower is better. */
    public static final int LATENCY = 1;

    /** Configured price per 1M tokens ({@code prompt_per_1m}, or the decision's {@code cost_mix}); lower is better. */
    public static final int COST = 2;

    /** Current in-flight count; lower is better. */
    public static final int LOAD = 3;

    /** Number of factors. */
    public static final int COUNT = 4;

    private static final String[] LABELS = { "quality", "latency", "cost", "load" };

    private Factor()
    {
    }

    /**
     * The YAML key of a factor.
     *
     * @param factor one of the indices of this class.
     * @return its label, such as {@code "latency"}.
     * @throws IllegalArgumentException for an index that is not one of this class.
     */
    public static String label(final int factor)
    {
        if (factor < 0 || factor >= COUNT)
        {
            throw new IllegalArgumentException("unknown factor: " + factor);
        }
        return LABELS[factor];
    }

    /**
     * @param label a YAML spelling, such as {@code "cost"}.
     * @return its index, or -1 when the spelling is unknown.
     */
    public static int parse(final String label)
    {
        for (int i = 0; i < COUNT; i++)
        {
            if (LABELS[i].equals(label))
            {
                return i;
            }
        }
        return -1;
    }
}
