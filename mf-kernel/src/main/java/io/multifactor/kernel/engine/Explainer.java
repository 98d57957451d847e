package io.multifactor.kernel.engine;

import io.multifactor.api.Exclusions;
import io.multifactor.api.Handles;
import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.kernel.explain.Explanation;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.session.SessionTable;
import org.agrona.concurrent.NanoClock;

/**
 * Builds an {@link Explanation}: selects into a fresh {@link Selection} on one published state, as {@code select}
 * would, without counting or leasing, and turns it into a readable record against that same plans snapshot. With a
 * session, the session rules run on the entry the caller states, or else on the key's live entry in the decision's
 * table (read, never changed).
 * <p>
 * This class is threadsafe: each call allocates its own selection and record; off the hot path.
 */
final class Explainer
{
    /** A stated entry meaning "read the key's entry from the table". */
    private static final long FROM_TABLE = Long.MIN_VALUE;

    private final StateInstaller installer;
    private final boolean peakEwma;
    private final NanoClock clock;

    Explainer(final StateInstaller installer, final boolean peakEwma, final NanoClock clock)
    {
        this.installer = installer;
        this.peakEwma = peakEwma;
        this.clock = clock;
    }

    Explanation explain(final int decisionId, final Exclusions exclusionsOrNull, final Request requestOrNull)
    {
        final boolean session = requestOrNull != null && requestOrNull.hasSession();
        return explain(decisionId, exclusionsOrNull, requestOrNull, session, session ? FROM_TABLE : SessionTable.NO_ENTRY);
    }

    /**
     * @param previousModelId the entry's model P, or {@link Handles#NONE} for a key without an entry.
     * @param turns the turns P has served, >= 1.
     * @param idleNs how long ago the entry was last seen, >= 0.
     */
    Explanation explainStated(
        final int decisionId,
        final Exclusions exclusionsOrNull,
        final Request requestOrNull,
        final int previousModelId,
        final int turns,
        final long idleNs)
    {
        final DecisionPlan plan = installer.state.plans.decision(decisionId);
        final boolean live = previousModelId >= 0 && turns >= 1 && plan != null && plan.sessionOrNull() != null &&
            idleNs < plan.sessionOrNull().idleTimeoutNs();
        return explain(decisionId, exclusionsOrNull, requestOrNull, true,
            live ? SessionTable.value(previousModelId, turns) : SessionTable.NO_ENTRY);
    }

    private Explanation explain(
        final int decisionId,
        final Exclusions exclusionsOrNull,
        final Request requestOrNull,
        final boolean session,
        final long statedOrFromTable)
    {
        while (true)
        {
            // select reads the state once; selecting between two reads of the same snapshot guarantees that the names,
            // ceilings and percentile of the record are those the selection ran on, even across a concurrent reload.
            final EngineState before = installer.state;
            final DecisionPlan plan = before.plans.decision(decisionId);
            if (plan == null)
            {
                throw new IllegalArgumentException("no decision with handle " + decisionId + " in the current plans");
            }
            final Selection selection = new Selection(plan.candidateCount());
            if (session)
            {
                final long entry = statedOrFromTable != FROM_TABLE ? statedOrFromTable :
                    Selector.liveEntry(before, decisionId, requestOrNull.sessionKey(), clock.nanoTime());
                Selector.selectOn(before, decisionId, exclusionsOrNull, requestOrNull, selection, entry);
            }
            else
            {
                Selector.selectOn(before, decisionId, exclusionsOrNull, requestOrNull, selection);
            }
            if (installer.state == before)
            {
                return Explanation.of(before.plans, plan, selection, peakEwma, session, requestOrNull);
            }
        }
    }
}
