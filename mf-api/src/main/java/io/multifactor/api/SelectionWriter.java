package io.multifactor.api;

/**
 * The writer side of a {@link Selection}, for the selection kernel of {@code mf-kernel} only: a caller reads a
 * selection, only the kernel writes it. {@link Selection}'s writer methods are package-private; this class is their
 * one route out of the package. The build's architecture test fails on any use of it from outside
 * {@code io.multifactor.kernel} (and this package), so no caller can corrupt a result it was given.
 * <p>
 * Each method is a one-line static call to the same-named writer of {@link Selection}, documented there, small
 * enough for the JIT to inline. This class has no state and is threadsafe; the selection it writes is not (one thread
 * fills it, then reads it).
 */
public final class SelectionWriter
{
    private SelectionWriter()
    {
    }

    /**
     * A decision's configured arrays as a selection shares them, in candidate order: built once per decision plan, so
     * that starting a selection stores one reference, and only when the decision changes.
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
        }
    }

    /**
     * Starts a new selection of a decision, forgetting the previous one.
     *
     * @param out the selection.
     * @param decisionId handle of the decision being selected.
     * @param candidateCount number of candidates of that decision.
     * @param objective its {@link Objective} code.
     * @param latencyMetric its {@link LatencyMetric} code.
     * @param configured its configured arrays, {@code candidateCount} long.
     */
    public static void start(
        final Selection out,
        final int decisionId,
        final int candidateCount,
        final int objective,
        final int latencyMetric,
        final Configured configured)
    {
        out.start(decisionId, candidateCount, objective, latencyMetric, configured);
    }

    /**
     * Starts a selection of a decision the engine does not have: no candidates, outcome {@link Outcome#FAILED}.
     *
     * @param out the selection.
     * @param decisionId the handle asked for.
     */
    public static void reset(final Selection out, final int decisionId)
    {
        out.reset(decisionId);
    }

    /**
     * @param out the selection.
     * @param index candidate position.
     * @param factor the {@link Factor} that took it out of the lexicographic finalists, or
     *     {@link Selection#NOT_ELIMINATED}.
     */
    public static void eliminatedBy(final Selection out, final int index, final int factor)
    {
        out.eliminatedBy(index, factor);
    }

    /**
     * Makes the selection read costs written by {@link #costPer1M(Selection, int, double)} for this call instead of
     * the plan's (the request prices the candidates with its own token counts).
     *
     * @param out the selection.
     */
    public static void ownCosts(final Selection out)
    {
        out.ownCosts();
    }

    /**
     * @param out the selection.
     * @param index candidate position.
     * @param costPer1M its cost in USD per 1M tokens for this request, NaN when a price it needs is not configured.
     */
    public static void costPer1M(final Selection out, final int index, final double costPer1M)
    {
        out.costPer1M(index, costPer1M);
    }

    /**
     * Makes the selection read, for this call, the sources the kernel gathered: the servers' queue and KV-cache use
     * ({@link #serverValues}), in-flight tokens ({@link #inflightTokens}) and ejections ({@link #ejectedMillisLeft});
     * a source not read reads missing, 0 or not ejected.
     *
     * @param out the selection.
     * @param servers whether the servers' queue and KV-cache use were gathered.
     * @param tokens whether the in-flight tokens were gathered.
     * @param ejections whether the ejections were gathered.
     */
    public static void sources(final Selection out, final boolean servers, final boolean tokens, final boolean ejections)
    {
        out.sources(servers, tokens, ejections);
    }

    /**
     * @param out the selection.
     * @param index candidate position.
     * @param queue the smallest queue among its fresh servers, NaN when missing.
     * @param kvCache the smallest KV-cache use among its fresh servers, NaN when missing.
     */
    public static void serverValues(final Selection out, final int index, final double queue, final double kvCache)
    {
        out.serverValues(index, queue, kvCache);
    }

    /**
     * Stores the published latencies of the first {@code n} candidates in a pass of their own: TPOT, TTFT and the
     * latency the decision ranks by.
     *
     * @param out the selection.
     * @param tpotMs per candidate, its TPOT in milliseconds, NaN when missing.
     * @param ttftMs per candidate, its TTFT in milliseconds, NaN when missing.
     * @param latencyMs per candidate, the latency its decision ranks by, NaN when missing.
     * @param n how many candidates.
     */
    public static void publishedValues(
        final Selection out, final double[] tpotMs, final double[] ttftMs, final double[] latencyMs, final int n)
    {
        out.publishedValues(tpotMs, ttftMs, latencyMs, n);
    }

    /**
     * Stores the queue and KV-cache use of the first {@code n} candidates in a pass of their own.
     *
     * @param out the selection.
     * @param queue per candidate, the smallest queue among its fresh servers, NaN when missing.
     * @param kvCache per candidate, the smallest KV-cache use among its fresh servers, NaN when missing.
     * @param n how many candidates.
     */
    public static void serverValues(final Selection out, final double[] queue, final double[] kvCache, final int n)
    {
        out.serverValues(queue, kvCache, n);
    }

