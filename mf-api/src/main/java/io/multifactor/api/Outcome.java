package io.multifactor.api;

/**
 * Outcome codes of one selection, as primitive constants (an expected outcome is never an exception).
 * <p>
 * This class is stateless and threadsafe.
 */
public final class Outcome
{
    /** At least one candidate survived the SLO filter and the best score won. */
    public static final int SCORED = 0;

    /** No candidate survived; the {@code cheapest} policy picked the lowest prompt price. */
    public static final int FALLBACK_CHEAPEST = 1;

    /** No candidate survived; the {@code first} policy picked the first candidate not excluded. */
    public static final int FALLBACK_FIRST = 2;

    /** Nothing selected: the {@code fail} policy, every candidate excluded, or an unknown decision. */
    public static final int FAILED = 3;

    /**
     * Nothing selected: no candidate the request leaves in can serve it (its context window or capabilities); no
     * fallback applies.
     */
    public static final int INELIGIBLE = 4;

    /**
     * Nothing selected: the request was shed, a {@code sheddable} one by the decision's {@code admission}, or any one
     * by {@code on_no_candidates: shed} when every eligible candidate was dropped for load.
     */
    public static final int SHED = 5;

    /** Number of codes (0 to {@code COUNT - 1}), for arrays indexed by outcome. */
    public static final int COUNT = 6;

    private static final String[] LABELS = {
        "scored", "fallback_cheapest", "fallback_first", "failed", "ineligible", "shed" };

    private Outcome()
    {
    }

    /**
     * The contract name of an outcome code, as printed by {@code bin/mf explain --json}.
     *
     * @param outcome one of the codes of this class.
     * @return its label, such as {@code "fallback_cheapest"}.
     * @throws IllegalArgumentException for a code that is not one of this class.
     */
    public static String label(final int outcome)
    {
        if (outcome < 0 || outcome >= LABELS.length)
        {
            throw new IllegalArgumentException("unknown outcome code: " + outcome);
        }
        return LABELS[outcome];
    }
}
