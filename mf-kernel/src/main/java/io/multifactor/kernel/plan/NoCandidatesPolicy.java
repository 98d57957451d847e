package io.multifactor.kernel.plan;

/**
 * Codes of the {@code on_no_candidates} policy: what a decision does when the SLO filter drops every candidate.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class NoCandidatesPolicy
{
    /** Pick the candidate with the lowest configured prompt price (the default). */
    public static final int CHEAPEST = 0;

    /** Pick the first candidate as listed. */
    public static final int FIRST = 1;

    /** Select nothing; the caller gets {@link io.multifactor.api.Outcome#FAILED}. */
    public static final int FAIL = 2;

    /**
     * Shed the request ({@link io.multifactor.api.Outcome#SHED}) when every eligible candidate was dropped for a load
     * reason ({@link io.multifactor.api.DropReason#isLoad}); otherwise as {@link #FAIL}.
     */
    public static final int SHED = 3;

    private static final String[] LABELS = { "cheapest", "first", "fail", "shed" };

    private NoCandidatesPolicy()
    {
    }

    /**
     * @param policy a code of this class.
     * @return its YAML spelling.
     * @throws IllegalArgumentException for an unknown code.
     */
    public static String label(final int policy)
    {
        if (policy < 0 || policy >= LABELS.length)
        {
            throw new IllegalArgumentException("unknown policy code: " + policy);
        }
        return LABELS[policy];
    }

    /**
     * @param label a YAML spelling, such as {@code "cheapest"}.
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