    /**
     * Stores one candidate's published latencies, as {@link #publishedValues(Selection, double[], double[], double[],
     * int)} does for all of them (quality and cost are the plan's columns).
     *
     * @param out the selection.
     * @param index candidate position.
     * @param tpotMs its TPOT in milliseconds, NaN when missing.
     * @param ttftMs its TTFT in milliseconds, NaN when missing.
     * @param latencyMs the latency its decision ranks by, NaN when missing.
     */
    public static void publishedValues(
        final Selection out, final int index, final double tpotMs, final double ttftMs, final double latencyMs)
    {
        out.publishedValues(index, tpotMs, ttftMs, latencyMs);
    }

    /**
     * What a selection stores per candidate besides its published values
     * ({@link #publishedValues(Selection, int, double, double, double)}): why it was dropped, its load and its in-flight
     * count.
     *
     * @param out the selection.
     * @param index candidate position.
     * @param dropReason a {@link DropReason} code, {@link DropReason#NONE} for a survivor.
     * @param load its load: in-flight requests, or tokens with {@code load_metric: tokens}.
     * @param inflight its in-flight count.
     */
    public static void liveValues(
        final Selection out, final int index, final int dropReason, final double load, final long inflight)
    {
        out.liveValues(index, dropReason, load, inflight);
    }

    /**
     * @param out the selection.
     * @param index candidate position.
     * @param inflightTokens its in-flight tokens.
     */
    public static void inflightTokens(final Selection out, final int index, final long inflightTokens)
    {
        out.inflightTokens(index, inflightTokens);
    }

    /**
     * @param out the selection.
     * @param index candidate position.
     * @param ejectedMillisLeft milliseconds left of its ejection, NaN when not ejected.
     */
    public static void ejectedMillisLeft(final Selection out, final int index, final double ejectedMillisLeft)
    {
        out.ejectedMillisLeft(index, ejectedMillisLeft);
    }

    /**
     * The column of one factor as the selection reads it this call, for the kernel's ranking loop: the value of that
     * factor per candidate (a plan's array, the selection's own, or an all-missing column). The kernel only; never
     * written through.
     *
     * @param out the selection.
     * @param factor a {@link Factor} index.
     * @return the column (not a copy), at least {@code candidateCount} long.
     */
    public static double[] column(final Selection out, final int factor)
    {
        return out.column(factor);
    }

    /**
     * The engine's per-thread state kept in a selection across calls (its counter block for the thread that selects
     * with it), which the engine checks is the calling thread's before using it. The engine only.
     *
     * @param out the selection.
     * @return what the engine kept, or null.
     */
    public static Object callerThreadState(final Selection out)
    {
        return out.callerThreadState();
    }

    /**
     * Keeps the engine's per-thread state in a selection, for its next call. The engine only.
     *
     * @param out the selection.
     * @param state what to keep.
     */
    public static void callerThreadState(final Selection out, final Object state)
    {
        out.callerThreadState(state);
    }

    /**
     * The column the kernel's ranking loop reads for a factor it does not score: every value missing, so the factor
     * adds exactly 0 whatever its observed values are. The kernel only; never written through.
     *
     * @param out the selection.
     * @return the all-missing column (not a copy), at least {@code candidateCount} long.
     */
    public static double[] missingColumn(final Selection out)
    {
        return out.missingColumn();
    }

    /**
     * Records the bounds of one factor over the survivors that have it (+Infinity and -Infinity when none has it).
     *
     * @param out the selection.
     * @param factor a {@link Factor} index.
     * @param min smallest value.
     * @param max largest value.
     */
    public static void bounds(final Selection out, final int factor, final double min, final double max)
    {
        out.bounds(factor, min, max);
    }

    /**
     * @param out the selection.
     * @return its per-candidate score array (not a copy), for the kernel's scoring loop.
     */
    public static double[] scores(final Selection out)
    {
        return out.scores();
    }

    /**
     * @param out the selection.
     * @return its per-candidate drop reason array (not a copy), for the kernel's scoring loop.
     */
    public static int[] dropReasons(final Selection out)
    {
        return out.dropReasons();
    }

    /**
     * @param out the selection.
     * @param index position of a surviving candidate.
     * @param score its score.
     */
    public static void score(final Selection out, final int index, final double score)
    {
        out.score(index, score);
    }

    /**
     * @param out the selection.
     * @param outcome an {@link Outcome} code.
     * @param selectedIndex position of the chosen candidate, or -1 when nothing was chosen.
     */
    public static void outcome(final Selection out, final int outcome, final int selectedIndex)
    {
        out.outcome(outcome, selectedIndex);
    }

    /**
     * Drops a candidate after scoring (reserve on select found its model full).
     *
     * @param out the selection.
     * @param index candidate position.
     * @param reason a {@link DropReason} code.
     */
    public static void dropReason(final Selection out, final int index, final int reason)
    {
        out.dropReason(index, reason);
    }

    /**
     * @param out the selection.
     * @param index the survivor {@code pick: p2c} drew beside the winner, or -1.
     */
    public static void runnerUp(final Selection out, final int index)
    {
        out.runnerUp(index);
    }

    /**
     * @param out the selection.
     * @param lease the lease taken on the chosen model, or {@link InflightTracker#NO_LEASE}.
     */
    public static void lease(final Selection out, final long lease)
    {
        out.lease(lease);
    }
}
