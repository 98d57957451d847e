package io.multifactor.testkit.reference;

import io.multifactor.api.DropReason;
import io.multifactor.api.Outcome;

/**
 * The oracle of the session rules (section 4.6 of the semantics), written from the documented text rather than from the
 * kernel: given the pick X a request gets without a session ({@link ReferenceScorer#select}) and its entry, which model
 * it gets and by which rule. Per decision the engine keeps key -> (model P, turns on P, last seen); an entry is live
 * when it was last seen less than {@code idle_timeout} ago; for a live entry whose P survives (still a candidate, not
 * excluded or dropped), the choice is P ({@code min_turns}) while turns &lt; {@code min_turns_before_switch}, else X
 * ({@code switch}) when X is not P and {@code score(X) > score(P) + stay_bias + switch_margin}, else P ({@code stay});
 * when P does not survive, X ({@code handoff}); with no live entry, X ({@code new}); an outcome other than
 * {@code scored} uses no entry ({@code none}).
 * <p>
 * This class is stateless and threadsafe.
 */
public final class ReferenceSessions
{
    private ReferenceSessions()
    {
    }

    /**
     * A decision's {@code session:} block.
     * <p>
     * Instances are immutable and threadsafe.
     *
     * @param stayBias {@code stay_bias}.
     * @param switchMargin {@code switch_margin}.
     * @param minTurnsBeforeSwitch {@code min_turns_before_switch}.
     * @param idleTimeoutMs {@code idle_timeout} in milliseconds.
     */
    public record Policy(double stayBias, double switchMargin, int minTurnsBeforeSwitch, long idleTimeoutMs)
    {
    }

    /**
     * A request's entry.
     * <p>
     * Instances are immutable and threadsafe.
     *
     * @param model the model P, or {@code null} when the key has no entry.
     * @param turns the turns P has served.
     * @param idleMs how long ago it was last seen.
     */
    public record Entry(String model, int turns, long idleMs)
    {
    }

    /**
     * What the request gets.
     * <p>
     * Instances are immutable and threadsafe.
     *
     * @param model the chosen model, {@code null} when nothing was chosen.
     * @param rule {@code min_turns}, {@code stay}, {@code switch}, {@code handoff}, {@code new} or {@code none}.
     * @param previous P when the entry was live, else {@code null}.
     */
    public record Choice(String model, String rule, String previous)
    {
    }

    /**
     * @param withoutSession the oracle's result without a session: X and every candidate's score and drop.
     * @param policy the decision's session block.
     * @param entry the request's entry.
     * @return the choice the rules make.
     */
    public static Choice choose(final ReferenceResult withoutSession, final Policy policy, final Entry entry)
    {
        final String x = withoutSession.selectedModel();
        final boolean live = entry.model() != null && entry.idleMs() < policy.idleTimeoutMs();
        final String previous = live ? entry.model() : null;
        if (withoutSession.outcome() != Outcome.SCORED)
        {
            return new Choice(x, "none", previous);
        }
        if (!live)
        {
            return new Choice(x, "new", null);
        }
        ReferenceCandidate p = null;
        for (final ReferenceCandidate candidate : withoutSession.candidates())
        {
            if (candidate.model().equals(entry.model()))
            {
                p = candidate;
            }
        }
        if (p == null || p.dropReason() != DropReason.NONE)
        {
            return new Choice(x, "handoff", previous);
        }
        if (entry.turns() < policy.minTurnsBeforeSwitch())
        {
            return new Choice(p.model(), "min_turns", previous);
        }
        final double scoreX = withoutSession.candidate(x).score();
        if (!x.equals(p.model()) && scoreX > p.score() + policy.stayBias() + policy.switchMargin())
        {
            return new Choice(x, "switch", previous);
        }
        return new Choice(p.model(), "stay", previous);
    }
}
