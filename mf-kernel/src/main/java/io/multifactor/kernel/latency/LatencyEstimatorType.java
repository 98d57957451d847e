package io.multifactor.kernel.latency;

/**
 * Codes of {@code signals.latency_estimator}: which {@link LatencyEstimator} every model's TTFT and TPOT use.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class LatencyEstimatorType
{
    /** The configured percentile over {@code latency_window} ({@link LatencyWindow}, the default). */
    public static final int WINDOW = 0;

    /** Finagle's peak-EWMA with time constant {@code ewma_decay} ({@link PeakEwma}). */
    public static final int PEAK_EWMA = 1;

    private static final String[] LABELS = { "window", "peak_ewma" };

    private LatencyEstimatorType()
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
            throw new IllegalArgumentException("unknown latency_estimator code: " + type);
        }
        return LABELS[type];
    }

    /**
     * @param label a YAML spelling, such as {@code "peak_ewma"}.
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

    /** @return every YAML spelling, in code order (for error messages). */
    public static String[] labels()
    {
        return LABELS.clone();
    }
}
