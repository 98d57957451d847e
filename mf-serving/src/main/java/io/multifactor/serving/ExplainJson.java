package io.multifactor.serving;

import io.multifactor.api.Factor;
import io.multifactor.kernel.explain.Explanation;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.api.Request;
import io.multifactor.api.Selection;

import java.util.List;

/**
 * Writes an {@link Explanation} as exactly the documented explain JSON object: fields in the documented order, numbers
 * as doubles except {@code inflight}, {@code null} for a missing value. {@link #render} lays it out over lines (as
 * {@code bin/mf explain --json} prints it); {@link #compact} writes the same object on one line (the
 * {@code x-mf-explain} response header). Other programs parse this output.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class ExplainJson
{
    private ExplainJson()
    {
    }

    /**
     * @param explanation the selection to print.
     * @return the JSON object, laid out over lines, ending with a newline.
     */
    public static String render(final Explanation explanation)
    {
        return write(explanation, false);
    }

    /**
     * @param explanation the selection to print.
     * @return the same JSON object on one line, without spaces between tokens, no newline.
     */
    public static String compact(final Explanation explanation)
    {
        return write(explanation, true);
    }

    /**
     * The compact explain JSON of the selection that chose (never a second selection), or {@code null} when the
     * selection no longer matches the plans (a reload replaced its decision in between).
     *
     * @param plans the plans the selection ran on (the engine's current ones, right after selecting).
     * @param selection the filled selection.
     * @return the compact JSON, or {@code null}.
     */
    public static String compact(final Plans plans, final Selection selection)
    {
        return compact(plans, selection, null);
    }

    /**
     * As {@link #compact(Plans, Selection)}, naming what an ineligible candidate lacks and the request's own latency
     * ceilings from the request the selection ran for.
     *
     * @param plans the plans the selection ran on.
     * @param selection the filled selection.
     * @param requestOrNull the request it ran for, or null.
     * @return the compact JSON, or {@code null}.
     */
    public static String compact(final Plans plans, final Selection selection, final Request requestOrNull)
    {
        final DecisionPlan plan = plans.decision(selection.decisionId());
        if (plan == null || plan.candidateCount() != selection.candidateCount())
        {
            return null;
        }
        for (int i = 0; i < selection.candidateCount(); i++)
        {
            if (plan.candidateModelId(i) != selection.modelId(i))
            {
                return null;
            }
        }
        return compact(Explanation.of(plans, plan, selection, false, requestOrNull));
    }

    private static String write(final Explanation explanation, final boolean compact)
    {
        final String colon = compact ? ":" : ": ";
        final String comma = compact ? "," : ", ";
        final String line = compact ? "," : ",\n";
        final StringBuilder sb = new StringBuilder(512);
        sb.append("{\"decision\"").append(colon).append(JsonText.string(explanation.decision())).append(line);
        sb.append(compact ? "" : " ").append("\"outcome\"").append(colon).append(JsonText.string(explanation.outcome()))
            .append(line);
        sb.append(compact ? "" : " ").append("\"selected\"").append(colon)
            .append(JsonText.string(explanation.selected())).append(line);
        sb.append(compact ? "" : " ").append("\"objective\"").append(colon)
            .append(JsonText.string(explanation.objective())).append(line);
        sb.append(compact ? "" : " ").append("\"weights\"").append(colon);
        final int factors = explanation.extended() ? Factor.COUNT : Factor.SEED_COUNT;
        factors(sb, explanation.weights(), factors, colon, comma);
        sb.append(line);
        sb.append(compact ? "" : " ").append("\"candidates\"").append(colon).append('[');
        for (int i = 0; i < explanation.candidates().size(); i++)
        {
            final Explanation.Candidate c = explanation.candidates().get(i);
            if (compact)
            {
                sb.append(i == 0 ? "" : ",");
            }
            else
            {
                sb.append(i == 0 ? "\n   " : ",\n   ");
            }
            final String inner = compact ? "," : ",\n    ";
            sb.append("{\"model\"").append(colon).append(JsonText.string(c.model()));
            sb.append(comma).append("\"dropped\"").append(colon).append(JsonText.string(c.dropped()));
            sb.append(comma).append("\"score\"").append(colon).append(JsonText.number(c.score())).append(inner);
            sb.append("\"quality\"").append(colon).append(JsonText.number(c.quality()));
            sb.append(comma).append("\"latency_ms\"").append(colon).append(JsonText.number(c.latencyMs()));
            sb.append(comma).append("\"tpot_ms\"").append(colon).append(JsonText.number(c.tpotMs()));
            sb.append(comma).append("\"ttft_ms\"").append(colon).append(JsonText.number(c.ttftMs())).append(inner);
            sb.append("\"cost_per_1m\"").append(colon).append(JsonText.number(c.costPer1M()));
            sb.append(comma).append("\"inflight\"").append(colon).append(c.inflight());
            if (explanation.extended())
            {
                sb.append(comma).append("\"inflight_tokens\"").append(colon).append(c.inflightTokens()).append(inner);
                // The factors beyond the seed's, each under its label, in the table's order.
                for (int f = Factor.SEED_COUNT; f < Factor.COUNT; f++)
                {
                    sb.append(f == Factor.SEED_COUNT ? "" : comma).append('"').append(Factor.label(f)).append('"')
                        .append(colon).append(JsonText.number(c.value(f)));
                }
                sb.append(comma).append("\"ejected_ms\"").append(colon).append(JsonText.number(c.ejectedMs()));
            }
            sb.append(inner);
            sb.append("\"normalized\"").append(colon);
            factors(sb, c.normalized(), factors, colon, comma);
            sb.append(inner).append("\"eliminated_by\"").append(colon).append(JsonText.string(c.eliminatedBy()));
            sb.append('}');
        }
        sb.append(']');
        final Explanation.Session session = explanation.session();
        if (session != null)
        {
            // Only for a request with a session (4.6): null when its decision has no session block.
            sb.append(line).append(compact ? "" : " ").append("\"session\"").append(colon);
            if (session.ignored())
            {
                sb.append("null");
            }
            else
            {
                sb.append("{\"previous\"").append(colon).append(JsonText.string(session.previous())).append(comma)
                    .append("\"rule\"").append(colon).append(JsonText.string(session.rule())).append('}');
            }
        }
        sb.append('}');
        if (!compact)
        {
            sb.append('\n');
        }
        return sb.toString();
    }

    private static void factors(
        final StringBuilder sb, final List<Double> values, final int factors, final String colon, final String comma)
    {
        sb.append('{');
        for (int f = 0; f < factors; f++)
        {
            if (f > 0)
            {
                sb.append(comma);
            }
            sb.append('"').append(Factor.label(f)).append('"').append(colon).append(JsonText.number(values.get(f)));
        }
        sb.append('}');
    }
}
