package io.multifactor.kernel.explain;

import io.multifactor.api.DropReason;
import io.multifactor.api.Factor;
import io.multifactor.api.Outcome;
import io.multifactor.api.Selection;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.Plans;

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
 * @param weights the effective weights, indexed by {@link Factor}.
 * @param candidates every candidate in {@code modelRefs} order.
 */
public record Explanation(
    String decision, String outcome, String selected, int percentile, List<Double> weights, List<Candidate> candidates)
{
    /**
     * @param decision the decision's name.
     * @param outcome the outcome label.
     * @param selected the chosen model or {@code null}.
     * @param percentile the latency percentile.
     * @param weights the effective weights; copied.
     * @param candidates every candidate; copied.
     */
    public Explanation
    {
        weights = List.copyOf(weights);
        candidates = List.copyOf(candidates);
    }

    /**
     * One candidate. Missing values are NaN.
     * <p>
     * Instances are immutable and threadsafe.
     *
     * @param model its name.
     * @param dropped why it was not scored ({@code excluded}, or the broken ceiling such as
     *     {@code tpot_p95=260.0ms>200.0ms}), or {@code null} when it was scored.
     * @param score its weighted score, NaN when not scored.
     * @param quality configured quality, NaN when absent.
     * @param latencyMs the latency signal used (TPOT percentile, else TTFT), NaN when not observed.
     * @param tpotMs TPOT percentile in milliseconds, NaN when not observed.
     * @param ttftMs TTFT percentile in milliseconds, NaN when not observed.
     * @param costPer1M prompt price, NaN when absent.
     * @param inflight in-flight count.
     * @param normalized each factor before weighting, indexed by {@link Factor}, NaN when not scored.
     */
    public record Candidate(
        String model, String dropped, double score, double quality, double latencyMs, double tpotMs, double ttftMs,
        double costPer1M, long inflight, List<Double> normalized)
    {
        /**
         * @param model its name.
         * @param dropped why it was not scored, or null.
         * @param score its score.
         * @param quality configured quality.
         * @param latencyMs latency signal.
         * @param tpotMs TPOT percentile.
         * @param ttftMs TTFT percentile.
         * @param costPer1M prompt price.
         * @param inflight in-flight count.
         * @param normalized each factor before weighting; copied.
         */
        public Candidate
        {
            normalized = List.copyOf(normalized);
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
        final List<Double> weights = new ArrayList<>();
        for (int f = 0; f < Factor.COUNT; f++)
        {
            weights.add(selection.weight(f));
        }
        final List<Candidate> candidates = new ArrayList<>();
        for (int i = 0; i < selection.candidateCount(); i++)
        {
            final List<Double> normalized = new ArrayList<>();
            for (int f = 0; f < Factor.COUNT; f++)
            {
                normalized.add(selection.normalized(i, f));
            }
            candidates.add(new Candidate(
                plans.modelName(selection.modelId(i)),
                dropReason(plan, selection, i),
                selection.score(i),
                selection.quality(i),
                selection.latencyMs(i),
                selection.tpotMs(i),
                selection.ttftMs(i),
                selection.costPer1M(i),
                selection.inflight(i),
                normalized));
        }
        final String selected = selection.hasSelection() ? plans.modelName(selection.selectedModel()) : null;
        return new Explanation(plan.name(), Outcome.label(selection.outcome()), selected, plan.percentile(), weights,
            candidates);
    }

    private static String dropReason(final DecisionPlan plan, final Selection selection, final int i)
    {
        final String p = "_p" + plan.percentile() + '=';
        switch (selection.dropReason(i))
        {
            case DropReason.NONE:
                return null;
            case DropReason.EXCLUDED:
                return "excluded";
            case DropReason.TPOT:
                return "tpot" + p + selection.tpotMs(i) + "ms>" + plan.maxTpotMs() + "ms";
            case DropReason.TTFT:
                return "ttft" + p + selection.ttftMs(i) + "ms>" + plan.maxTtftMs() + "ms";
            case DropReason.COST:
                return "cost_per_1m=" + selection.costPer1M(i) + '>' + plan.maxCostPer1M();
            case DropReason.INFLIGHT:
                return "inflight=" + selection.inflight(i) + '>' + plan.maxInflight();
            default:
                return DropReason.label(selection.dropReason(i));
        }
    }
}
