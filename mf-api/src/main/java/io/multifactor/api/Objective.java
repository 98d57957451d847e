package io.multifactor.api;

/**
 * Codes of a decision's {@code objective}: how the survivors of the filter are ranked.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class Objective
{
    /** The weighted sum of the normalized factors; the highest score wins (the default). */
    public static final int WEIGHTED = 0;

    /**
     * Factor by factor in {@code priority} order, keeping the candidates within {@code tolerance} of the best; the
     * earliest remaining candidate wins.
     */
    public static final int LEXICOGRAPHIC = 1;

    private static final String[] LABELS = { "weighted", "lexicographic" };

    private Objective()
    {
    }

    /**
     * @param objective a code of this class.
     * @return its YAML spelling, such as {@code "lexicographic"}.
     * @throws IllegalArgumentException for an unknown code.
     */
    public static String label(final int objective)
    {
        if (objective < 0 || objective >= LABELS.length)
        {
            throw new IllegalArgumentException("unknown objective code: " + objective);
        }
        return LABELS[objective];
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
}
