package io.multifactor.api;

/**
 * The result of one selection, owned by the caller and reused across calls so that the request path allocates
 * nothing. It holds the chosen model, the outcome, the winning score and, for every candidate of the decision in
 * {@code modelRefs} order, its model handle, drop reason, signals, normalized factors and score.
 * <p>
 * Missing values are {@link Double#NaN}: a signal the candidate does not have, or the score and normalized factors of a
 * candidate that was not scored (excluded or dropped). Normalized factors are in [0, 1], higher is better (latency,
 * cost and load already inverted), before weighting. With {@code objective: lexicographic} a survivor's score is its
 * normalized value of the first priority factor, and {@link #eliminatedBy(int)} names the factor that took a survivor
 * out of the finalists.
 * <p>
 * What the engine writes per call is only what cannot be derived afterwards: per candidate the value of every factor of
 * the signal table ({@link Factor}: one column per factor), the raw signals behind them (TPOT and TTFT, in-flight
 * requests and tokens, the time left of an ejection), the drop reason and, for survivors, the score; per call the bounds
 * of each factor over the survivors. The model handles and weights are the decision plan's own read-only arrays,
 * shared, not copied (one reference per decision); normalized factors are computed when read, from the bounds, by
 * {@link #normalized(double, double, double, boolean)}.
 * <p>
 * Storage is parallel primitive arrays sized by the largest decision seen, the factors' own columns one array per
 * factor of the table, indexed by factor (allocated by iterating the table); the kernel grows them the
 * first time a larger decision is selected (the only allocation, off the steady state).
 * <p>
 * Callers only read it: it has no writer method. Its state is private, and only the selection kernel of
 * {@code mf-kernel} writes it, through a private lookup into this class (its {@code SelectionWriter}; on the module
 * path this package is opened to the kernel alone), so no caller can corrupt a result it was given and the kernel
 * writes the fields as directly as this class would.
 * <p>
 * This class is not threadsafe: one thread fills it, then reads it; give each thread its own instance.
 */
public final class Selection
{
    /**
     * A decision's configured arrays as a selection shares them, in candidate order: built once per decision plan, so
     * that starting a selection stores one reference, and only when the decision changes. Only this class reads them.
     * <p>
     * Instances are immutable (the arrays are never written once shared) and threadsafe.
     */
    public static final class Configured
    {
        /** No candidates. */
        public static final Configured NONE =
            new Configured(new int[0], new double[0], new double[0], new double[Factor.COUNT]);

        final int[] modelIds;
        final double[] quality;
        final double[] costPer1M;
        final double[] weights;
        // The configured column of each factor that has one (quality, and cost at the decision's cost_mix), else null.
        final double[][] columns = new double[Factor.COUNT][];

        /**
         * @param modelIds model handle per candidate, shared (never written through this object).
         * @param quality quality score per candidate (NaN when absent), shared: the selection's quality column.
         * @param costPer1M cost per 1M tokens per candidate under the decision's cost mix (NaN when absent), shared:
         *     the selection's cost column unless a request prices the candidates itself.
         * @param weights effective weight per {@link Factor}, shared.
         * @throws IllegalArgumentException when the arrays disagree in length or {@code weights} is not one per factor.
         */
        public Configured(final int[] modelIds, final double[] quality, final double[] costPer1M, final double[] weights)
        {
            if (quality.length != modelIds.length || costPer1M.length != modelIds.length || weights.length != Factor.COUNT)
            {
                throw new IllegalArgumentException("configured arrays of " + modelIds.length + " candidates: quality " +
                    quality.length + ", cost " + costPer1M.length + ", weights " + weights.length);
            }
            this.modelIds = modelIds;
            this.quality = quality;
            this.costPer1M = costPer1M;
            this.weights = weights;
            columns[Factor.QUALITY] = quality;
            columns[Factor.COST] = costPer1M;
        }
    }

    /** Value of {@link #eliminatedBy(int)} for a candidate no factor eliminated. */
    public static final int NOT_ELIMINATED = -1;

    private static final int DEFAULT_CAPACITY = 16;

    private int decisionId = Handles.NONE;
    private int outcome = Outcome.FAILED;
    private int selectedIndex = -1;
    private int candidateCount;
    private int objective = Objective.WEIGHTED;
    private int latencyMetric = LatencyMetric.AUTO;
    private long lease = InflightTracker.NO_LEASE;
    private int runnerUp = -1;

    // Shared, read-only: the decision plan's arrays (never written here), behind one reference that changes only when
    // the decision does.
    private Configured configured = Configured.NONE;

