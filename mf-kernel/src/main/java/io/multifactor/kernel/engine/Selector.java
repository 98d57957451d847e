package io.multifactor.kernel.engine;

import io.multifactor.api.Exclusions;
import io.multifactor.api.InflightTracker;
import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.api.SessionRule;
import io.multifactor.kernel.plan.AlgorithmType;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.scoring.BaselineKernel;
import io.multifactor.kernel.scoring.PeerSignals;
import io.multifactor.kernel.scoring.ScoringKernel;
import io.multifactor.kernel.scoring.SelectionWriter;
import io.multifactor.kernel.metrics.PerThreadCounterBlocks;
import io.multifactor.kernel.metrics.SingleWriterCounterBlock;
import io.multifactor.kernel.session.SessionRules;
import io.multifactor.kernel.session.SessionTable;
import org.agrona.concurrent.NanoClock;

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
 * Sessions: for a request with a session key on a decision with a {@code session} block, the {@link SessionRules} run
 * on the kernel's choice X with the key's live entry, before reserve on select; once the choice is final (reserved),
 * the entry is updated in the decision's {@link SessionTable} and the rule (and any eviction) counted. These are the
 * only writes to memory other threads share, confined to the key's set of the table.
 * <p>
 * This class is threadsafe: it holds no per-call state; every call writes only the caller's {@link Selection} and the
 * calling thread's counter block. It allocates nothing (once the selection is large enough and the thread has its
 * block), takes no lock, never throws for an expected outcome.
 */
final class Selector
{
    private final ReserveOnSelect reserver;
    private final PerThreadCounterBlocks counterBlocksOrNull;
    private final NanoClock clock;

    /**
     * @param reserver reserve on select.
     * @param counterBlocksOrNull the engine's per-thread counter blocks, or null when selections are not counted.
     */
    Selector(final ReserveOnSelect reserver, final PerThreadCounterBlocks counterBlocksOrNull, final NanoClock clock)
    {
        this.reserver = reserver;
        this.counterBlocksOrNull = counterBlocksOrNull;
        this.clock = clock;
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
        countRouted(decision, out);
        if (decision.sessionsOrNull != null && requestOrNull != null && requestOrNull.hasSession())
        {
            final long nowNs = clock.nanoTime();
            final long key = requestOrNull.sessionKey();
            // The key's set, hashed once for the lookup and the update.
            final int set = decision.sessionsOrNull.setOf(key);
            final int rule = SessionRules.apply(decision.sessionPolicyOrNull, out, lookup(decision, set, key, nowNs));
            remember(decision, set, key, out, rule, nowNs, counts);
        }
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
        final boolean session = decision.sessionsOrNull != null && requestOrNull != null && requestOrNull.hasSession();
        final long nowNs = session ? clock.nanoTime() : 0L;
        final long key = session ? requestOrNull.sessionKey() : 0L;
        final int set = session ? decision.sessionsOrNull.setOf(key) : 0;
        final int rule = session ? SessionRules.apply(decision.sessionPolicyOrNull, out,
            lookup(decision, set, key, nowNs)) : SessionRule.OFF;
        final long lease = out.hasSelection() ?
            reserver.reserve(s, decision, out, counts, reserver.weight(requestOrNull)) : InflightTracker.NO_LEASE;
        SelectionWriter.lease(out, lease);
        countRouted(decision, out);
        if (session)
        {
            // The session's choice is the model that got the lease: P not reserved was handed off.
            remember(decision, set, key, out, SessionRules.afterReserve(out, rule), nowNs, counts);
        }
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

    /**
     * Selects on one published state as {@link #selectOn(EngineState, int, Exclusions, Request, Selection)}, then runs
     * the session rules on a stated entry (what {@code explain} is given), counting and changing nothing.
     *
     * @param stated the entry ({@link SessionTable#lookup}'s value word, or {@link SessionTable#NO_ENTRY}).
     * @return the decision's plan, or null for an unknown decision.
     */
    static DecisionPlan selectOn(
        final EngineState s,
        final int decisionId,
        final Exclusions exclusionsOrNull,
        final Request requestOrNull,
        final Selection out,
        final long stated)
    {
        final DecisionPlan plan = selectOn(s, decisionId, exclusionsOrNull, requestOrNull, out);
        final LiveDecision decision = s.decision(decisionId);
        if (plan != null && decision.sessionsOrNull != null)
        {
            SessionRules.apply(decision.sessionPolicyOrNull, out, stated);
        }
        return plan;
    }

    /**
     * The live entry of a key in a decision's table as {@code explain} reads it (read only).
     *
     * @return its value word, or {@link SessionTable#NO_ENTRY} (also for a decision without sessions).
     */
    static long liveEntry(final EngineState s, final int decisionId, final long key, final long nowNs)
    {
        final LiveDecision decision = s.decision(decisionId);
        return decision == null || decision.sessionsOrNull == null ? SessionTable.NO_ENTRY :
            lookup(decision, decision.sessionsOrNull.setOf(key), key, nowNs);
    }

    private static long lookup(final LiveDecision decision, final int set, final long key, final long nowNs)
    {
        return decision.sessionsOrNull.lookup(set, key, nowNs, decision.sessionPolicyOrNull.idleTimeoutNs());
    }

    // Once the choice is final: the entry holds it (unless the rule was none), and the rule and any eviction count.
    private static void remember(
        final LiveDecision decision,
        final int set,
        final long key,
        final Selection out,
        final int rule,
        final long nowNs,
        final SingleWriterCounterBlock countsOrNull)
    {
        if (rule == SessionRule.NONE)
        {
            return;
        }
        final int result = decision.sessionsOrNull.update(
            set, key, out.selectedModel(), nowNs, decision.sessionPolicyOrNull.idleTimeoutNs());
        if (countsOrNull != null)
        {
            countsOrNull.increment(decision.sessionCounterIds[rule]);
            if (result == SessionTable.EVICTED)
            {
                countsOrNull.increment(decision.sessionCounterIds[SessionTables.EVICTED]);
            }
        }
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

    // prodstack_session's QPS counts each request once its choice is final (explain's selections count nothing).
    private static void countRouted(final LiveDecision decision, final Selection out)
    {
        final PeerSignals peers = decision.signals.peersOrNull();
        if (peers != null && decision.plan.algorithmType() == AlgorithmType.PRODSTACK_SESSION && out.hasSelection())
        {
            peers.countRouted(out.selectedIndex());
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
