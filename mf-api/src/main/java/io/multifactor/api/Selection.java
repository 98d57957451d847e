package io.multifactor.api;

import java.util.Arrays;

/**
 * The result of one selection, owned by the caller and reused across calls so that the request path allocates
 * nothing. It holds the chosen model, the outcome, the winning score and, for every candidate of the decision in
 * {@code modelRefs} order, its model handle, drop reason, raw signals, normalized factors and score.
 * <p>
 * Missing values are {@link Double#NaN}: a signal the candidate does not have, or the score of a candidate that was not
 * scored. Normalized factors are in [0, 1], higher is better (latency, cost and load already inverted), before
 * weighting. With {@code objective: lexicographic} a survivor's score is its normalized value of the first priority
 * factor, and {@link #eliminatedBy(int)} names the factor that took a survivor out of the finalists.
 * <p>
 * Storage is parallel primitive arrays sized by the largest decision seen; {@link #reset(int, int)} grows them the
 * first time a larger decision is selected (the only allocation, off the steady state).
 * <p>
 * This class is not threadsafe: one thread fills it, then reads it; give each thread its own instance.
 */
public final class Selection
{
    /** Value of {@link #eliminatedBy(int)} for a candidate no factor eliminated. */
    public static final int NOT_ELIMINATED = -1;

    private static final int DEFAULT_CAPACITY = 16;

    private int decisionId = Handles.NONE;
    private int outcome = Outcome.FAILED;
    private int selectedIndex = -1;
    private int candidateCount;
    private int droppedCount;
    private int objective = Objective.WEIGHTED;
    private int latencyMetric = LatencyMetric.AUTO;
    private final double[] weights = new double[Factor.COUNT];

    private int[] modelIds;
    private int[] dropReasons;
    private double[] quality;
    private double[] tpotMs;
    private double[] ttftMs;
    private double[] costPer1M;
    private long[] inflight;
    private double[] scores;
    private double[] normalized;
    private int[] eliminatedBy;

    /** A selection sized for decisions of up to 16 candidates; it grows on demand. */
    public Selection()
    {
        this(DEFAULT_CAPACITY);
    }

    /**
     * A selection sized for decisions of up to {@code capacity} candidates; it grows on demand.
     *
     * @param capacity initial number of candidate slots, at least 1.
     */
    public Selection(final int capacity)
    {
        allocate(Math.max(1, capacity));
    }

    /**
     * Starts a new selection, forgetting the previous one. Called by the engine before it fills the candidates.
     *
     * @param decisionId handle of the decision being selected.
     * @param candidateCount number of candidates of that decision.
     */
    public void reset(final int decisionId, final int candidateCount)
    {
        if (candidateCount > modelIds.length)
        {
            growSlowPath(candidateCount);
        }
        this.decisionId = decisionId;
        this.candidateCount = candidateCount;
        this.outcome = Outcome.FAILED;
        this.selectedIndex = -1;
        this.droppedCount = 0;
        this.objective = Objective.WEIGHTED;
        this.latencyMetric = LatencyMetric.AUTO;
    }

    /**
     * Records the observed signals of candidate {@code index}. Called by the engine (or a test) before scoring.
     *
     * @param index candidate position in {@code modelRefs} order.
     * @param modelId model handle of that candidate.
     * @param excluded whether the request excludes this candidate.
     * @param tpotMs its TPOT percentile in milliseconds, NaN when not observed.
     * @param ttftMs its TTFT percentile in milliseconds, NaN when not observed.
     * @param inflight its current in-flight count.
     */
    public void observe(
        final int index,
        final int modelId,
        final boolean excluded,
        final double tpotMs,
        final double ttftMs,
        final long inflight)
    {
        modelIds[index] = modelId;
        dropReasons[index] = excluded ? DropReason.EXCLUDED : DropReason.NONE;
        droppedCount += excluded ? 1 : 0;
        this.tpotMs[index] = tpotMs;
        this.ttftMs[index] = ttftMs;
        this.inflight[index] = inflight;
        eliminatedBy[index] = NOT_ELIMINATED;
    }