    // Written per call. The factor columns, one per factor of the table, indexed by factor: a factor whose bit is set
    // in gathered reads the selection's own column (the kernel wrote it this call), any other its configured column
    // (quality, and cost unless the request prices the candidates itself) or, without one, the all-missing column. The
    // factors observed on every call (latency, load) are gathered from the start; the others (a request's own cost,
    // the servers' queue and KV-cache use) only when the kernel read them. In-flight tokens and ejections read 0 and
    // missing unless written (tokens, ejections). So a decision without the extensions stores per candidate only what
    // it observed: reason, TPOT, TTFT, in-flight, latency and load; one with some of them stores those too, and only
    // those.
    // One bit per factor (1 << factor): the table holds fewer than 32 factors.
    private int gathered;
    private boolean tokens;
    private boolean ejections;
    private int[] dropReasons;
    private double[] tpotMs;
    private double[] ttftMs;
    private long[] inflight;
    private final double[][] columns = new double[Factor.COUNT][];
    private double[] missing;
    private long[] inflightTokens;
    private double[] ejectedMillisLeft;
    private double[] scores;
    private int[] eliminatedBy;
    // The engine's per-thread state for the thread that selects with this selection (its counter block), kept across
    // calls; the engine checks that it is the calling thread's before using it. Opaque here.
    private Object callerThreadState;
    private final double[] boundMin = new double[Factor.COUNT];
    private final double[] boundMax = new double[Factor.COUNT];
    // Sessions: the rule that chose (SessionRule.OFF without a session) and the entry's model before it (Handles.NONE).
    private int sessionRule = SessionRule.OFF;
    private int sessionPreviousModel = Handles.NONE;

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

    /** @return the engine's per-thread state kept in this selection, or null. */

    /** @return the all-missing column (never written after allocation). */

    /**
     * @return with {@code pick: p2c}, the other survivor drawn with the winner (the one reserve-on-select tries next),
     *     or -1 (another pick, fewer than two survivors, or once reserve-on-select dropped it).
     */
    public int runnerUp()
    {
        return runnerUp;
    }

    /**
     * @return the lease {@code selectAndBegin} took on the chosen model, to end when the request completes; or
     *     {@link InflightTracker#NO_LEASE} after a plain {@code select}, a failed outcome, or a full lease table.
     */
    public long lease()
    {
        return lease;
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
        return selectedIndex >= 0 ? configured.modelIds[selectedIndex] : Handles.NONE;
    }

    /** @return score of the chosen model; NaN when nothing was chosen or the choice came from a fallback policy. */
    public double selectedScore()
    {
        return selectedIndex >= 0 ? score(selectedIndex) : Double.NaN;
    }

    /** @return number of candidates of the decision, excluded and dropped ones included. */
    public int candidateCount()
    {
        return candidateCount;
    }

    /**
     * @return number of candidates observed with a drop reason in this selection (excluded ones
     *     included); 0 means every candidate was scored, so a reader of drop reasons can skip the candidates.
     */
    public int droppedCount()
    {
        // Counted when asked, off the hot path: select itself keeps no running count.
        int dropped = 0;
        for (int i = 0; i < candidateCount; i++)
        {
            dropped += dropReasons[i] != DropReason.NONE ? 1 : 0;
        }
        return dropped;
    }

    /**
     * @param factor a {@link Factor} index.
     * @return the effective weight of that factor (normalized to sum to 1).
     */
    public double weight(final int factor)
    {
        return configured.weights[factor];
    }

    /**
     * @param index candidate position.
     * @return its model handle.
     */
    public int modelId(final int index)
    {
        return configured.modelIds[index];
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
        return configured.quality[index];
    }

