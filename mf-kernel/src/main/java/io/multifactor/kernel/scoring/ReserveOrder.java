package io.multifactor.kernel.scoring;

import io.multifactor.api.DropReason;
import io.multifactor.api.Objective;
import io.multifactor.api.Outcome;
import io.multifactor.api.Selection;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.NoCandidatesPolicy;

/**
 * What reserve-on-select does to a scored {@link Selection} when the model it chose is full: the candidate is dropped
 * with reason {@link DropReason#INFLIGHT} (or {@link DropReason#INFLIGHT_TOKENS}) and the next survivor becomes the
 * choice (with {@code pick: p2c} the other survivor drawn first, then ranking order); when no survivor
 * is left, the decision's {@code on_no_candidates} policy picks, as when the SLO filter leaves no survivor.
 * <p>
 * Ranking order, weighted objective: score descending, then {@code modelRefs} order (the earlier candidate first).
 * Lexicographic objective: the finalists, then the candidates in the order they were eliminated, later first (those
 * eliminated by the same priority factor in {@code modelRefs} order). Candidates are compared by {@link #rankKey}.
 * <p>
 * This class is stateless and threadsafe. Its methods allocate nothing, take no lock and never throw for an expected
 * outcome; each call scans the candidates once.
 */
public final class ReserveOrder
{
    private ReserveOrder()
    {
    }

    /**
     * Drops a candidate that could not be reserved and chooses the next survivor in ranking order.
     *
     * @param plan the decision's plan.
     * @param selection a scored selection whose candidate {@code full} is a survivor.
     * @param full the candidate whose model is at its {@code max_inflight}.
     * @return the next candidate to try, now the selection's choice (outcome {@link Outcome#SCORED}); or -1 when no
     *     survivor is left (the selection's outcome is then unchanged: apply {@link #fallback}).
     */
    public static int dropFullAndChooseNext(final DecisionPlan plan, final Selection selection, final int full)
    {
        return dropFullAndChooseNext(plan, selection, full, DropReason.INFLIGHT);
    }

    /**
     * As {@link #dropFullAndChooseNext(DecisionPlan, Selection, int)}, with the reason the candidate could not be
     * reserved: {@link DropReason#INFLIGHT} or {@link DropReason#INFLIGHT_TOKENS}. With {@code pick: p2c}, the other
     * survivor drawn with the winner ({@link Selection#runnerUp()}) is tried first, then the rest in ranking order.
     *
     * @param plan the decision's plan.
     * @param selection a scored selection whose candidate {@code full} is a survivor.
     * @param full the candidate whose model could not be reserved.
     * @param reason the drop reason to record.
     * @return the next candidate to try, now the selection's choice; or -1 when no survivor is left.
     */
    public static int dropFullAndChooseNext(
        final DecisionPlan plan, final Selection selection, final int full, final int reason)
    {
        SelectionWriter.dropReason(selection, full, reason);
        final int runnerUp = selection.runnerUp();
        if (runnerUp >= 0)
        {
            // Tried once: after it, ranking order.
            SelectionWriter.runnerUp(selection, -1);
            if (runnerUp != full && selection.dropReason(runnerUp) == DropReason.NONE)
            {
                SelectionWriter.outcome(selection, Outcome.SCORED, runnerUp);
                return runnerUp;
            }
        }
        final int n = selection.candidateCount();
        int next = -1;
        double nextKey = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++)
        {
            if (selection.dropReason(i) != DropReason.NONE)
            {
                continue;
            }
            final double key = rankKey(plan, selection, i);
            // Strictly greater: of equal keys the earlier candidate stays ahead.
            if (next < 0 || key > nextKey)
            {
                next = i;
                nextKey = key;
            }
        }
        if (next >= 0)
        {
            SelectionWriter.outcome(selection, Outcome.SCORED, next);
        }
        return next;
    }

    /**
     * The decision's {@code on_no_candidates} policy over the candidates the request did not exclude, as section 4.1
     * applies it when the SLO filter leaves no survivor: {@code cheapest} (lowest cost, priced before unpriced, else the
     * first), {@code first}, or {@code fail}. Writes the outcome.
     *
     * @param plan the decision's plan.
     * @param selection a selection whose every candidate is excluded or dropped.
     * @return the chosen candidate, or -1 (outcome {@link Outcome#FAILED}).
     */
    public static int fallback(final DecisionPlan plan, final Selection selection)
    {
        final int n = selection.candidateCount();
        int first = -1;
        int cheapest = -1;
        double cheapestCost = Double.POSITIVE_INFINITY;
        for (int i = 0; i < n; i++)
        {
            if (DropReason.removesCandidate(selection.dropReason(i)))
            {
                continue;
            }
            if (first < 0)
            {
                first = i;
            }
            final double cost = selection.costPer1M(i);
            // An unpriced (NaN) candidate never wins over a priced one; strict < keeps the earlier of equal costs.
            if (cost < cheapestCost)
            {
                cheapestCost = cost;
                cheapest = i;
            }
        }
        final int policy = plan.policy();
        if (first < 0 || policy == NoCandidatesPolicy.FAIL || policy == NoCandidatesPolicy.SHED)
        {
            SelectionWriter.outcome(selection, first < 0 ? Outcome.FAILED : RequestScreen.noCandidates(plan, selection),
                -1);
            return -1;
        }
        if (policy == NoCandidatesPolicy.FIRST)
        {
            SelectionWriter.outcome(selection, Outcome.FALLBACK_FIRST, first);
            return first;
        }
        final int chosen = cheapest >= 0 ? cheapest : first;
        SelectionWriter.outcome(selection, Outcome.FALLBACK_CHEAPEST, chosen);
        return chosen;
    }

    /**
     * The key by which survivors are tried, higher first; equal keys go in {@code modelRefs} order.
     * <p>
     * Weighted objective: the score. Lexicographic objective: the rank in the priority list of the factor that
     * eliminated the candidate (0 for the first factor), and the length of the list for a finalist, so finalists come
     * first, then the candidates eliminated later.
     *
     * @param plan the decision's plan.
     * @param selection the scored selection.
     * @param index a surviving candidate.
     * @return its key.
     */
    static double rankKey(final DecisionPlan plan, final Selection selection, final int index)
    {
        if (plan.objective() == Objective.LEXICOGRAPHIC)
        {
            return lexicographicRank(plan, selection.eliminatedBy(index));
        }
        return selection.score(index);
    }

    private static int lexicographicRank(final DecisionPlan plan, final int eliminatedBy)
    {
        final int priorityCount = plan.priorityCount();
        for (int rank = 0; rank < priorityCount; rank++)
        {
            if (plan.priority(rank) == eliminatedBy)
            {
                return rank;
            }
        }
        return priorityCount;
    }
}
