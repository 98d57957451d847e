package io.multifactor.kernel.engine;

import io.multifactor.api.Outcome;
import io.multifactor.api.Selection;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.SessionPolicy;
import io.multifactor.kernel.scoring.CandidateSignals;
import io.multifactor.kernel.session.SessionTable;

/**
 * One decision of a published {@link EngineState}, everything {@code select} needs behind one array load: the
 * decision's plan, its candidates' live signals (with the drop counter of each candidate and reason) and the ids of
 * its selection counters.
 * <pre>
 *   selectionCounterIds (n candidates):  [ scored(0) .. scored(n-1) | fallback(0) .. fallback(n-1) | failed |
 *                                          ineligible | shed ]
 * </pre>
 * The fallback ids are those of the decision's {@code on_no_candidates} outcome ({@code failed} itself with
 * {@code fail}). A decision with a {@code session} block also has its session table and the ids of its session
 * counters, indexed by {@code SessionRule} code (the {@code none} slot holds the evictions' id).
 * <p>
 * Instances are immutable (the signals are published into by the refresh thread, see {@link CandidateSignals}; the
 * session table is its own threadsafe structure) and threadsafe.
 */
final class LiveDecision
{
    final DecisionPlan plan;
    final CandidateSignals signals;
    /** The decision's session table, or null without a {@code session} block. */
    final SessionTable sessionsOrNull;
    /** The decision's {@code session} block, or null. */
    final SessionPolicy sessionPolicyOrNull;
    /** Session counter ids by SessionRule code, the NONE slot holding evictions; -1 where none. */
    final int[] sessionCounterIds;
    /** Value offset of {@code mf.sessions.live}, or -1. */
    final int sessionsLiveOffset;
    private final int[] selectionCounterIds;
    private final int candidateCount;

    /**
     * @param plan the decision's plan.
     * @param signals its candidates' signals.
     * @param selectionCounterIds counter ids in the layout above, {@code 2n + 3} of them.
     */
    LiveDecision(final DecisionPlan plan, final CandidateSignals signals, final int[] selectionCounterIds)
    {
        this(plan, signals, selectionCounterIds, null, null, -1);
    }

    /**
     * @param plan the decision's plan.
     * @param signals its candidates' signals.
     * @param selectionCounterIds counter ids in the layout above, {@code 2n + 3} of them.
     * @param sessionsOrNull the decision's session table, or null (the plan's session block is then not applied).
     * @param sessionCounterIds session counter ids by rule, or null when not counted.
     * @param sessionsLiveOffset value offset of the live gauge, or -1.
     */
    LiveDecision(
        final DecisionPlan plan,
        final CandidateSignals signals,
        final int[] selectionCounterIds,
        final SessionTable sessionsOrNull,
        final int[] sessionCounterIds,
        final int sessionsLiveOffset)
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
        this.sessionPolicyOrNull = sessionsOrNull == null ? null : plan.sessionOrNull();
        this.sessionsOrNull = sessionPolicyOrNull == null ? null : sessionsOrNull;
        this.sessionCounterIds = sessionCounterIds == null ? SessionTables.NO_IDS : sessionCounterIds;
        this.sessionsLiveOffset = sessionsLiveOffset;
    }

    /**
     * @param sessionsOrNull the decision's session table.
     * @param sessionCounterIds session counter ids by rule.
     * @param sessionsLiveOffset value offset of the live gauge, or -1.
     * @return this decision with its sessions.
     */
    LiveDecision withSessions(
        final SessionTable sessionsOrNull, final int[] sessionCounterIds, final int sessionsLiveOffset)
    {
        return new LiveDecision(plan, signals, selectionCounterIds, sessionsOrNull, sessionCounterIds,
            sessionsLiveOffset);
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
