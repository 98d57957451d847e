package io.multifactor.bench;

import io.multifactor.api.DropReason;
import io.multifactor.api.Factor;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.scoring.CandidateSignals;

/**
 * One pre-built selection input, flattened for the baselines: the decision's plan and, per candidate, its configured
 * quality and price and the signals observed for it (TPOT and TTFT percentiles in milliseconds, in-flight count), as
 * plain arrays for the hand loop and as standalone {@link CandidateSignals} for the kernel.
 * <p>
 * Instances are effectively immutable after construction and may be read by any thread once published.
 */
public final class SelectCase
{
    final DecisionPlan plan;
    final CandidateSignals signals;
    final int decisionId;
    final int candidateCount;
    final int[] modelIds;
    final double[] quality;
    final double[] costPer1M;
    final double[] tpotMs;
    final double[] ttftMs;
    final long[] inflight;
    final double maxTpotMs;
    final double maxTtftMs;
    final double maxCostPer1M;
    final long maxInflight;
    final double weightQuality;
    final double weightLatency;
    final double weightCost;
    final double weightLoad;
    /** Counter id of each candidate's choice, for the counting hand loop: distinct per decision and candidate. */
    final int[] selectionCounterIds;
    /** Counter id per candidate and drop reason ({@code i * DropReason.COUNT + reason}): one per model and reason. */
    final int[] dropCounterIds;

    /**
     * @param plan the decision's plan.
     * @param tpotMs observed TPOT percentile per candidate (copied).
     * @param ttftMs observed TTFT percentile per candidate (copied).
     * @param inflight in-flight count per candidate (copied).
     */
    public SelectCase(final DecisionPlan plan, final double[] tpotMs, final double[] ttftMs, final long[] inflight)
    {
        final int n = plan.candidateCount();
        if (tpotMs.length != n || ttftMs.length != n || inflight.length != n)
        {
            throw new IllegalArgumentException("observations must have one value per candidate: " + n);
        }
        this.plan = plan;
        this.decisionId = plan.id();
        this.candidateCount = n;
        this.modelIds = new int[n];
        this.quality = new double[n];
        this.costPer1M = new double[n];
        for (int i = 0; i < n; i++)
        {
            modelIds[i] = plan.candidateModelId(i);
            quality[i] = plan.quality(i);
            costPer1M[i] = plan.promptPer1M(i);
        }
        this.signals = CandidateSignals.standalone(n);
        for (int i = 0; i < n; i++)
        {
            signals.publishLatencyMs(i, tpotMs[i], ttftMs[i]);
            signals.inflight(i, inflight[i]);
        }
        // As the engine does after each publication.
        signals.seal(plan);
        this.tpotMs = tpotMs.clone();
        this.ttftMs = ttftMs.clone();
        this.inflight = inflight.clone();
        this.maxTpotMs = plan.effectiveMaxTpotMs();
        this.maxTtftMs = plan.effectiveMaxTtftMs();
        this.maxCostPer1M = plan.effectiveMaxCostPer1M();
        this.maxInflight = plan.effectiveMaxInflight();
        this.weightQuality = plan.weight(Factor.QUALITY);
        this.weightLatency = plan.weight(Factor.LATENCY);
        this.weightCost = plan.weight(Factor.COST);
        this.weightLoad = plan.weight(Factor.LOAD);
        // The engine's layout, in one dense range: a counter per (decision, chosen candidate), then one per (model,
        // drop reason).
        final int decisionSlot = plan.id();
        if (decisionSlot < 0 || decisionSlot >= SelectFixture.SETS)
        {
            throw new IllegalArgumentException("decision handle beyond the fixture's " + SelectFixture.SETS + ": " +
                decisionSlot);
        }
        this.selectionCounterIds = new int[n];
        this.dropCounterIds = new int[n * DropReason.COUNT];
        for (int i = 0; i < n; i++)
        {
            final int model = modelIds[i];
            if (model < 0 || model >= SelectFixture.POOL_SIZE)
            {
                throw new IllegalArgumentException("model handle beyond the fixture's pool of " +
                    SelectFixture.POOL_SIZE + ": " + model);
            }
            selectionCounterIds[i] = decisionSlot * n + i;
            for (int r = 0; r < DropReason.COUNT; r++)
            {
                dropCounterIds[i * DropReason.COUNT + r] = SelectFixture.SETS * n + model * DropReason.COUNT + r;
            }
        }
    }

    /**
     * @param candidates candidates per decision.
     * @return counter ids a counts array for {@link HandLoopSelector#selectStoring} of cases that size must hold.
     */
    public static int counterIdLimit(final int candidates)
    {
        return SelectFixture.SETS * candidates + SelectFixture.POOL_SIZE * DropReason.COUNT;
    }

    /** @return the decision's plan. */
    public DecisionPlan plan()
    {
        return plan;
    }

    /** @return number of candidates. */
    public int candidateCount()
    {
        return candidateCount;
    }

    /**
     * @param index candidate position.
     * @return observed TPOT percentile in milliseconds.
     */
    public double tpotMs(final int index)
    {
        return tpotMs[index];
    }

    /**
     * @param index candidate position.
     * @return observed TTFT percentile in milliseconds.
     */
    public double ttftMs(final int index)
    {
        return ttftMs[index];
    }

    /**
     * @param index candidate position.
     * @return in-flight count.
     */
    public long inflight(final int index)
    {
        return inflight[index];
    }

    /**
     * @param index candidate position.
     * @return whether the candidate breaks one of the decision's ceilings.
     */
    public boolean breaksCeiling(final int index)
    {
        return tpotMs[index] > maxTpotMs || ttftMs[index] > maxTtftMs || costPer1M[index] > maxCostPer1M ||
            inflight[index] > maxInflight;
    }
}
