package io.multifactor.kernel.engine;

import io.multifactor.api.DropReason;
import io.multifactor.api.InflightTracker;
import io.multifactor.api.Outcome;
import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.kernel.inflight.LeaseTable;
import io.multifactor.kernel.metrics.SingleWriterCounterBlock;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.reliability.ModelEjection;
import io.multifactor.kernel.scoring.ReserveOrder;

/**
 * Reserve on select: takes the lease on a selection's choice. Within {@code max_inflight} and
 * {@code max_inflight_tokens} when the choice was scored (atomic check-and-adds on the model's counters, count first), trying the next survivor in ranking order
 * ({@link ReserveOrder}) when the chosen one is full, and falling back as {@code on_no_candidates} says when none can
 * be reserved (a fallback pick is leased without the check); otherwise without a check. Every lease carries its token
 * weight ({@link #weight}) on the model's in-flight tokens counter, and its end takes that weight off again.
 * <p>
 * This class is threadsafe: lock-free, it allocates nothing; each call writes only the caller's {@link Selection}.
 */
final class ReserveOnSelect
{
    private final LeaseTable leases;
    private final LeaseEpochs leaseEpochs;
    private final long defaultRequestTokens;

    ReserveOnSelect(final LeaseTable leases, final LeaseEpochs leaseEpochs, final long defaultRequestTokens)
    {
        this.leases = leases;
        this.leaseEpochs = leaseEpochs;
        this.defaultRequestTokens = defaultRequestTokens;
    }

    /**
     * The token weight of a lease: the request's {@code prompt_tokens + max_output_tokens} when it carries either (a
     * count not set counting 0), else {@code default_request_tokens}.
     *
     * @param requestOrNull the request, or null.
     * @return the weight, {@code >= 0}.
     */
    long weight(final Request requestOrNull)
    {
        if (requestOrNull == null)
        {
            return defaultRequestTokens;
        }
        final long prompt = requestOrNull.promptTokens();
        final long output = requestOrNull.maxOutputTokens();
        if (prompt == Request.NO_TOKENS && output == Request.NO_TOKENS)
        {
            return defaultRequestTokens;
        }
        final long sum = Math.max(0L, prompt) + Math.max(0L, output);
        // Two counts near Long.MAX_VALUE: saturate rather than wrap into a negative weight.
        return sum < 0 ? Long.MAX_VALUE / 4 : Math.min(sum, Long.MAX_VALUE / 4);
    }

    /**
     * @param s the state the selection ran on.
     * @param decision the decision of that state it ran on.
     * @param out a selection with a choice; reserve may drop full candidates and choose again.
     * @param countsOrNull the calling thread's counter block, where a candidate dropped as full is counted, or null.
     * @param tokens the lease's token weight ({@link #weight}).
     * @return the lease, or {@link InflightTracker#NO_LEASE}.
     */
    long reserve(
        final EngineState s,
        final LiveDecision decision,
        final Selection out,
        final SingleWriterCounterBlock countsOrNull,
        final long tokens)
    {
        final long epoch = leaseEpochs.currentEpoch();
        if (out.outcome() != Outcome.SCORED)
        {
            return leaseUnchecked(s, out.selectedModel(), tokens, epoch);
        }
        final DecisionPlan plan = decision.plan;
        return reserveScored(
            s, decision, out, plan.effectiveMaxInflight(), plan.effectiveMaxInflightTokens(), tokens, epoch, countsOrNull);
    }

    /**
     * @param s the current state.
     * @param modelId a model handle, any value.
     * @param tokens the lease's token weight.
     * @return a lease on it without a limit (the first lease begun on a half-open model is its probe: one CAS), or
     *     {@link InflightTracker#NO_LEASE} (also for a handle out of the state's range).
     */
    long begin(final EngineState s, final int modelId, final long tokens)
    {
        return modelId < 0 || modelId >= s.counterOffsets.length ? InflightTracker.NO_LEASE :
            leaseUnchecked(s, modelId, tokens, leaseEpochs.currentEpoch());
    }

    // In ranking order: a model at its max_inflight or max_inflight_tokens is dropped as full, a half-open model whose
    // probe another request claimed first as ejected; then the next survivor is tried. The first lease on a half-open
    // model claims its probe (one CAS); a model the decision kept though ejected takes an ordinary lease.
    private long reserveScored(
        final EngineState s,
        final LiveDecision decision,
        final Selection out,
        final long maxInflight,
        final long maxTokens,
        final long tokens,
        final long epoch,
        final SingleWriterCounterBlock countsOrNull)
    {
        final DecisionPlan plan = decision.plan;
        final int[] counterOffsets = s.counterOffsets;
        final int[] tokenCounterOffsets = s.tokenCounterOffsets;
        final boolean unlimited = maxInflight == Long.MAX_VALUE && maxTokens == Long.MAX_VALUE;
        int index = out.selectedIndex();
        while (index >= 0)
        {
            final int modelId = out.modelId(index);
            final int counterOffset = counterOffsets[modelId];
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
                final long lease = counterOffset < 0 ? LeaseTable.AT_LIMIT : unlimited ?
                    leases.acquire(counterOffset, tokenCounterOffsets[modelId], tokens, epoch) :
                    leases.acquireWithin(counterOffset, maxInflight, tokenCounterOffsets[modelId], tokens, maxTokens, epoch);
                if (admitted == ModelEjection.PROBE_CLAIMED)
                {
                    settleProbe(signals.ejection, lease);
                }
                if (lease != LeaseTable.AT_LIMIT && lease != LeaseTable.AT_TOKEN_LIMIT)
                {
                    return lease;
                }
                reason = lease == LeaseTable.AT_LIMIT ? DropReason.INFLIGHT : DropReason.INFLIGHT_TOKENS;
            }
            if (countsOrNull != null)
            {
                // The candidate is dropped here, after scoring: counted here, as the kernel counts its own drops.
                countsOrNull.increment(decision.signals.dropCounterId(index, reason));
            }
            index = ReserveOrder.dropFullAndChooseNext(plan, out, index, reason);
        }
        return ReserveOrder.fallback(plan, out) < 0 ? InflightTracker.NO_LEASE :
            leaseUnchecked(s, out.selectedModel(), tokens, epoch);
    }

    // Leased without any check; if the model is half-open and its probe is free, this lease is the probe.
    private long leaseUnchecked(final EngineState s, final int modelId, final long tokens, final long epoch)
    {
        final int counterOffset = s.counterOffsets[modelId];
        if (counterOffset < 0)
        {
            return InflightTracker.NO_LEASE;
        }
        final ModelSignals signals = s.signals(modelId);
        final int admitted = signals == null ? ModelEjection.ADMITTED : signals.ejection.admit();
        final long lease = leases.acquire(counterOffset, s.tokenCounterOffsets[modelId], tokens, epoch);
        if (admitted == ModelEjection.PROBE_CLAIMED)
        {
            settleProbe(signals.ejection, lease);
        }
        return lease;
    }

    private static void settleProbe(final ModelEjection ejection, final long lease)
    {
        if (lease == InflightTracker.NO_LEASE || lease < 0)
        {
            ejection.unclaim();
        }
        else
        {
            ejection.probe(lease);
        }
    }
}
