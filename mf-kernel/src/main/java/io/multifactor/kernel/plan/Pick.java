package io.multifactor.kernel.plan;

/**
 * Codes of a decision's {@code pick}.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class Pick
{
    /** The survivor with the best score (the default; ties as {@code tie_band} and {@code tie_break} say). */
    public static final int BEST = 0;

    /** The better of two distinct survivors drawn uniformly (power of two choices). */
    public static final int P2C = 1;

    private static final String[] LABELS = { "best", "p2c" };

    private Pick()
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
            throw new IllegalArgumentException("unknown pick code: " + code);
        }
        return LABELS[code];
    }

    /**
     * @param label a YAML spelling, such as {@code "p2c"}.
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
