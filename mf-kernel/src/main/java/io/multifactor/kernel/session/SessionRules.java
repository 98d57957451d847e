package io.multifactor.kernel.session;

import io.multifactor.api.DropReason;
import io.multifactor.api.Handles;
import io.multifactor.api.Outcome;
import io.multifactor.api.Selection;
import io.multifactor.api.SessionRule;
import io.multifactor.kernel.plan.SessionPolicy;
import io.multifactor.kernel.scoring.SelectionWriter;

/**
 * The session rules, written once: {@code select}, {@code selectAndBegin} and {@code explain} all run them. Given a
 * filled selection whose choice is X (the pick without a session, tie-break or p2c draw included) and the request's
 * live entry (model P, turns), they choose between P and X:
 * <ul>
 *   <li>outcome not {@code scored}: no entry is used or changed ({@link SessionRule#NONE});</li>
 *   <li>no live entry: X ({@link SessionRule#NEW});</li>
 *   <li>P does not survive (not a candidate, excluded or dropped by any filter): X ({@link SessionRule#HANDOFF});</li>
 *   <li>turns &lt; {@code min_turns_before_switch}: P ({@link SessionRule#MIN_TURNS});</li>
 *   <li>X is not P and {@code score(X) > score(P) + stay_bias + switch_margin}: X ({@link SessionRule#SWITCH});</li>
 *   <li>else P ({@link SessionRule#STAY}).</li>
 * </ul>
 * When P is chosen over X, X becomes the runner-up, so that reserve on select tries X next when P cannot be reserved;
 * {@link #afterReserve} then names what happened ({@link SessionRule#HANDOFF} when P was chosen but not reserved).
 * <p>
 * This class is stateless and threadsafe; its methods allocate nothing and write only the caller's selection.
 */
public final class SessionRules
{
    private SessionRules()
    {
    }

    /**
     * Applies the rules to a filled selection and records the rule and P in it.
     *
     * @param policy the decision's {@code session} block.
     * @param out a selection of that decision, filled by the kernel.
     * @param entry the request's live entry ({@link SessionTable#lookup}), or {@link SessionTable#NO_ENTRY}.
     * @return the {@link SessionRule} code.
     */
    public static int apply(final SessionPolicy policy, final Selection out, final long entry)
    {
        final int previous = entry == SessionTable.NO_ENTRY ? Handles.NONE : SessionTable.modelId(entry);
        final int rule = choose(policy, out, entry, previous);
        SelectionWriter.session(out, rule, previous);
        return rule;
    }

    private static int choose(final SessionPolicy policy, final Selection out, final long entry, final int previous)
    {
        if (out.outcome() != Outcome.SCORED)
        {
            return SessionRule.NONE;
        }
        if (entry == SessionTable.NO_ENTRY)
        {
            return SessionRule.NEW;
        }
        final int n = out.candidateCount();
        int p = -1;
        for (int i = 0; i < n; i++)
        {
            if (out.modelId(i) == previous)
            {
                p = i;
                break;
            }
        }
        if (p < 0 || out.dropReason(p) != DropReason.NONE)
        {
            return SessionRule.HANDOFF;
        }
        final int x = out.selectedIndex();
        if (SessionTable.turns(entry) < policy.minTurnsBeforeSwitch())
        {
            choose(out, p, x);
            return SessionRule.MIN_TURNS;
        }
        if (x != p && out.score(x) > out.score(p) + policy.stayBias() + policy.switchMargin())
        {
            return SessionRule.SWITCH;
        }
        choose(out, p, x);
        return SessionRule.STAY;
    }

    private static void choose(final Selection out, final int p, final int x)
    {
        if (p != x)
        {
            SelectionWriter.outcome(out, Outcome.SCORED, p);
            // P first, then X: if P cannot be reserved, the request is handed off to the pick without a session.
            SelectionWriter.runnerUp(out, x);
        }
    }

    /**
     * The rule once reserve on select has taken its lease: P chosen but not reserved (it was full) is a
     * {@link SessionRule#HANDOFF}, a switch that ended on P a {@link SessionRule#STAY}, a fallback after every survivor
     * was full {@link SessionRule#NONE}. Records it in the selection.
     *
     * @param out the selection after reserve on select.
     * @param rule the rule {@link #apply} returned.
     * @return the final rule.
     */
    public static int afterReserve(final Selection out, final int rule)
    {
        if (rule == SessionRule.NONE || rule == SessionRule.NEW || rule == SessionRule.HANDOFF)
        {
            if (rule != SessionRule.NONE && out.outcome() != Outcome.SCORED)
            {
                SelectionWriter.session(out, SessionRule.NONE, out.sessionPreviousModel());
                return SessionRule.NONE;
            }
            return rule;
        }
        final int previous = out.sessionPreviousModel();
        final int finalRule;
        if (out.outcome() != Outcome.SCORED)
        {
            finalRule = SessionRule.NONE;
        }
        else if (out.selectedModel() == previous)
        {
            finalRule = rule == SessionRule.SWITCH ? SessionRule.STAY : rule;
        }
        else
        {
            finalRule = rule == SessionRule.SWITCH ? rule : SessionRule.HANDOFF;
        }
        if (finalRule != rule)
        {
            SelectionWriter.session(out, finalRule, previous);
        }
        return finalRule;
    }
}
