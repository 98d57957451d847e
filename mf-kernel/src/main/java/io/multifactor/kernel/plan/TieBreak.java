package io.multifactor.kernel.plan;

/**
 * Codes of a decision's {@code tie_break}: which of the tied candidates (weighted: within {@code tie_band} of the best
 * score; lexicographic: the finalists) is chosen.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class TieBreak
{
    /** The earliest tied candidate in {@code modelRefs} order (the default). */
    public static final int FIRST = 0;

    /** One tied candidate uniformly at random, from the request's generator. */
    public static final int RANDOM = 1;

    private static final String[] LABELS = { "first", "random" };

    private TieBreak()
    {
    }

    /**
     * @param tieBreak a code of this class.
     * @return its YAML spelling.
     * @throws IllegalArgumentException for an unknown code.
     */
    public static String label(final int tieBreak)
    {
        if (tieBreak < 0 || tieBreak >= LABELS.length)
        {
            throw new IllegalArgumentException("unknown tie_break code: " + tieBreak);
        }
        return LABELS[tieBreak];
    }

    /**
     * @param label a YAML spelling, such as {@code "random"}.
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
