package io.multifactor.kernel.engine;

import io.multifactor.api.Exclusions;
import io.multifactor.api.InflightTracker;
import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.kernel.plan.AlgorithmType;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.scoring.BaselineKernel;
import io.multifactor.kernel.scoring.ScoringKernel;
import io.multifactor.kernel.scoring.SelectionWriter;
import io.multifactor.kernel.metrics.PerThreadCounterBlocks;
import io.multifactor.kernel.metrics.SingleWriterCounterBlock;

/**
 * Selection itself: reads the published state once, runs the {@link ScoringKernel} (for a decision of a baseline
 * type, the {@link BaselineKernel}) on the decision's plan and candidate signals into the caller's {@link Selection}, reserves the choice for {@code selectAndBegin}
 * ({@link ReserveOnSelect}), and counts the final choice and its drops.
 * <p>
 * Counting (on by default) writes only the calling thread's own {@link SingleWriterCounterBlock}, with plain stores: one
 * for the selection, on the counter of (decision, chosen candidate, outcome) or (decision, failed), and one per dropped
 * candidate on (model, reason), counted by the kernel in its drop branch (and by reserve on select for a candidate it
 * finds full). The refresh agent adds the blocks into the shared counters once per period
 * ({@link PerThreadCounterBlocks#aggregate()}). No atomic instruction, and no cache line another thread writes.
 * <p>
 * This class is threadsafe: it holds no per-call state; every call writes only the caller's {@link Selection} and the
 * calling thread's counter block. It allocates nothing (once the selection is large enough and the thread has its
 * block), takes no lock, never throws for an expected outcome.
 */
final class Selector
{
    private final ReserveOnSelect reserver;
    private final PerThreadCounterBlocks counterBlocksOrNull;

    /**
     * @param reserver reserve on select.
     * @param counterBlocksOrNull the engine's per-thread counter blocks, or null when selections are not counted.
     */
    Selector(final ReserveOnSelect reserver, final PerThreadCounterBlocks counterBlocksOrNull)
    {
        this.reserver = reserver;
        this.counterBlocksOrNull = counterBlocksOrNull;
    }

    /**
     * @param s the published state, loaded once by the caller (the facade reads it straight from the installer: one
     *     dependent load fewer on the way to the plan than through this object).
     * @param decisionId decision handle.
     * @param exclusionsOrNull models this request leaves out, or null.
     * @param requestOrNull the request, or null.
     * @param out the caller's selection.
     */
    void select(
        final EngineState s,
        final int decisionId,
        final Exclusions exclusionsOrNull,
        final Request requestOrNull,
        final Selection out)
    {
        final LiveDecision decision = s.decision(decisionId);
        if (decision == null)
        {
            SelectionWriter.reset(out, decisionId);
            return;
        }
        final SingleWriterCounterBlock counts = countsOrNull(out);
        run(decision, exclusionsOrNull, requestOrNull, out, counts);
        if (counts != null)
        {
            counts.increment(decision.selectionCounterId(out));
        }
    }

    /**
     * As {@link #select}, then reserve on select.
     *
     * @param s the published state, loaded once by the caller.
     * @param decisionId decision handle.
     * @param exclusionsOrNull models this request leaves out, or null.
     * @param requestOrNull the request, or null.
     * @param out the caller's selection.
     * @return the lease, or {@link InflightTracker#NO_LEASE}.
     */
    long selectAndBegin(
        final EngineState s,
        final int decisionId,
        final Exclusions exclusionsOrNull,
        final Request requestOrNull,
        final Selection out)
    {
        final LiveDecision decision = s.decision(decisionId);
        if (decision == null)
        {
            SelectionWriter.reset(out, decisionId);
            return InflightTracker.NO_LEASE;
        }
        final SingleWriterCounterBlock counts = countsOrNull(out);
        run(decision, exclusionsOrNull, requestOrNull, out, counts);
        final long lease = out.hasSelection() ?
            reserver.reserve(s, decision, out, counts, reserver.weight(requestOrNull)) : InflightTracker.NO_LEASE;
        SelectionWriter.lease(out, lease);
        if (counts != null)
        {
            // Counted once the choice is final: reserve may have dropped a full candidate and chosen the next.
            counts.increment(decision.selectionCounterId(out));
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
        final LiveDecision decision = s.decision(decisionId);
        if (decision == null)
        {
            SelectionWriter.reset(out, decisionId);
            return null;
        }
        run(decision, exclusionsOrNull, requestOrNull, out, null);
        return decision.plan;
    }

    // The decision's kernel: the scoring kernel, or for a baseline type of a policy comparison (round_robin, random,
    // least_inflight, lowest_latency) the BaselineKernel, which counts no drops.
    private static void run(
        final LiveDecision decision,
        final Exclusions exclusionsOrNull,
        final Request requestOrNull,
        final Selection out,
        final SingleWriterCounterBlock countsOrNull)
    {
        final DecisionPlan plan = decision.plan;
        if (plan.algorithmType() == AlgorithmType.MULTI_FACTOR)
        {
            ScoringKernel.select(plan, decision.signals, exclusionsOrNull, requestOrNull, out, countsOrNull);
        }
        else
        {
            BaselineKernel.select(plan, decision.signals, exclusionsOrNull, requestOrNull, out);
        }
    }

    // The calling thread's block, or null when counting is off: the one kept in the selection when it is the calling
    // thread's (a selection is usually reused by one thread), else a ThreadLocal lookup, then kept there.
    private SingleWriterCounterBlock countsOrNull(final Selection out)
    {
        final PerThreadCounterBlocks blocks = counterBlocksOrNull;
        if (blocks == null)
        {
            return null;
        }
        final Object kept = SelectionWriter.callerThreadState(out);
        final SingleWriterCounterBlock counts = blocks.forCurrentThread(kept);
        if (counts != kept)
        {
            SelectionWriter.callerThreadState(out, counts);
        }
        return counts;
    }
}