    /**
     * @param index candidate position.
     * @return the latency signal used for scoring under the decision's {@link #latencyMetric()} ({@code auto}: TPOT
     *     percentile if observed, else TTFT percentile), NaN when missing.
     */
    public double latencyMs(final int index)
    {
        return column(Factor.LATENCY)[index];
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
        return column(Factor.COST)[index];
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
     * @return its in-flight tokens when selected (the sum of its leases' token weights), 0 when none.
     */
    public long inflightTokens(final int index)
    {
        return tokens ? inflightTokens[index] : 0L;
    }

    /**
     * @param index candidate position.
     * @return the load value that was scored: its in-flight requests, or its in-flight tokens with
     *     {@code load_metric: tokens}.
     */
    public double load(final int index)
    {
        return column(Factor.LOAD)[index];
    }

    /**
     * @param index candidate position.
     * @return the smallest number of waiting requests among its servers with fresh metrics, NaN when none is fresh or
     *     the model is not scraped.
     */
    public double queue(final int index)
    {
        return column(Factor.QUEUE)[index];
    }

    /**
     * @param index candidate position.
     * @return the smallest KV-cache use (0..1) among its servers with fresh metrics, NaN when none is fresh or the
     *     model is not scraped.
     */
    public double kvCache(final int index)
    {
        return column(Factor.KV_CACHE)[index];
    }

    /**
     * @param index candidate position.
     * @return milliseconds left of its ejection when selected, NaN when it was not ejected.
     */
    public double ejectedMillisLeft(final int index)
    {
        return ejections ? ejectedMillisLeft[index] : Double.NaN;
    }

    /**
     * The column of one factor as this selection reads it this call: the value of that factor per candidate (the plan's
     * array, this selection's own, or the all-missing column). Also the kernel's ranking loop's source, reached through
     * its private lookup; never written through.
     */
    private double[] column(final int factor)
    {
        if ((gathered & 1 << factor) != 0)
        {
            return columns[factor];
        }
        final double[] configuredColumn = configured.columns[factor];
        return configuredColumn != null ? configuredColumn : missing;
    }

    /**
     * @param index candidate position.
     * @param factor a {@link Factor} index.
     * @return its value of that factor as scored (quality, latency in ms, cost per 1M, load, queue, KV-cache use), NaN
     *     when missing.
     */
    public double value(final int index, final int factor)
    {
        if (factor < 0 || factor >= Factor.COUNT)
        {
            throw new IllegalArgumentException("unknown factor: " + factor);
        }
        return column(factor)[index];
    }

    /**
     * @param factor a {@link Factor} index.
     * @return the smallest value of that factor among the survivors that have it; +Infinity when none has it.
     */
    public double boundMin(final int factor)
    {
        return boundMin[factor];
    }

    /**
     * @param factor a {@link Factor} index.
     * @return the largest value of that factor among the survivors that have it; -Infinity when none has it.
     */
    public double boundMax(final int factor)
    {
        return boundMax[factor];
    }

    /**
     * @param index candidate position.
     * @return its weighted score, NaN when it was not scored (excluded or dropped).
     */
    public double score(final int index)
    {
        return dropReason(index) == DropReason.NONE ? scores[index] : Double.NaN;
    }

    /**
     * @param index candidate position.
     * @param factor a {@link Factor} index.
     * @return its normalized value of that factor in [0, 1], NaN when it was not scored.
     */
    public double normalized(final int index, final int factor)
    {
        if (dropReason(index) != DropReason.NONE)
        {
            return Double.NaN;
        }
        return normalized(value(index, factor), boundMin[factor], boundMax[factor], Factor.lowerIsBetter(factor));
    }

    /**
     * @param index candidate position.
     * @return the {@link Factor} that eliminated this lexicographic survivor, {@link #NOT_ELIMINATED} for a finalist,
     *     a candidate that did not survive the filter, or any candidate of a weighted decision.
     */
    public int eliminatedBy(final int index)
    {
        return objective == Objective.LEXICOGRAPHIC ? eliminatedBy[index] : NOT_ELIMINATED;
    }

    /**
     * Min-max normalization of one signal over the survivors, as section 4.1 of the semantics defines it.
     *
     * @param value the candidate's value, NaN when missing.
     * @param min smallest value among the survivors that have the signal.
     * @param max largest value among the survivors that have the signal.
     * @param lowerIsBetter whether to invert (latency, cost, load).
     * @return in [0, 1]: 0 when missing, 0.5 when every survivor that has it shares one value, else
     *     {@code (value - min) / (max - min)}, inverted as {@code 1 - t} when lower is better.
     */
    public static double normalized(final double value, final double min, final double max, final boolean lowerIsBetter)
    {
        if (value != value)
        {
            return 0.0;
        }
        if (!(max > min))
        {
            return 0.5;
        }
        // value <= max, so value - min <= max - min once rounded: t never exceeds 1.
        final double t = (value - min) / (max - min);
        return lowerIsBetter ? 1.0 - t : t;
    }

    /**
     * @return the {@link SessionRule} that made this choice: {@link SessionRule#OFF} when the request carried no session
     *     key or its decision has no {@code session} block.
     */
    public int sessionRule()
    {
        return sessionRule;
    }

    /**
     * @return handle of the model the request's session entry held before this selection (the previous model P), or
     *     {@link Handles#NONE} when it had no live entry or no session took part.
     */
    public int sessionPreviousModel()
    {
        return sessionPreviousModel;
    }

    /** Grows the storage for a larger decision: called by the kernel when it starts one, through its private lookup. */
    private void growSlowPath(final int candidateCount)
    {
        allocate(Math.max(candidateCount, dropReasons.length * 2));
    }

    private void allocate(final int capacity)
    {
        dropReasons = new int[capacity];
        tpotMs = new double[capacity];
        ttftMs = new double[capacity];
        inflight = new long[capacity];
        scores = new double[capacity];
        eliminatedBy = new int[capacity];
        java.util.Arrays.fill(eliminatedBy, NOT_ELIMINATED);
        for (int f = 0; f < Factor.COUNT; f++)
        {
            columns[f] = new double[capacity];
        }
        missing = new double[capacity];
        java.util.Arrays.fill(missing, Double.NaN);
        inflightTokens = new long[capacity];
        ejectedMillisLeft = new double[capacity];
    }
}
