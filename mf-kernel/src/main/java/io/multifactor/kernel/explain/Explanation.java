package io.multifactor.kernel.explain;

import io.multifactor.api.Capability;
import io.multifactor.api.DropReason;
import io.multifactor.api.Handles;
import io.multifactor.api.Factor;
import io.multifactor.api.LatencyMetric;
import io.multifactor.api.Objective;
import io.multifactor.api.Outcome;
import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.api.SessionRule;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.TieBreak;
import io.multifactor.kernel.scoring.RequestScreen;

import java.util.ArrayList;
import java.util.List;

/**
 * A readable record of one selection (why the engine chose what it chose), built from a filled {@link Selection} off
 * the hot path by {@code MultiFactorEngine.explain}; {@code bin/mf explain} prints it as JSON or as a table.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param decision the decision's name.
 * @param outcome the outcome label, such as {@code scored}.
 * @param selected the chosen model, or {@code null} when the outcome is {@code failed}.
 * @param percentile the latency percentile the decision reads.
 * @param weights the effective weights, indexed by {@link Factor} (ignored by the lexicographic objective).
 * @param candidates every candidate in {@code modelRefs} order.
 * @param objective {@code weighted} or {@code lexicographic}.
 * @param priority the lexicographic priority as factor labels, empty for the weighted objective.
 * @param tolerance the lexicographic tolerance.
 * @param tieBand the weighted tie band.
 * @param tieBreak {@code first} or {@code random}.
 * @param latencyMetric {@code auto}, {@code tpot} or {@code ttft}.
 * @param extended whether the signals beyond the seed's take part: the decision weighs a factor beyond the seed's
 *     four, bounds the servers' queue, KV-cache or in-flight tokens, or a candidate has one of them or is ejected; then
 *     the JSON and the table show them.
 * @param session the session part: {@code null} when the request carried no session, {@link Session#IGNORED} when it
 *     did but its decision has no {@code session} block, else the previous model and the rule that chose.
 */
