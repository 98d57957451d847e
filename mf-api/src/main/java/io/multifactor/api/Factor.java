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

    /** Observed latency percentile (TPOT, else TTFT); lower is better. */
    public static final int LATENCY = 1;

    /** Configured {@code prompt_per_1m}; lower is better. */
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
}
