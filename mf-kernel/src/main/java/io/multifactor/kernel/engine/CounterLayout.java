package io.multifactor.kernel.engine;

import io.multifactor.api.DropReason;
import io.multifactor.api.Outcome;
import io.multifactor.kernel.metrics.CounterBuffers;
import io.multifactor.kernel.metrics.CounterLabel;
import io.multifactor.kernel.metrics.CounterTypes;
import io.multifactor.kernel.metrics.EngineCounters;
import io.multifactor.kernel.metrics.FleetCounters;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.NoCandidatesPolicy;
import io.multifactor.kernel.plan.Plans;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.status.CountersReader;

import java.util.Arrays;

/**
 * The layout of the engine's counters in its {@link CounterBuffers}: which counters exist, their labels (grammar of
 * {@link CounterLabel}) and type ids ({@link CounterTypes}), and the value offsets the hot paths count into.
 * <p>
 * Engine-wide counters are allocated once, at construction: refused and clamped samples, a full lease table, reclaimed
 * leases, reloads applied and refused, fleet exchanges done and failed, live fleet replicas. Per model, a plans
 * snapshot allocates (or finds, by label) its in-flight counter, healed leases, drops per reason, refused and clamped
 * samples per metric and the published percentiles per metric and slot; per decision, its selections by candidate and
 * outcome. Selections and drops are counted per thread ({@code PerThreadCounterBlocks}), so those counters are handed
 * out by id; the others by value offset. Counters of a retired model or decision are marked retired in their key, come
 * back with their values if the name returns soon, and are freed once the grace period has passed and, for an
 * in-flight counter, its leases have ended ({@link EngineCounters}).
 * <p>
 * This class is threadsafe under the engine's contract: allocation ({@code beginGeneration} to {@code commitGeneration},
 * {@link #reclaim}, the per-model and per-decision methods) and {@link #countHealedLease} run under the engine's lock;
 * the offsets of the engine-wide counters are final and counted into atomically from any thread.
 */
final class CounterLayout
{
    /** Counters of a model with {@code reliability}, beyond {@link #countersNeeded}'s: 2 ejection causes, ejected. */
    static final int EJECTION_COUNTERS = 3;

    /** Engine-wide counters: refused, clamped, table full, reclaimed, 2 reloads, 2 fleet exchanges, fleet replicas. */
    static final int ENGINE_WIDE_COUNTERS = 9;

    final AtomicBuffer values;
    final int refusedOffset;
    final int clampedOffset;
    final int leaseTableFullOffset;
    final int leasesReclaimedOffset;
    final int reloadsAppliedOffset;
    final int reloadsRefusedOffset;
    final FleetCounters fleetCounters;

    private final EngineCounters registry;
    private final long retiredGraceNs;
    // Guarded by the engine's lock: the healed-leases offset of each in-flight counter id (-1 = none).
    private int[] healedOffsetByCounterId;

    CounterLayout(final CounterBuffers counters, final long retiredGraceNs)
    {
        this.values = counters.values();
        this.registry = new EngineCounters(counters);
        this.retiredGraceNs = retiredGraceNs;
        healedOffsetByCounterId = new int[counters.capacity()];
        Arrays.fill(healedOffsetByCounterId, -1);
        refusedOffset = permanent("mf.engine.samples_refused", CounterTypes.EVENT);
        clampedOffset = permanent("mf.engine.samples_clamped", CounterTypes.EVENT);
        leaseTableFullOffset = permanent("mf.engine.lease_table_full", CounterTypes.EVENT);
        leasesReclaimedOffset = permanent("mf.engine.leases_reclaimed", CounterTypes.EVENT);
        reloadsAppliedOffset = permanent(CounterLabel.format("mf.reloads", "result", "applied"), CounterTypes.RELOADS);
        reloadsRefusedOffset = permanent(CounterLabel.format("mf.reloads", "result", "refused"), CounterTypes.RELOADS);
        fleetCounters = new FleetCounters(
            values,
            permanent(CounterLabel.format("mf.fleet.exchanges", "result", "done"), CounterTypes.FLEET_EXCHANGES),
            permanent(CounterLabel.format("mf.fleet.exchanges", "result", "failed"), CounterTypes.FLEET_EXCHANGES),
            permanent("mf.fleet.replicas", CounterTypes.FLEET_REPLICAS));
    }

