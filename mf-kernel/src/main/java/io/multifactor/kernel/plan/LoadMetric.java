package io.multifactor.kernel.plan;

/**
 * Codes of a decision's {@code load_metric}.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class LoadMetric
{
    /** Requests in flight (the default). */
    public static final int REQUESTS = 0;

    /** Tokens in flight: the sum of the live leases' token weights. */
    public static final int TOKENS = 1;

    private static final String[] LABELS = { "requests", "tokens" };

    private LoadMetric()
    {
    }

    /**
     * @param code a code of this class.
     * @return its YAML spelling.
     * @throws IllegalArgumentException for an unknown code.
     */
    public static String label(final int code)
    {
        if (code < 0 || code >= LABELS.length)
        {
            throw new IllegalArgumentException("unknown load_metric code: " + code);
        }
        return LABELS[code];
    }

    /**
     * @param label a YAML spelling, such as {@code "tokens"}.
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
}
