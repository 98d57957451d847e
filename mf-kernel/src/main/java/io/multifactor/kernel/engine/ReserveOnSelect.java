package io.multifactor.kernel.engine;

import io.multifactor.api.DropReason;
import io.multifactor.api.InflightTracker;
import io.multifactor.api.Outcome;
import io.multifactor.api.Selection;
import io.multifactor.kernel.inflight.LeaseTable;
import io.multifactor.kernel.metrics.SingleWriterCounterBlock;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.reliability.ModelEjection;
import io.multifactor.kernel.scoring.ReserveOrder;

/**
 * Reserve on select: takes the lease on a selection's choice. Within {@code max_inflight} when the choice was scored
 * (an atomic check-and-increment on the model's counter), trying the next survivor in ranking order
 * ({@link ReserveOrder}) when the chosen one is full, and falling back as {@code on_no_candidates} says when none can
 * be reserved (a fallback pick is leased without the check); otherwise without a check.
 * <p>
 * This class is threadsafe: lock-free, it allocates nothing; each call writes only the caller's {@link Selection}.
 */
final class ReserveOnSelect
{
    private final LeaseTable leases;
    private final LeaseEpochs leaseEpochs;

    ReserveOnSelect(final LeaseTable leases, final LeaseEpochs leaseEpochs)
    {
        this.leases = leases;
        this.leaseEpochs = leaseEpochs;
    }

    /**
     * @param s the state the selection ran on.
     * @param decision the decision of that state it ran on.
     * @param out a selection with a choice; reserve may drop full candidates and choose again.
     * @param countsOrNull the calling thread's counter block, where a candidate dropped as full is counted, or null.
     * @return the lease, or {@link InflightTracker#NO_LEASE}.
     */
    long reserve(
        final EngineState s, final LiveDecision decision, final Selection out, final SingleWriterCounterBlock countsOrNull)
    {
        final long epoch = leaseEpochs.currentEpoch();
        if (out.outcome() != Outcome.SCORED)
        {
            return leaseUnchecked(s, out.selectedModel(), epoch);
        }
        return reserveScored(s, decision, out, decision.plan.maxInflight(), epoch, countsOrNull);
    }

    /**
     * A lease without a limit; the first lease begun on a half-open model is its probe (one CAS).
     *
     * @param s the current state.
     * @param modelId a model handle within range.
     * @return a lease on it without a limit, or {@link InflightTracker#NO_LEASE}.
     */
    long begin(final EngineState s, final int modelId)
    {
        final int counterOffset = s.counterOffsets[modelId];
        if (counterOffset < 0)
        {
            return InflightTracker.NO_LEASE;
        }
        final long lease = leases.acquire(counterOffset, leaseEpochs.currentEpoch());
        final ModelSignals signals = s.byModel[modelId];
        if (lease != InflightTracker.NO_LEASE && signals.ejection.admit() == ModelEjection.PROBE_CLAIMED)
        {
            signals.ejection.probe(lease);
        }
        return lease;
    }

    // In ranking order: a model at its max_inflight (when the decision has one) is dropped as full, a half-open model
    // whose probe another request claimed first as ejected; then the next survivor is tried. The first lease on a
    // half-open model claims its probe (one CAS); a model the decision kept though ejected takes an ordinary lease.
    private long reserveScored(
        final EngineState s,
        final LiveDecision decision,
        final Selection out,
        final long maxInflight,
        final long epoch,
        final SingleWriterCounterBlock countsOrNull)
    {
        final DecisionPlan plan = decision.plan;
        int index = out.selectedIndex();
        while (index >= 0)
        {
            final int modelId = out.modelId(index);
            final int counterOffset = s.counterOffsets[modelId];
            final ModelSignals signals = s.signals(modelId);
            final double keptMillisLeft = out.ejectedMillisLeft(index);
            // NaN != NaN: a candidate that was not ejected when selected asks its word; one kept by the cap does not.
            final int admitted = signals == null || keptMillisLeft == keptMillisLeft ? ModelEjection.ADMITTED :
                signals.ejection.admit();
            final int reason;
            if (admitted == ModelEjection.PROBE_TAKEN)
            {
                reason = DropReason.EJECTED;
            }
            else
            {
                // A model retired by a concurrent reload has no counter (-1): it cannot be reserved.
                final long lease = counterOffset < 0 ? LeaseTable.AT_LIMIT : maxInflight > 0 ?
                    leases.acquireWithin(counterOffset, maxInflight, epoch) : leases.acquire(counterOffset, epoch);
                if (admitted == ModelEjection.PROBE_CLAIMED)
                {
                    settleProbe(signals.ejection, lease);
                }
                if (lease != LeaseTable.AT_LIMIT)
                {
                    return lease;
                }
                reason = DropReason.INFLIGHT;
            }
            if (countsOrNull != null)
            {
                // The candidate is dropped here, after scoring: counted here, as the kernel counts its own drops.
                countsOrNull.increment(decision.signals.dropCounterId(index, reason));
            }
            index = ReserveOrder.dropAndChooseNext(plan, out, index, reason);
        }
        return ReserveOrder.fallback(plan, out) < 0 ? InflightTracker.NO_LEASE :
            leaseUnchecked(s, out.selectedModel(), epoch);
    }

    // A fallback pick is leased without any check; if it is half-open and its probe is free, this lease is the probe.
    private long leaseUnchecked(final EngineState s, final int modelId, final long epoch)
    {
        final int counterOffset = s.counterOffsets[modelId];
        if (counterOffset < 0)
        {
            return InflightTracker.NO_LEASE;
        }
        final ModelSignals signals = s.signals(modelId);
        final int admitted = signals == null ? ModelEjection.ADMITTED : signals.ejection.admit();
        final long lease = leases.acquire(counterOffset, epoch);
        if (admitted == ModelEjection.PROBE_CLAIMED)
        {
            settleProbe(signals.ejection, lease);
        }
        return lease;
    }

    private static void settleProbe(final ModelEjection ejection, final long lease)
    {
        if (lease == InflightTracker.NO_LEASE || lease == LeaseTable.AT_LIMIT)
        {
            ejection.unclaim();
        }
        else
        {
            ejection.probe(lease);
        }
    }
}
