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
        public static final Configured NONE = new Configured(new int[0], new double[Factor.COUNT]);

        final int[] modelIds;
        final double[] weights;

        /**
         * @param modelIds model handle per candidate, shared (never written through this object).
         * @param weights effective weight per {@link Factor}, shared.
         * @throws IllegalArgumentException when {@code weights} is not one per factor.
         */
        public Configured(final int[] modelIds, final double[] weights)
        {
            if (weights.length != Factor.COUNT)
            {
                throw new IllegalArgumentException("weights: " + weights.length + " for " + Factor.COUNT + " factors");
            }
            this.modelIds = modelIds;
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
     * @param out the selection.
     * @param index candidate position in {@code modelRefs} order.
     * @param dropReason a {@link DropReason} code, {@link DropReason#NONE} for a survivor.
     * @param tpotMs its TPOT percentile in milliseconds, NaN when not observed.
     * @param ttftMs its TTFT percentile in milliseconds, NaN when not observed.
     * @param inflight its in-flight count.
     */
    public static void observed(
        final Selection out, final int index, final int dropReason, final double tpotMs, final double ttftMs,
        final long inflight)
    {
        out.observed(index, dropReason, tpotMs, ttftMs, inflight);
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
     * Records the value of every factor of one candidate, in {@link Factor} order (NaN where missing).
     *
     * @param out the selection.
     * @param index candidate position.
     * @param quality its quality score.
     * @param latency its latency in milliseconds under the decision's latency metric.
     * @param cost its cost per 1M tokens for this request.
     * @param load its load (in-flight requests or tokens).
     * @param queue its queue.
     * @param kvCache its KV-cache use.
     */
    public static void values(
        final Selection out,
        final int index,
        final double quality,
        final double latency,
        final double cost,
        final double load,
        final double queue,
        final double kvCache)
    {
        out.values(index, quality, latency, cost, load, queue, kvCache);
    }

    /**
     * The selection's factor columns, for the kernel's scoring loop: column f of {@link Factor} holds the values of
     * factor f at {@code [f * stride(out), f * stride(out) + candidateCount)}. The kernel only.
     *
     * @param out the selection.
     * @return its column array (not a copy).
     */
    public static double[] factorValues(final Selection out)
    {
        return out.factorValues();
    }

    /**
     * @param out the selection.
     * @return the distance between two factor columns in {@link #factorValues}.
     */
    public static int stride(final Selection out)
    {
        return out.stride();
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
     * Records the value of one factor of one candidate.
     *
     * @param out the selection.
     * @param index candidate position.
     * @param factor a {@link Factor} index.
     * @param value its value, NaN when missing.
     */
    public static void value(final Selection out, final int index, final int factor, final double value)
    {
        out.value(index, factor, value);
    }

    /**
     * Records the signals of one candidate that are not factors of their own.
     *
     * @param out the selection.
     * @param index candidate position.
     * @param inflightTokens its in-flight tokens.
     * @param ejectedMillisLeft milliseconds left of its ejection, NaN when not ejected.
     */
    public static void extraSignals(
        final Selection out, final int index, final long inflightTokens, final double ejectedMillisLeft)
    {
        out.extraSignals(index, inflightTokens, ejectedMillisLeft);
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
