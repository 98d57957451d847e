package io.multifactor.kernel.engine;

import io.multifactor.api.Outcome;
import io.multifactor.api.Selection;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.scoring.CandidateSignals;

/**
 * One decision of a published {@link EngineState}, everything {@code select} needs behind one array load: the
 * decision's plan, its candidates' live signals (with the drop counter of each candidate and reason) and the ids of
 * its selection counters.
 * <pre>
 *   selectionCounterIds (n candidates):  [ scored(0) .. scored(n-1) | fallback(0) .. fallback(n-1) | failed |
 *                                          ineligible | shed ]
 * </pre>
 * The fallback ids are those of the decision's {@code on_no_candidates} outcome ({@code failed} itself with
 * {@code fail}).
 * <p>
 * Instances are immutable (the signals are published into by the refresh thread, see {@link CandidateSignals}) and
 * threadsafe.
 */
final class LiveDecision
{
    final DecisionPlan plan;
    final CandidateSignals signals;
    private final int[] selectionCounterIds;
    private final int candidateCount;

    /**
     * @param plan the decision's plan.
     * @param signals its candidates' signals.
     * @param selectionCounterIds counter ids in the layout above, {@code 2n + 3} of them.
     */
    LiveDecision(final DecisionPlan plan, final CandidateSignals signals, final int[] selectionCounterIds)
    {
        if (selectionCounterIds.length != 2 * plan.candidateCount() + 3)
        {
            throw new IllegalArgumentException("selection counter ids: " + selectionCounterIds.length + " for " +
                plan.candidateCount() + " candidates");
        }
        this.plan = plan;
        this.signals = signals;
        this.selectionCounterIds = selectionCounterIds;
        this.candidateCount = plan.candidateCount();
    }

    /**
     * @param out a selection of this decision, its choice final.
     * @return the id of the counter that counts it: (chosen candidate, outcome), or (failed), (ineligible), (shed).
     */
    int selectionCounterId(final Selection out)
    {
        final int best = out.selectedIndex();
        return selectionCounterIds[best < 0 ? (candidateCount << 1) + nothingSelected(out.outcome()) :
            out.outcome() == Outcome.SCORED ? best : candidateCount + best];
    }

    // The slot after the fallbacks of an outcome that selects nothing: failed 0, ineligible 1, shed 2.
    private static int nothingSelected(final int outcome)
    {
        return outcome == Outcome.INELIGIBLE ? 1 : outcome == Outcome.SHED ? 2 : 0;
    }
}