    /**
     * Writes the configured signals of candidate {@code index}. Called by the kernel.
     *
     * @param index candidate position.
     * @param quality its quality score, NaN when not configured.
     * @param costPer1M its prompt price per 1M tokens, NaN when not configured.
     */
    public void configured(final int index, final double quality, final double costPer1M)
    {
        this.quality[index] = quality;
        this.costPer1M[index] = costPer1M;
    }

    /**
     * Sets how the survivors were ranked and which latency signal was read. Called by the kernel.
     *
     * @param objective an {@link Objective} code.
     * @param latencyMetric a {@link LatencyMetric} code.
     */
    public void ranking(final int objective, final int latencyMetric)
    {
        this.objective = objective;
        this.latencyMetric = latencyMetric;
    }

    /**
     * Records the factor that took a lexicographic survivor out of the finalists. Called by the kernel.
     *
     * @param index candidate position.
     * @param factor a {@link Factor} index.
     */
    public void eliminatedBy(final int index, final int factor)
    {
        eliminatedBy[index] = factor;
    }

    /**
     * Sets the drop reason of candidate {@code index}. Called by the kernel.
     *
     * @param index candidate position.
     * @param reason a {@link DropReason} code.
     */
    public void dropReason(final int index, final int reason)
    {
        // Counted so that the engine's drop counters look at the candidates only when some were dropped.
        droppedCount += dropReasons[index] == DropReason.NONE && reason != DropReason.NONE ? 1 : 0;
        dropReasons[index] = reason;
    }

    /**
     * Sets one normalized factor of candidate {@code index}. Called by the kernel.
     *
     * @param index candidate position.
     * @param factor a {@link Factor} index.
     * @param value normalized value in [0, 1], higher is better.
     */
    public void normalized(final int index, final int factor, final double value)
    {
        normalized[index * Factor.COUNT + factor] = value;
    }

    /**
     * Sets the score of candidate {@code index}. Called by the kernel.
     *
     * @param index candidate position.
     * @param score weighted score, NaN when the candidate was not scored.
     */
    public void score(final int index, final double score)
    {
        scores[index] = score;
    }

    /**
     * Sets the effective (normalized) weights used. Called by the kernel.
     *
     * @param quality weight of quality.
     * @param latency weight of latency.
     * @param cost weight of cost.
     * @param load weight of load.
     */
    public void weights(final double quality, final double latency, final double cost, final double load)
    {
        weights[Factor.QUALITY] = quality;
        weights[Factor.LATENCY] = latency;
        weights[Factor.COST] = cost;
        weights[Factor.LOAD] = load;
    }

    /**
     * Sets the outcome and the chosen candidate. Called by the kernel.
     *
     * @param outcome an {@link Outcome} code.
     * @param selectedIndex position of the chosen candidate, or -1 when nothing was chosen.
     */
    public void outcome(final int outcome, final int selectedIndex)
    {
        this.outcome = outcome;
        this.selectedIndex = selectedIndex;
    }

    /** @return the {@link Objective} code of the decision of this selection. */
    public int objective()
    {
        return objective;
    }

    /** @return the {@link LatencyMetric} code of the decision of this selection. */
    public int latencyMetric()
    {
        return latencyMetric;
    }

    /** @return handle of the decision of this selection. */
    public int decisionId()
    {
        return decisionId;
    }

    /** @return the {@link Outcome} code. */
    public int outcome()
    {
        return outcome;
    }

    /** @return whether a model was chosen (every outcome but {@link Outcome#FAILED}). */
    public boolean hasSelection()
    {
        return selectedIndex >= 0;
    }

    /** @return position of the chosen candidate, or -1 when nothing was chosen. */
    public int selectedIndex()
    {
        return selectedIndex;
    }

    /** @return handle of the chosen model, or {@link Handles#NONE} when nothing was chosen. */
    public int selectedModel()
    {
        return selectedIndex >= 0 ? modelIds[selectedIndex] : Handles.NONE;
    }

