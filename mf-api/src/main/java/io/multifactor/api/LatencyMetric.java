package io.multifactor.api;

/**
 * Codes of a decision's {@code latency_metric}: which observed percentile is its latency signal.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class LatencyMetric
{
    /** The TPOT percentile when the model has TPOT samples, else its TTFT percentile (the default). */
    public static final int AUTO = 0;

    /** Only the TPOT percentile; a model without TPOT samples has no latency signal. */
    public static final int TPOT = 1;

    /** Only the TTFT percentile; a model without TTFT samples has no latency signal. */
    public static final int TTFT = 2;

    private static final String[] LABELS = { "auto", "tpot", "ttft" };

    private LatencyMetric()
    {
    }

    /**
     * @param metric a code of this class.
     * @return its YAML spelling, such as {@code "ttft"}.
     * @throws IllegalArgumentException for an unknown code.
     */
    public static String label(final int metric)
    {
        if (metric < 0 || metric >= LABELS.length)
        {
            throw new IllegalArgumentException("unknown latency metric code: " + metric);
        }
        return LABELS[metric];
    }

    /**
     * @param label a YAML spelling.
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
     * The latency signal under a metric.
     *
     * @param metric a code of this class.
     * @param tpotMs the TPOT percentile in milliseconds, NaN when not observed.
     * @param ttftMs the TTFT percentile in milliseconds, NaN when not observed.
     * @return the signal, NaN when missing.
     */
    public static double select(final int metric, final double tpotMs, final double ttftMs)
    {
        switch (metric)
        {
            case TPOT:
                return tpotMs;
            case TTFT:
                return ttftMs;
            default:
                return tpotMs == tpotMs ? tpotMs : ttftMs;
        }
    }
}
