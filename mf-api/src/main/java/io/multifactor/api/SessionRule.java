package io.multifactor.api;

/**
 * Codes of the session rule that made a selection's choice ({@link Selection#sessionRule()}), as primitive constants.
 * A request carries a session key ({@link Request#session(long)}); a decision with a {@code session} block keeps, per
 * key, the model P that served it, its turns on P and when it was last seen, and decides between P and the pick X the
 * request gets without a session:
 * <ul>
 *   <li>{@link #MIN_TURNS}: P, while P has served fewer turns than {@code min_turns_before_switch};</li>
 *   <li>{@link #SWITCH}: X, when X is not P and {@code score(X) > score(P) + stay_bias + switch_margin};</li>
 *   <li>{@link #STAY}: P otherwise;</li>
 *   <li>{@link #HANDOFF}: X, when P no longer survives (gone from the decision, excluded or dropped);</li>
 *   <li>{@link #NEW}: X, when the key has no live entry;</li>
 *   <li>{@link #NONE}: the outcome was not {@code scored}: no entry used or changed;</li>
 *   <li>{@link #OFF}: no session: the request has no key, or its decision has no {@code session} block.</li>
 * </ul>
 * <p>
 * This class is stateless and threadsafe.
 */
public final class SessionRule
{
    /** No session took part: the request carries no key, or the decision has no {@code session} block. */
    public static final int OFF = -1;

    /** The outcome was not {@code scored}: the entry was neither used nor changed. */
    public static final int NONE = 0;

    /** The key had no live entry: the pick without a session, which now holds the entry. */
    public static final int NEW = 1;

    /** The previous model kept the request. */
    public static final int STAY = 2;

    /** A better model won by more than the stay bias and the switch margin. */
    public static final int SWITCH = 3;

    /** The previous model no longer survives: the pick without a session took over. */
    public static final int HANDOFF = 4;

    /** The previous model kept the request because it has served fewer turns than {@code min_turns_before_switch}. */
    public static final int MIN_TURNS = 5;

    /** Number of codes from {@link #NONE} on. */
    public static final int COUNT = 6;

    private static final String[] LABELS = { "none", "new", "stay", "switch", "handoff", "min_turns" };

    private SessionRule()
    {
    }

    /**
     * The contract name of a rule, as {@code explain} prints it.
     *
     * @param rule one of the codes of this class other than {@link #OFF}.
     * @return its label, such as {@code "handoff"}.
     * @throws IllegalArgumentException for {@link #OFF} or a code that is not one of this class.
     */
    public static String label(final int rule)
    {
        if (rule < 0 || rule >= LABELS.length)
        {
            throw new IllegalArgumentException("unknown session rule code: " + rule);
        }
        return LABELS[rule];
    }
}
