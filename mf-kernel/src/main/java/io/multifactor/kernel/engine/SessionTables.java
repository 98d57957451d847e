package io.multifactor.kernel.engine;

import io.multifactor.api.SessionRule;
import io.multifactor.kernel.metrics.CounterLabel;
import io.multifactor.kernel.metrics.CounterTypes;
import io.multifactor.kernel.plan.AlgorithmType;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.SessionPolicy;
import io.multifactor.kernel.session.SessionTable;
import org.agrona.concurrent.AtomicBuffer;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The engine's session tables, one per decision with a {@code session} block, kept by decision name across reloads:
 * a reload that keeps the name and {@code max_sessions} keeps the table and its entries (an entry whose model left the
 * decision is handed off by the rules at its next request); another {@code max_sessions} starts an empty table. Also
 * the decisions' session counters: {@code mf.sessions} per rule (stay, switch, handoff, new) and evictions, counted by
 * id per thread, and the {@code mf.sessions.live} gauge the refresh agent sets.
 * <p>
 * This class is threadsafe under the engine's contract: {@link #prepare}, {@link #commit} and {@link #clear} run under
 * the engine's lock; {@link #publishLive} on the refresh thread reads only published states.
 */
final class SessionTables
{
    /** Counter ids of a decision whose sessions are not counted. */
    static final int[] NO_IDS = noIds();

    /** The slot of {@link LiveDecision#sessionCounterIds} that holds the evictions' id. */
    static final int EVICTED = SessionRule.NONE;

    // Guarded by the engine's lock.
    private Map<String, SessionTable> byName = new HashMap<>();

    /**
     * What a plans snapshot needs: per decision handle, its table, counter ids and live gauge offset.
     * <p>
     * Instances are built and used under the engine's lock, then only read.
     */
    static final class Prepared
    {
        final SessionTable[] tables;
        final int[][] counterIds;
        final int[] liveOffsets;
        final Map<String, SessionTable> byName = new HashMap<>();
        int idLimit;

        Prepared(final int decisionCapacity)
        {
            tables = new SessionTable[decisionCapacity];
            counterIds = new int[decisionCapacity][];
            liveOffsets = new int[decisionCapacity];
            Arrays.fill(liveOffsets, -1);
        }

        // Before the state is published: its decisions with sessions get their table and counters.
        void attachTo(final EngineState state)
        {
            for (int d = 0; d < tables.length && d < state.decisions.length; d++)
            {
                if (tables[d] != null && state.decisions[d] != null)
                {
                    state.decisions[d] = state.decisions[d].withSessions(tables[d], counterIds[d], liveOffsets[d]);
                }
            }
        }
    }

    /**
     * Under lock, inside a counters generation: the tables and counters of a plans snapshot.
     *
     * @param next the snapshot.
     * @param layout where the counters are allocated.
     * @return what to attach to its state.
     */
    Prepared prepare(final Plans next, final CounterLayout layout)
    {
        final Prepared prepared = new Prepared(next.decisionCapacity());
        for (int d = 0; d < next.decisionCapacity(); d++)
        {
            final DecisionPlan plan = next.decision(d);
            if (plan == null || plan.sessionOrNull() == null || plan.algorithmType() != AlgorithmType.MULTI_FACTOR)
            {
                continue;
            }
            final SessionPolicy policy = plan.sessionOrNull();
            SessionTable table = byName.get(plan.name());
            if (table == null || table.capacity() != policy.maxSessions())
            {
                table = new SessionTable(policy.maxSessions());
            }
            prepared.tables[d] = table;
            prepared.byName.put(plan.name(), table);
            final int[] ids = noIds();
            ids[SessionRule.NEW] = layout.counterId(label(plan.name(), "new"), CounterTypes.SESSIONS);
            ids[SessionRule.STAY] = layout.counterId(label(plan.name(), "stay"), CounterTypes.SESSIONS);
            // min_turns keeps the previous model: counted as a stay (the metric's rules are stay, switch, handoff, new).
            ids[SessionRule.MIN_TURNS] = ids[SessionRule.STAY];
            ids[SessionRule.SWITCH] = layout.counterId(label(plan.name(), "switch"), CounterTypes.SESSIONS);
            ids[SessionRule.HANDOFF] = layout.counterId(label(plan.name(), "handoff"), CounterTypes.SESSIONS);
            ids[EVICTED] = layout.counterId(label(plan.name(), "evicted"), CounterTypes.SESSIONS);
            for (final int id : ids)
            {
                prepared.idLimit = Math.max(prepared.idLimit, id + 1);
            }
            prepared.counterIds[d] = ids;
            prepared.liveOffsets[d] = layout.offsetOf(
                CounterLabel.format("mf.sessions.live", "decision", plan.name()), CounterTypes.SESSIONS_LIVE);
        }
        return prepared;
    }

    /**
     * Under lock, once the state of {@code prepared} is published: its tables are the ones kept from now on.
     *
     * @param prepared what was attached.
     */
    void commit(final Prepared prepared)
    {
        byName = prepared.byName;
    }

    /** Under lock, when the engine closes: forgets every table. */
    void clear()
    {
        byName = new HashMap<>();
    }

    /**
     * On the refresh thread: sets each decision's {@code mf.sessions.live} to its live entries now.
     *
     * @param s the published state.
     * @param nowNs the engine clock's time.
     * @param values the counters' values buffer.
     */
    static void publishLive(final EngineState s, final long nowNs, final AtomicBuffer values)
    {
        for (final LiveDecision decision : s.decisions)
        {
            if (decision != null && decision.sessionsOrNull != null && decision.sessionsLiveOffset >= 0)
            {
                values.putLongRelease(decision.sessionsLiveOffset,
                    decision.sessionsOrNull.liveCount(nowNs, decision.sessionPolicyOrNull.idleTimeoutNs()));
            }
        }
    }

    private static String label(final String decision, final String rule)
    {
        return CounterLabel.format("mf.sessions", "decision", decision, "rule", rule);
    }

    private static int[] noIds()
    {
        final int[] ids = new int[SessionRule.COUNT];
        Arrays.fill(ids, -1);
        return ids;
    }
}
