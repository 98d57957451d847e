package io.multifactor.api;

/**
 * How much a request may be refused to protect others ({@link Request#priority(int)}, header {@code x-mf-priority}):
 * only a {@link #SHEDDABLE} request is refused by a decision's {@code admission} when its candidates are near their
 * load ceilings; {@link #CRITICAL} and {@link #STANDARD} ones never are.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class Priority
{
    /** Never shed by admission. */
    public static final int CRITICAL = 0;

    /** Never shed by admission (the default). */
    public static final int STANDARD = 1;

    /** Shed by a decision's {@code admission} when no eligible candidate has room. */
    public static final int SHEDDABLE = 2;

    private static final String[] LABELS = { "critical", "standard", "sheddable" };

    private Priority()
    {
    }

    /**
     * @param priority a code of this class.
     * @return its spelling, such as {@code "sheddable"}.
     * @throws IllegalArgumentException for an unknown code.
     */
    public static String label(final int priority)
    {
        if (priority < 0 || priority >= LABELS.length)
        {
            throw new IllegalArgumentException("unknown priority code: " + priority);
        }
        return LABELS[priority];
    }

    /**
     * @param label a spelling, such as {@code "critical"} (exact, lower case).
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