public record Explanation(
    String decision,
    String outcome,
    String selected,
    int percentile,
    List<Double> weights,
    List<Candidate> candidates,
    String objective,
    List<String> priority,
    double tolerance,
    double tieBand,
    String tieBreak,
    String latencyMetric,
    boolean extended,
    Session session)
{
    /**
     * @param decision the decision's name.
     * @param outcome the outcome label.
     * @param selected the chosen model or {@code null}.
     * @param percentile the latency percentile.
     * @param weights the effective weights; copied.
     * @param candidates every candidate; copied.
     * @param objective the objective label.
     * @param priority the lexicographic priority; copied.
     * @param tolerance the lexicographic tolerance.
     * @param tieBand the weighted tie band.
     * @param tieBreak the tie-break label.
     * @param latencyMetric the latency metric label.
     * @param extended whether the signals beyond the seed's take part (see {@link #of}).
     */
    public Explanation
    {
        weights = List.copyOf(weights);
        candidates = List.copyOf(candidates);
        priority = List.copyOf(priority);
    }

    /**
     * As the canonical constructor, without a session part.
     *
     * @param decision the decision's name.
     * @param outcome the outcome label.
     * @param selected the chosen model or {@code null}.
     * @param percentile the latency percentile.
     * @param weights the effective weights; copied.
     * @param candidates every candidate; copied.
     * @param objective the objective label.
     * @param priority the lexicographic priority; copied.
     * @param tolerance the lexicographic tolerance.
     * @param tieBand the weighted tie band.
     * @param tieBreak the tie-break label.
     * @param latencyMetric the latency metric label.
     * @param extended whether the signals beyond the seed's take part.
     */
    public Explanation(
        final String decision, final String outcome, final String selected, final int percentile,
        final List<Double> weights, final List<Candidate> candidates, final String objective,
        final List<String> priority, final double tolerance, final double tieBand, final String tieBreak,
        final String latencyMetric, final boolean extended)
    {
        this(decision, outcome, selected, percentile, weights, candidates, objective, priority, tolerance, tieBand,
            tieBreak, latencyMetric, extended, null);
    }

    /**
     * The session part of an explanation: the model the request's entry held before (P) and the rule that chose.
     * <p>
     * Instances are immutable and threadsafe.
     *
     * @param previous the previous model's name, or {@code null} when the key had no live entry.
     * @param rule {@code min_turns}, {@code stay}, {@code switch}, {@code handoff}, {@code new} or {@code none}; null
     *     only in {@link #IGNORED}.
     */
    public record Session(String previous, String rule)
    {
        /** A session key on a decision without a {@code session} block: ignored ({@code "session": null}). */
        public static final Session IGNORED = new Session(null, null);

        /** @return whether the decision ignored the session key (it has no {@code session} block). */
        public boolean ignored()
        {
            return rule == null;
        }
    }

    /**
     * One candidate. Missing values are NaN.
     * <p>
     * Instances are immutable and threadsafe.
     *
     * @param model its name.
     * @param dropped why it was not scored ({@code excluded}, or the broken ceiling such as
     *     {@code tpot_p95=260.0ms>200.0ms}), or {@code null} when it was scored.
     * @param score its weighted score (lexicographic: its normalized value of the first priority factor), NaN when
     *     not scored.
     * @param values its value of each factor as scored, indexed by {@link Factor} ({@link Selection#value}: quality,
     *     the latency its decision ranks by in ms, cost per 1M tokens, load, ...), NaN when missing.
     * @param tpotMs TPOT percentile in milliseconds, NaN when not observed.
     * @param ttftMs TTFT percentile in milliseconds, NaN when not observed.
     * @param inflight in-flight count.
     * @param inflightTokens in-flight tokens.
     * @param ejectedMs milliseconds left of its ejection, NaN when not ejected.
     * @param normalized each factor before weighting, indexed by {@link Factor}, NaN when not scored.
     * @param eliminatedBy the factor label that took this lexicographic survivor out of the finalists, {@code null}
     *     otherwise.
     */
    public record Candidate(
        String model, String dropped, double score, List<Double> values, double tpotMs, double ttftMs, long inflight,
        long inflightTokens, double ejectedMs, List<Double> normalized, String eliminatedBy)
    {
        /**
         * @param model its name.
         * @param dropped why it was not scored, or null.
         * @param score its score.
         * @param values each factor's value as scored; copied.
         * @param tpotMs TPOT percentile.
         * @param ttftMs TTFT percentile.
         * @param inflight in-flight count.
         * @param inflightTokens in-flight tokens.
         * @param ejectedMs milliseconds left of its ejection.
         * @param normalized each factor before weighting; copied.
         * @param eliminatedBy the eliminating factor, or null.
         */
        public Candidate
        {
            values = List.copyOf(values);
            normalized = List.copyOf(normalized);
        }

        /**
         * @param factor a {@link Factor} index.
         * @return its value of that factor as scored, NaN when missing.
         */
        public double value(final int factor)
        {
            return values.get(factor);
        }

        /** @return configured quality, NaN when absent. */
        public double quality()
        {
            return value(Factor.QUALITY);
        }

        /** @return the latency signal used (by the decision's latency metric), NaN when not observed. */
        public double latencyMs()
        {
            return value(Factor.LATENCY);
        }

        /** @return cost per 1M tokens under the cost mix or the request's token counts, NaN when missing. */
        public double costPer1M()
        {
            return value(Factor.COST);
        }
    }

    /**
     * @param plans the snapshot the selection ran on.
     * @param plan the decision's plan.
     * @param selection the filled selection.
     * @return the record.
     */
    public static Explanation of(final Plans plans, final DecisionPlan plan, final Selection selection)
    {
        return of(plans, plan, selection, false);
    }

    /**
     * @param plans the snapshot the selection ran on.
     * @param plan the decision's plan.
     * @param selection the filled selection.
     * @param peakEwma whether the engine's latency is peak-EWMA ({@code latency_estimator: peak_ewma}): latency drop
     *     reasons then read {@code tpot_ewma=...}, {@code ttft_ewma=...} instead of the percentile.
     * @return the record.
     */
    public static Explanation of(
        final Plans plans, final DecisionPlan plan, final Selection selection, final boolean peakEwma)
    {
        return of(plans, plan, selection, peakEwma, null);
    }

    /**
     * @param plans the snapshot the selection ran on.
     * @param plan the decision's plan.
     * @param selection the filled selection.
     * @param peakEwma whether the engine's latency is peak-EWMA, as above.
     * @param requestOrNull the request the selection ran for, or null (as below); the session part follows the
     *     selection's rule.
     * @return the record.
     */
    public static Explanation of(
        final Plans plans, final DecisionPlan plan, final Selection selection, final boolean peakEwma,
        final Request requestOrNull)
    {
        return of(plans, plan, selection, peakEwma, selection.sessionRule() != SessionRule.OFF, requestOrNull);
    }

    /**
     * @param plans the snapshot the selection ran on.
     * @param plan the decision's plan.
     * @param selection the filled selection.
     * @param peakEwma whether the engine's latency is peak-EWMA, as above.
     * @param session whether the request carried a session (a key, or an entry stated to {@code explain}).
     * @param requestOrNull the request the selection ran for, or null: its tokens and needs name what an ineligible
     *     candidate lacks ({@code context=9200>8192}, {@code capability=tools}), and its own ceilings are those a
     *     latency drop names.
     * @return the record; its session part as {@link #session()} says.
     */
    public static Explanation of(
        final Plans plans,
        final DecisionPlan plan,
        final Selection selection,
        final boolean peakEwma,
        final boolean session,
        final Request requestOrNull)
    {
        final List<Double> weights = new ArrayList<>();
        for (int f = 0; f < Factor.COUNT; f++)
        {
            weights.add(selection.weight(f));
        }
        final List<Candidate> candidates = new ArrayList<>();
        for (int i = 0; i < selection.candidateCount(); i++)
        {
            final List<Double> values = new ArrayList<>();
            final List<Double> normalized = new ArrayList<>();
            for (int f = 0; f < Factor.COUNT; f++)
            {
                values.add(selection.value(i, f));
                normalized.add(selection.normalized(i, f));
            }
            candidates.add(new Candidate(
                plans.modelName(selection.modelId(i)),
                dropReason(plan, selection, i, peakEwma, requestOrNull),
                selection.score(i),
                values,
                selection.tpotMs(i),
                selection.ttftMs(i),
                selection.inflight(i),
                selection.inflightTokens(i),
                selection.ejectedMillisLeft(i),
                normalized,
                selection.eliminatedBy(i) == Selection.NOT_ELIMINATED ? null : Factor.label(selection.eliminatedBy(i))));
        }
        final String selected = selection.hasSelection() ? plans.modelName(selection.selectedModel()) : null;
        final List<String> priority = new ArrayList<>();
        for (int rank = 0; rank < plan.priorityCount(); rank++)
        {
            priority.add(Factor.label(plan.priority(rank)));
        }
        return new Explanation(plan.name(), Outcome.label(selection.outcome()), selected, plan.percentile(), weights,
            candidates, Objective.label(plan.objective()), priority, plan.tolerance(), plan.tieBand(),
            TieBreak.label(plan.tieBreak()), LatencyMetric.label(plan.latencyMetric()), extended(plan, selection),
            session(plans, selection, session));
    }

    private static Session session(final Plans plans, final Selection selection, final boolean session)
    {
        if (!session)
        {
            return null;
        }
        final int rule = selection.sessionRule();
        if (rule == SessionRule.OFF)
        {
            return Session.IGNORED;
        }
        final int previous = selection.sessionPreviousModel();
        return new Session(previous == Handles.NONE ? null : plans.modelName(previous), SessionRule.label(rule));
    }

    /**
     * Whether the signals beyond the seed's take part: the decision weighs a factor beyond the seed's four or sets a
     * ceiling on the servers' signals or on in-flight tokens, or a candidate has one of them (a value of a factor
     * beyond the seed's, in-flight tokens, an ejection).
     */
    private static boolean extended(final DecisionPlan plan, final Selection selection)
    {
        boolean extended = plan.scoresBeyondSeed() ||
            plan.effectiveMaxQueue() != Double.POSITIVE_INFINITY || plan.effectiveMaxKvCache() != Double.POSITIVE_INFINITY ||
            plan.effectiveMaxInflightTokens() != Long.MAX_VALUE || plan.whenStaleSaturated();
        for (int i = 0; i < selection.candidateCount() && !extended; i++)
        {
            for (int f = Factor.SEED_COUNT; f < Factor.COUNT; f++)
            {
                extended |= !Double.isNaN(selection.value(i, f));
            }
            extended |= selection.inflightTokens(i) != 0 || !Double.isNaN(selection.ejectedMillisLeft(i)) ||
                selection.dropReason(i) == DropReason.EJECTED || selection.dropReason(i) == DropReason.STALE;
        }
        return extended;
    }

    private static String dropReason(
        final DecisionPlan plan, final Selection selection, final int i, final boolean peakEwma,
        final Request requestOrNull)
    {
        final String p = peakEwma ? "_ewma=" : "_p" + plan.percentile() + '=';
        switch (selection.dropReason(i))
        {
            case DropReason.NONE:
                return null;
            case DropReason.EXCLUDED:
                return "excluded";
            case DropReason.QUALITY:
                return "quality=" + (Double.isNaN(selection.quality(i)) ? "null" : Double.toString(selection.quality(i))) +
                    '<' + plan.minQuality();
            case DropReason.TPOT:
                return "tpot" + p + selection.tpotMs(i) + "ms>" + RequestScreen.maxTpotMs(plan, requestOrNull) + "ms";
            case DropReason.TTFT:
                return "ttft" + p + selection.ttftMs(i) + "ms>" + RequestScreen.maxTtftMs(plan, requestOrNull) + "ms";
            case DropReason.COST:
                return "cost_per_1m=" + selection.costPer1M(i) + '>' + plan.maxCostPer1M();
            case DropReason.INFLIGHT:
                return "inflight=" + selection.inflight(i) + '>' + plan.maxInflight();
            case DropReason.INFLIGHT_TOKENS:
                return "inflight_tokens=" + selection.inflightTokens(i) + '>' + plan.signalCeilings().maxInflightTokens();
            case DropReason.QUEUE:
                return "queue=" + count(selection.queue(i)) + '>' + count(plan.effectiveMaxQueue());
            case DropReason.KV_CACHE:
                return "kv_cache=" + selection.kvCache(i) + '>' + plan.effectiveMaxKvCache();
            case DropReason.EJECTED:
                return "ejected(" + String.format(java.util.Locale.ROOT, "%.1f", selection.ejectedMillisLeft(i) / 1000.0) +
                    "s left)";
            case DropReason.CONTEXT:
                return "context=" + RequestScreen.requestTokens(plan.requestRules(), requestOrNull) + '>' +
                    plan.requestRules().contextWindow(i);
            case DropReason.CAPABILITY:
                return "capability=" + lacking(plan, i, requestOrNull);
            default:
                return DropReason.label(selection.dropReason(i));
        }
    }

    /** The first capability the request needs that candidate {@code i} lacks, by name. */
    private static String lacking(final DecisionPlan plan, final int i, final Request requestOrNull)
    {
        final int lacking = (requestOrNull == null ? 0 : requestOrNull.needs()) & ~plan.requestRules().capabilities(i);
        return lacking == 0 ? "?" : Capability.firstLabel(lacking);
    }

    /** A queue length as written in a drop reason: {@code 12}, not {@code 12.0}, when it is a whole number. */
    private static String count(final double value)
    {
        return value == Math.rint(value) && Math.abs(value) < 1e15 ? Long.toString((long)value) : Double.toString(value);
    }
}
