package io.multifactor.kernel.engine;

import io.multifactor.api.DropReason;
import io.multifactor.kernel.latency.RecentLatencies;
import io.multifactor.kernel.plan.AlgorithmType;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.reliability.EjectionPolicy;
import io.multifactor.kernel.reliability.EjectionTable;
import io.multifactor.kernel.scoring.CandidateSignals;
import io.multifactor.kernel.scoring.PeerSignals;
import io.multifactor.kernel.scoring.ProdstackSession;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.NanoClock;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * One published state of the engine: a plans snapshot and everything the hot paths read that depends on its handles
 * and percentile slots, all sized for it. The engine publishes a new state with one volatile write, so a reader that
 * loaded a state sees handles, slots and signal arrays that agree.
 * <p>
 * Published percentiles, by model handle and slot, in milliseconds (NaN = no observation):
 * <pre>
 *   latencyMs[(modelId * slotCount + slot) * 2 + TPOT]   latencyMs[(modelId * slotCount + slot) * 2 + TTFT]
 * </pre>
 * and the same values again per decision, in candidate order ({@link CandidateSignals}, what {@code select} reads in
 * the kernel's first loop over the candidates), with each candidate's in-flight counter offset.
 * <p>
 * The references are final and immutable; the refresh thread alone writes the elements of {@code latencyMs} and of the
 * decisions' signals (release stores); readers load the model-major array with opaque loads and the decisions'
 * signals with plain loads after their volatile load of the state ({@link CandidateSignals} says why that is safe).
 * Values from two consecutive refreshes may mix, which is harmless because each is a valid recent percentile. This
 * class is threadsafe under that contract.
 */
final class EngineState
{
    static final int TPOT = 0;
    static final int TTFT = 1;

    private static final VarHandle DOUBLES = MethodHandles.arrayElementVarHandle(double[].class);

    static final int REFUSED = 0;
    static final int CLAMPED = 1;

    final Plans plans;
    final int slotCount;
    final double[] latencyMs;
    final int[] counterOffsets;
    /** In-flight tokens counter offset per model handle (-1 = none). */
    final int[] tokenCounterOffsets;
    final ModelSignals[] byModel;
    final LiveDecision[] decisions;
    /** Whether a decision is {@code litellm_latency}: then samples also go into the models' rings of recent ones. */
    final boolean keepsRecentLatencies;

    // Metric counter value offsets, all sized for this state's handles and slots (-1 = none): latencyCounterOffsets
    // parallels latencyMs; sampleOffsets[sampleIndex(modelId, metric, REFUSED or CLAMPED)]. Selection and drop
    // counters are counted per thread, by counter id: each decision's ids are in its LiveDecision and signals.
    final int[] latencyCounterOffsets;
    final int[] sampleOffsets;

    EngineState(final Plans plans, final ModelSignals[] byModel, final AtomicBuffer counterValues)
    {
        this(plans, byModel, counterValues, null, new int[0], new int[0], new int[0][], null, null);
    }

    /**
     * @param plans the plans snapshot.
     * @param byModel the signals of each model handle (null where none).
     * @param counterValues the counters' values buffer.
     * @param latencyCounterOffsetsOrNull the published percentiles' counter offsets, parallel to the latencies.
     * @param dropCounterIds {@code dropCounterIds[modelId * DropReason.COUNT + reason]}, -1 where none (or empty).
     * @param sampleOffsets the refused and clamped samples' counter offsets.
     * @param selectionCounterIds per decision handle, the ids in {@link LiveDecision}'s layout (or none).
     * @param ejectionsOrNull the engine's ejection words, where each candidate's model is found by its counter id;
     *     null for signals that own theirs (tests).
     * @param clockOrNull the engine's clock, which times the peers' signals; null: no decision gets them.
     */
    EngineState(
        final Plans plans,
        final ModelSignals[] byModel,
        final AtomicBuffer counterValues,
        final int[] latencyCounterOffsetsOrNull,
        final int[] dropCounterIds,
        final int[] sampleOffsets,
        final int[][] selectionCounterIds,
        final EjectionTable ejectionsOrNull,
        final NanoClock clockOrNull)
    {
        this.plans = plans;
        this.slotCount = plans.percentileSlotCount();
        this.byModel = byModel;
        this.latencyMs = new double[latencyLength(byModel.length, slotCount)];
        Arrays.fill(latencyMs, Double.NaN);
        this.counterOffsets = new int[byModel.length];
        this.tokenCounterOffsets = new int[byModel.length];
        Arrays.fill(counterOffsets, -1);
        Arrays.fill(tokenCounterOffsets, -1);
        for (int i = 0; i < byModel.length; i++)
        {
            if (byModel[i] != null)
            {
                counterOffsets[i] = byModel[i].counterOffset;
                tokenCounterOffsets[i] = byModel[i].tokenCounterOffset;
            }
        }
        this.decisions = new LiveDecision[plans.decisionCapacity()];
        boolean recentLatencies = false;
        for (int d = 0; d < decisions.length; d++)
        {
            final DecisionPlan plan = plans.decision(d);
            if (plan != null)
            {
                final int n = plan.candidateCount();
                final int[] offsets = new int[n];
                final int[] tokenOffsets = new int[n];
                final int[] dropIds = new int[n * DropReason.COUNT];
                Arrays.fill(dropIds, -1);
                for (int i = 0; i < n; i++)
                {
                    final int modelId = plan.candidateModelId(i);
                    offsets[i] = counterOffsets[modelId];
                    tokenOffsets[i] = tokenCounterOffsets[modelId];
                    if (dropCounterIds.length > 0)
                    {
                        System.arraycopy(dropCounterIds, modelId * DropReason.COUNT, dropIds, i * DropReason.COUNT,
                            DropReason.COUNT);
                    }
                }
                final int[] selectionIds = d < selectionCounterIds.length && selectionCounterIds[d] != null ?
                    selectionCounterIds[d] : noSelectionCounters(n);
                final CandidateSignals signals =
                    candidateSignals(plans, plan, counterValues, offsets, dropIds, tokenOffsets, ejectionsOrNull);
                final int type = plan.algorithmType();
                if (clockOrNull != null && (type == AlgorithmType.LITELLM_LATENCY || type == AlgorithmType.PRODSTACK_SESSION))
                {
                    signals.peers(peerSignals(plans, plan, clockOrNull));
                    recentLatencies |= type == AlgorithmType.LITELLM_LATENCY;
                }
                decisions[d] = new LiveDecision(plan, signals, selectionIds);
            }
        }
        if (latencyCounterOffsetsOrNull == null)
        {
            latencyCounterOffsets = new int[latencyMs.length];
            Arrays.fill(latencyCounterOffsets, -1);
        }
        else
        {
            latencyCounterOffsets = latencyCounterOffsetsOrNull;
        }
        this.sampleOffsets = sampleOffsets;
        this.keepsRecentLatencies = recentLatencies;
    }

    // A peer policy's signals: each candidate's model's rings (shared by every decision naming the model), the hash of
    // its name, and this decision's own QPS counts (they start at 0 with each new state, as round_robin's turns do).
    private PeerSignals peerSignals(final Plans plans, final DecisionPlan plan, final NanoClock clock)
    {
        final int n = plan.candidateCount();
        final RecentLatencies[] ttft = new RecentLatencies[n];
        final RecentLatencies[] tpot = new RecentLatencies[n];
        final long[] hashes = new long[n];
        for (int i = 0; i < n; i++)
        {
            final int modelId = plan.candidateModelId(i);
            final ModelSignals model = signals(modelId);
            ttft[i] = model == null ? new RecentLatencies() : model.ttftRecent;
            tpot[i] = model == null ? new RecentLatencies() : model.tpotRecent;
            hashes[i] = ProdstackSession.nodeHash(plans.modelName(modelId));
        }
        return new PeerSignals(clock, ttft, tpot, hashes, plan.peerParameters().requestStatsWindowNs());
    }

    // A decision's signals: each candidate's ejection word is its model's (slot = its in-flight counter id), and its
    // max_ejection_percent (the cap's p is the smallest among the candidates a request leaves eligible).
    private CandidateSignals candidateSignals(
        final Plans plans,
        final DecisionPlan plan,
        final AtomicBuffer counterValues,
        final int[] offsets,
        final int[] dropIds,
        final int[] tokenOffsets,
        final EjectionTable ejectionsOrNull)
    {
        final int n = plan.candidateCount();
        final int[] slots = new int[n];
        final int[] percents = new int[n];
        for (int i = 0; i < n; i++)
        {
            final int modelId = plan.candidateModelId(i);
            final ModelSignals signals = signals(modelId);
            if (ejectionsOrNull == null || signals == null)
            {
                return new CandidateSignals(counterValues, offsets, dropIds, tokenOffsets);
            }
            slots[i] = signals.counterId;
            final EjectionPolicy policy = plans.ejectionPolicy(modelId);
            percents[i] = policy == null ? CandidateSignals.NO_RELIABILITY : policy.maxEjectionPercent();
        }
        return new CandidateSignals(counterValues, offsets, dropIds, tokenOffsets, ejectionsOrNull, slots, percents);
    }

    /**
     * @param decisionId a decision handle, possibly out of range.
     * @return that decision of this state, or null.
     */
    LiveDecision decision(final int decisionId)
    {
        return decisionId >= 0 && decisionId < decisions.length ? decisions[decisionId] : null;
    }

    private static int[] noSelectionCounters(final int candidateCount)
    {
        final int[] ids = new int[2 * candidateCount + 1];
        Arrays.fill(ids, -1);
        return ids;
    }

    /**
     * @param modelCapacity model handles of the plans.
     * @param slotCount percentile slots of the plans.
     * @return the length of {@link #latencyMs} for them.
     */
    static int latencyLength(final int modelCapacity, final int slotCount)
    {
        return Math.max(1, modelCapacity * slotCount * 2);
    }

    static int sampleIndex(final int modelId, final int metric, final int kind)
    {
        return (((modelId << 1) + metric) << 1) + kind;
    }

    /**
     * @param modelId a model handle, possibly out of range.
     * @return the signals of that model in this state, or null.
     */
    ModelSignals signals(final int modelId)
    {
        return modelId >= 0 && modelId < byModel.length ? byModel[modelId] : null;
    }

    static int index(final int modelId, final int slotCount, final int slot, final int metric)
    {
        return ((modelId * slotCount + slot) << 1) + metric;
    }

    double latencyMs(final int index)
    {
        return (double)DOUBLES.getOpaque(latencyMs, index);
    }

    void publishLatencyMs(final int index, final double valueMs)
    {
        DOUBLES.setRelease(latencyMs, index, valueMs);
    }
}