    /**
     * @param models models of the plans.
     * @param decisions decisions of the plans.
     * @param candidates candidates of every decision, added up.
     * @param percentiles distinct latency percentiles the decisions read.
     * @return counters needed by a new engine on those plans (an upper bound).
     */
    static int countersNeeded(final int models, final int decisions, final int candidates, final int percentiles)
    {
        final long needed = ENGINE_WIDE_COUNTERS + (long)models * (6 + DropReason.COUNT + 2L * percentiles) +
            3L * decisions + 2L * candidates;
        return (int)Math.min(Integer.MAX_VALUE, needed);
    }

    // Under lock: a plans snapshot is one generation of the registry.
    void beginGeneration()
    {
        registry.beginGeneration();
    }

    void abortGeneration()
    {
        registry.abortGeneration();
    }

    void commitGeneration(final long nowNs, final int[] nextHealedOffsetByCounterId)
    {
        registry.commitGeneration(nowNs);
        healedOffsetByCounterId = nextHealedOffsetByCounterId;
    }

    /** @return a new healed-leases map for the next generation, every entry -1. */
    int[] newHealedOffsetByCounterId()
    {
        final int[] next = new int[healedOffsetByCounterId.length];
        Arrays.fill(next, -1);
        return next;
    }

    // Under lock: frees the counters retired longer than the grace period ago (in-flight ones once they read 0).
    void reclaim(final long nowNs)
    {
        registry.reclaim(nowNs, retiredGraceNs);
    }

    /**
     * Under lock, inside a generation: the in-flight counter of a model name.
     *
     * @param name model name.
     * @return its counter id.
     */
    int inflightCounterId(final String name)
    {
        return registry.use(inflightLabel(name), CounterTypes.INFLIGHT);
    }

    /**
     * Under lock, inside a generation: the in-flight tokens counter of a model name.
     *
     * @param name model name.
     * @return its counter id.
     */
    int inflightTokensCounterId(final String name)
    {
        return registry.use(inflightTokensLabel(name), CounterTypes.INFLIGHT_TOKENS);
    }

    /**
     * Under lock, inside a generation: allocates (or finds) every other counter of one model and writes their value
     * offsets (their ids, for the drop counters, which threads count into by id) into the next state's arrays.
     */
    void modelCounters(
        final int modelId,
        final String name,
        final int inflightId,
        final Plans next,
        final int[] nextHealed,
        final int[] dropCounterIds,
        final int[] sampleOffsets,
        final int[] latencyCounterOffsets)
    {
        final int slotCount = next.percentileSlotCount();
        nextHealed[inflightId] = use(CounterLabel.format("mf.leases.healed", "model", name), CounterTypes.LEASES_HEALED);
        for (int reason = DropReason.NONE + 1; reason < DropReason.COUNT; reason++)
        {
            dropCounterIds[modelId * DropReason.COUNT + reason] = registry.use(
                CounterLabel.format("mf.drops", "model", name, "reason", DropReason.label(reason)), CounterTypes.DROPS);
        }
        for (int metric = EngineState.TPOT; metric <= EngineState.TTFT; metric++)
        {
            final String metricName = metricName(metric);
            sampleOffsets[EngineState.sampleIndex(modelId, metric, EngineState.REFUSED)] = use(
                CounterLabel.format("mf.samples.refused", "model", name, "metric", metricName),
                CounterTypes.SAMPLES_REFUSED);
            sampleOffsets[EngineState.sampleIndex(modelId, metric, EngineState.CLAMPED)] = use(
                CounterLabel.format("mf.samples.clamped", "model", name, "metric", metricName),
                CounterTypes.SAMPLES_CLAMPED);
            for (int slot = 0; slot < slotCount; slot++)
            {
                latencyCounterOffsets[EngineState.index(modelId, slotCount, slot, metric)] = use(
                    latencyLabel(name, metricName, next.percentile(slot)), CounterTypes.LATENCY);
            }
        }
    }

