package io.multifactor.kernel.engine;

import io.multifactor.api.DropReason;
import io.multifactor.api.Exclusions;
import io.multifactor.api.InflightTracker;
import io.multifactor.api.Outcome;
import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.api.SelectionWriter;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.scoring.ScoringKernel;
import org.agrona.concurrent.AtomicBuffer;

/**
 * Selection itself: reads the published state once, runs the {@link ScoringKernel} on the decision's plan and
 * candidate signals into the caller's {@link Selection}, reserves the choice for {@code selectAndBegin}
 * ({@link ReserveOnSelect}), and counts the final choice and its drops.
 * <p>
 * Counting is one atomic add on the counter of (decision, chosen candidate, outcome), or (decision, failed); then,
 * only when candidates were dropped, a loop over the candidates (the third of a selection, after the kernel's two)
 * with one atomic add per dropped candidate on (model, reason). Each counter is a 128-byte Agrona
 * record of its own, so threads counting different decisions touch different cache lines.
 * <p>
 * This class is threadsafe: it holds no per-call state; every call writes only the caller's {@link Selection} and the
 * counters (atomically). It allocates nothing (once the selection is large enough), takes no lock, never throws for an
 * expected outcome.
 */
final class Selector
{
    private final StateInstaller installer;
    private final ReserveOnSelect reserver;
    private final AtomicBuffer values;
    private final boolean countSelections;

    Selector(
        final StateInstaller installer, final ReserveOnSelect reserver, final AtomicBuffer values,
        final boolean countSelections)
    {
        this.installer = installer;
        this.reserver = reserver;
        this.values = values;
        this.countSelections = countSelections;
    }

    void select(
        final int decisionId, final Exclusions exclusionsOrNull, final Request requestOrNull, final Selection out)
    {
        final EngineState s = installer.state;
        final DecisionPlan plan = selectOn(s, decisionId, exclusionsOrNull, requestOrNull, out);
        if (countSelections && plan != null)
        {
            countSelection(s, decisionId, plan.candidateCount(), out);
        }
    }

    long selectAndBegin(
        final int decisionId, final Exclusions exclusionsOrNull, final Request requestOrNull, final Selection out)
    {
        final EngineState s = installer.state;
        final DecisionPlan plan = selectOn(s, decisionId, exclusionsOrNull, requestOrNull, out);
        final long lease = plan == null || !out.hasSelection() ? InflightTracker.NO_LEASE : reserver.reserve(s, plan, out);
        SelectionWriter.lease(out, lease);
        if (countSelections && plan != null)
        {
            // Counted once the choice is final: reserve may have dropped a full candidate and chosen the next.
            countSelection(s, decisionId, plan.candidateCount(), out);
        }
        return lease;
    }

    /**
     * Selects on one published state, counting nothing.
     *
     * @return the decision's plan, or null for an unknown decision (then {@code out} is reset to 0 candidates).
     */
    static DecisionPlan selectOn(
        final EngineState s,
        final int decisionId,
        final Exclusions exclusionsOrNull,
        final Request requestOrNull,
        final Selection out)
    {
        final DecisionPlan plan = s.plans.decision(decisionId);
        if (plan == null)
        {
            SelectionWriter.reset(out, decisionId, 0);
            return null;
        }
        ScoringKernel.select(plan, s.byDecision[decisionId], exclusionsOrNull, requestOrNull, out);
        return plan;
    }

    private void countSelection(final EngineState s, final int decisionId, final int n, final Selection out)
    {
        final int best = out.selectedIndex();
        final int index = best < 0 ? n << 1 : out.outcome() == Outcome.SCORED ? best : n + best;
        values.getAndAddLong(s.selectionOffsets[decisionId][index], 1);
        if (out.droppedCount() != 0)
        {
            countDropsSlowPath(s, n, out);
        }
    }

    private void countDropsSlowPath(final EngineState s, final int n, final Selection out)
    {
        final int[] dropOffsets = s.dropOffsets;
        for (int i = 0; i < n; i++)
        {
            final int reason = out.dropReason(i);
            if (reason != DropReason.NONE)
            {
                values.getAndAddLong(dropOffsets[out.modelId(i) * DropReason.COUNT + reason], 1);
            }
        }
    }
}