    /** @return score of the chosen model; NaN when nothing was chosen or the choice came from a fallback policy. */
    public double selectedScore()
    {
        return selectedIndex >= 0 ? scores[selectedIndex] : Double.NaN;
    }

    /** @return number of candidates of the decision, excluded and dropped ones included. */
    public int candidateCount()
    {
        return candidateCount;
    }

    /**
     * @return number of candidates given a drop reason since {@link #reset(int, int)} (excluded ones included); 0 means
     *     every candidate was scored, so a reader of drop reasons can skip the candidates.
     */
    public int droppedCount()
    {
        return droppedCount;
    }

    /**
     * @param factor a {@link Factor} index.
     * @return the effective weight of that factor (normalized to sum to 1).
     */
    public double weight(final int factor)
    {
        return weights[factor];
    }

    /**
     * @param index candidate position.
     * @return its model handle.
     */
    public int modelId(final int index)
    {
        return modelIds[index];
    }

    /**
     * @param index candidate position.
     * @return its {@link DropReason} code.
     */
    public int dropReason(final int index)
    {
        return dropReasons[index];
    }

    /**
     * @param index candidate position.
     * @return its quality score, NaN when not configured.
     */
    public double quality(final int index)
    {
        return quality[index];
    }

    /**
     * @param index candidate position.
     * @return the latency signal used for scoring under the decision's {@link #latencyMetric()} ({@code auto}: TPOT
     *     percentile if observed, else TTFT percentile), NaN when missing.
     */
    public double latencyMs(final int index)
    {
        return LatencyMetric.select(latencyMetric, tpotMs[index], ttftMs[index]);
    }

    /**
     * @param index candidate position.
     * @return its TPOT percentile in milliseconds, NaN when not observed.
     */
    public double tpotMs(final int index)
    {
        return tpotMs[index];
    }

    /**
     * @param index candidate position.
     * @return its TTFT percentile in milliseconds, NaN when not observed.
     */
    public double ttftMs(final int index)
    {
        return ttftMs[index];
    }

    /**
     * @param index candidate position.
     * @return its cost in USD per 1M tokens under the decision's {@code cost_mix} or the request's token counts (the
     *     prompt price by default), NaN when a price with a non-zero share is not configured.
     */
    public double costPer1M(final int index)
    {
        return costPer1M[index];
    }

    /**
     * @param index candidate position.
     * @return its in-flight count when selected.
     */
    public long inflight(final int index)
    {
        return inflight[index];
    }

    /**
     * @param index candidate position.
     * @return its weighted score, NaN when it was not scored (excluded or dropped).
     */
    public double score(final int index)
    {
        return scores[index];
    }

    /**
     * @param index candidate position.
     * @param factor a {@link Factor} index.
     * @return its normalized value of that factor in [0, 1], NaN when it was not scored.
     */
    public double normalized(final int index, final int factor)
    {
        return normalized[index * Factor.COUNT + factor];
    }

    /**
     * @param index candidate position.
     * @return the {@link Factor} that eliminated this lexicographic survivor, {@link #NOT_ELIMINATED} for a finalist,
     *     a candidate that did not survive the filter, or any candidate of a weighted decision.
     */
    public int eliminatedBy(final int index)
    {
        return eliminatedBy[index];
    }

    private void growSlowPath(final int candidateCount)
    {
        final int capacity = Math.max(candidateCount, modelIds.length * 2);
        allocate(capacity);
    }

    private void allocate(final int capacity)
    {
        modelIds = new int[capacity];
        dropReasons = new int[capacity];
        quality = new double[capacity];
        tpotMs = new double[capacity];
        ttftMs = new double[capacity];
        costPer1M = new double[capacity];
        inflight = new long[capacity];
        scores = new double[capacity];
        normalized = new double[capacity * Factor.COUNT];
        eliminatedBy = new int[capacity];
        Arrays.fill(eliminatedBy, NOT_ELIMINATED);
        Arrays.fill(modelIds, Handles.NONE);
    }
}