    /**
     * Under lock, inside a generation: a decision's selection counters, by id (threads count into them by id).
     *
     * @return n "scored" ids, n fallback ids (the failed one with the fail and shed policies), the "failed",
     *     "ineligible" and "shed" ids.
     */
    int[] selectionCounterIds(final Plans plans, final DecisionPlan plan)
    {
        final int n = plan.candidateCount();
        final String decision = plan.name();
        final int[] ids = new int[2 * n + 3];
        final int failed = registry.use(
            CounterLabel.format("mf.selections", "decision", decision, "outcome", Outcome.label(Outcome.FAILED)),
            CounterTypes.SELECTIONS);
        ids[2 * n] = failed;
        ids[2 * n + 1] = registry.use(
            CounterLabel.format("mf.selections", "decision", decision, "outcome", Outcome.label(Outcome.INELIGIBLE)),
            CounterTypes.SELECTIONS);
        ids[2 * n + 2] = registry.use(
            CounterLabel.format("mf.selections", "decision", decision, "outcome", Outcome.label(Outcome.SHED)),
            CounterTypes.SELECTIONS);
        final int fallback = plan.policy() == NoCandidatesPolicy.FIRST ? Outcome.FALLBACK_FIRST :
            plan.policy() == NoCandidatesPolicy.FAIL ? Outcome.FAILED : Outcome.FALLBACK_CHEAPEST;
        for (int i = 0; i < n; i++)
        {
            final String model = plans.modelName(plan.candidateModelId(i));
            ids[i] = registry.use(selectedLabel(decision, model, Outcome.SCORED), CounterTypes.SELECTED);
            ids[n + i] = fallback == Outcome.FAILED ? failed :
                registry.use(selectedLabel(decision, model, fallback), CounterTypes.SELECTED);
        }
        return ids;
    }

    /**
     * Under lock, inside a generation: a counter that threads store into by value offset (the server signals').
     *
     * @param label its label.
     * @param typeId one of {@link CounterTypes}.
     * @return its value offset.
     */
    int offsetOf(final String label, final int typeId)
    {
        return use(label, typeId);
    }

    /**
     * Under lock, inside a generation: a counter that threads count into by id (per-thread blocks).
     *
     * @param label its label.
     * @param typeId one of {@link CounterTypes}.
     * @return its id.
     */
    int counterId(final String label, final int typeId)
    {
        return registry.use(label, typeId);
    }

    /**
     * Under lock: a counter that a part of the process outside the kernel counts into, kept as long as the engine
     * ({@link EngineCounters#external}).
     *
     * @param label its label.
     * @param typeId one of {@link CounterTypes}.
     * @return its id.
     */
    int externalCounterId(final String label, final int typeId)
    {
        return registry.external(label, typeId);
    }

    /**
     * Under lock: whether {@link #externalCounterId} would find this counter rather than allocate one.
     *
     * @param label its label.
     * @param typeId one of {@link CounterTypes}.
     * @return whether it exists.
     * @throws IllegalArgumentException when {@link #externalCounterId} would refuse it.
     */
    boolean hasExternalCounter(final String label, final int typeId)
    {
        return registry.hasExternal(label, typeId);
    }

    /**
     * Under lock, inside a generation: a model's ejection counters.
     *
     * @param name model name.
     * @return value offsets of {@code mf.ejections} with cause {@code 5xx}, with cause {@code retry_after}, and of
     *     {@code mf.ejected} (milliseconds of ejection left, -1 while its probe is out, 0 when not ejected).
     */
    int[] ejectionCounterOffsets(final String name)
    {
        return new int[] {
            use(CounterLabel.format("mf.ejections", "model", name, "cause", "5xx"), CounterTypes.EJECTIONS),
            use(CounterLabel.format("mf.ejections", "model", name, "cause", "retry_after"), CounterTypes.EJECTIONS),
            use(CounterLabel.format("mf.ejected", "model", name), CounterTypes.EJECTED) };
    }

    // Under lock, from the sweep: one lease of the model counting into counterOffset was reclaimed.
    void countHealedLease(final int counterOffset)
    {
        final int healedOffset = healedOffsetByCounterId[counterOffset / CountersReader.COUNTER_LENGTH];
        if (healedOffset >= 0)
        {
            values.getAndAddLong(healedOffset, 1);
        }
    }

    private int permanent(final String label, final int typeId)
    {
        return CounterBuffers.valueOffset(registry.permanent(label, typeId));
    }

    private int use(final String label, final int typeId)
    {
        return CounterBuffers.valueOffset(registry.use(label, typeId));
    }

    static String metricName(final int metric)
    {
        return metric == EngineState.TPOT ? "tpot" : "ttft";
    }

    static String inflightLabel(final String modelName)
    {
        return CounterLabel.format("mf.inflight", "model", modelName);
    }

    static String inflightTokensLabel(final String modelName)
    {
        return CounterLabel.format("mf.inflight.tokens", "model", modelName);
    }

    static String selectedLabel(final String decision, final String model, final int outcome)
    {
        return CounterLabel.format("mf.selected", "decision", decision, "model", model, "outcome", Outcome.label(outcome));
    }

    static String latencyLabel(final String model, final String metric, final int percentile)
    {
        return CounterLabel.format("mf.latency", "model", model, "metric", metric, "percentile", Integer.toString(percentile));
    }
}
