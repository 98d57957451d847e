package io.multifactor.tools;

import io.multifactor.api.Factor;
import io.multifactor.kernel.explain.Explanation;

/**
 * Writes an {@link Explanation} as a table for people: the outcome, the objective (with its priority and tolerance, or
 * its tie band and tie break) and the weights, then one row per candidate with its signals, drop reason, normalized
 * factors, score and, for the lexicographic objective, the factor that eliminated it.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class ExplainTable
{
    private ExplainTable()
    {
    }

    /**
     * @param explanation the selection to print.
     * @return the table, ending with a newline.
     */
    public static String render(final Explanation explanation)
    {
        final StringBuilder sb = new StringBuilder(1024);
        sb.append("decision  ").append(explanation.decision()).append('\n');
        sb.append("outcome   ").append(explanation.outcome()).append('\n');
        sb.append("selected  ").append(explanation.selected() == null ? "(none)" : explanation.selected()).append('\n');
        final Explanation.Session session = explanation.session();
        if (session != null)
        {
            sb.append("session   ").append(session.ignored() ? "(ignored: the decision has no session block)" :
                "rule " + session.rule() + "  previous " + (session.previous() == null ? "(none)" : session.previous()))
                .append('\n');
        }
        final boolean lexicographic = "lexicographic".equals(explanation.objective());
        sb.append("objective ").append(explanation.objective());
        if (lexicographic)
        {
            sb.append("  priority ").append(String.join(" > ", explanation.priority()))
                .append("  tolerance ").append(Format.fixed(explanation.tolerance(), 3));
        }
        else if (explanation.tieBand() > 0.0)
        {
            sb.append("  tie_band ").append(Format.fixed(explanation.tieBand(), 3));
        }
        sb.append("  tie_break ").append(explanation.tieBreak()).append('\n');
        sb.append("weights  ");
        final int factors = explanation.extended() ? Factor.COUNT : Factor.SEED_COUNT;
        for (int f = 0; f < factors; f++)
        {
            sb.append(' ').append(Factor.label(f)).append(' ').append(Format.fixed(explanation.weights().get(f), 3));
        }
        sb.append(lexicographic ? "   (ignored: lexicographic)" : "").append("   (latency = p")
            .append(explanation.percentile()).append(latencyLegend(explanation.latencyMetric())).append(")\n\n");

        int width = "model".length();
        int dropWidth = "dropped".length();
        for (final Explanation.Candidate c : explanation.candidates())
        {
            width = Math.max(width, c.model().length());
            dropWidth = Math.max(dropWidth, c.dropped() == null ? 1 : c.dropped().length());
        }
        // The factors beyond the seed's get columns only when a candidate has one or the decision weighs one.
        boolean beyondSeed = false;
        for (int f = Factor.SEED_COUNT; f < Factor.COUNT; f++)
        {
            beyondSeed |= explanation.extended() && explanation.weights().get(f) > 0.0;
        }
        boolean tokens = false;
        for (final Explanation.Candidate c : explanation.candidates())
        {
            for (int f = Factor.SEED_COUNT; f < Factor.COUNT; f++)
            {
                beyondSeed |= !Double.isNaN(c.value(f));
            }
            tokens |= c.inflightTokens() != 0;
        }
        final String rowFormat = "%-2s%-" + width + "s  %-" + dropWidth + "s  %7s  %7s  %10s  %9s  %9s  %11s  %8s%s%s" +
            "  %5s %5s %5s %5s%s" + (lexicographic ? "  %s%n" : "%s%n");
        final StringBuilder valuesHeader = new StringBuilder();
        final StringBuilder normalizedHeader = new StringBuilder();
        final StringBuilder legendSymbols = new StringBuilder();
        final StringBuilder legendTitles = new StringBuilder();
        for (int f = Factor.SEED_COUNT; beyondSeed && f < Factor.COUNT; f++)
        {
            valuesHeader.append(String.format(java.util.Locale.ROOT, valueFormat(f), Factor.label(f)));
            normalizedHeader.append(String.format(java.util.Locale.ROOT, " %5s", "n" + Factor.symbol(f)));
            legendSymbols.append(" n").append(Factor.symbol(f));
            legendTitles.append(", ").append(Factor.title(f));
        }
        sb.append(String.format(java.util.Locale.ROOT, rowFormat, "", "model", "dropped", "score", "quality",
            "latency_ms", "tpot_ms", "ttft_ms", "cost_per_1m", "inflight",
            tokens ? String.format(java.util.Locale.ROOT, "  %15s", "inflight_tokens") : "",
            valuesHeader, "nQ", "nL", "nC", "nN", normalizedHeader, lexicographic ? "eliminated_by" : ""));
        for (final Explanation.Candidate c : explanation.candidates())
        {
            final boolean chosen = c.model().equals(explanation.selected());
            final StringBuilder values = new StringBuilder();
            final StringBuilder normalized = new StringBuilder();
            for (int f = Factor.SEED_COUNT; beyondSeed && f < Factor.COUNT; f++)
            {
                values.append(String.format(java.util.Locale.ROOT, valueFormat(f),
                    Format.fixed(c.value(f), Factor.decimals(f))));
                normalized.append(String.format(java.util.Locale.ROOT, " %5s", Format.fixed(c.normalized().get(f), 2)));
            }
            sb.append(String.format(java.util.Locale.ROOT, rowFormat,
                chosen ? "*" : "",
                c.model(),
                c.dropped() == null ? "-" : c.dropped(),
                Format.fixed(c.score(), 4),
                Format.fixed(c.quality(), 3),
                Format.fixed(c.latencyMs(), 1),
                Format.fixed(c.tpotMs(), 1),
                Format.fixed(c.ttftMs(), 1),
                Format.fixed(c.costPer1M(), 3),
                Long.toString(c.inflight()),
                tokens ? String.format(java.util.Locale.ROOT, "  %15d", c.inflightTokens()) : "",
                values,
                Format.fixed(c.normalized().get(Factor.QUALITY), 2),
                Format.fixed(c.normalized().get(Factor.LATENCY), 2),
                Format.fixed(c.normalized().get(Factor.COST), 2),
                Format.fixed(c.normalized().get(Factor.LOAD), 2),
                normalized,
                lexicographic ? (c.eliminatedBy() == null ? "-" : c.eliminatedBy()) : ""));
        }
        sb.append("\n* selected; nQ nL nC nN").append(legendSymbols).append(": normalized quality, latency, cost, load")
            .append(legendTitles).append(" before weighting (higher is better)\n");
        if (lexicographic)
        {
            sb.append("score: the normalized first priority factor; eliminated_by: the factor that left a survivor out " +
                "of the finalists\n");
        }
        return sb.toString();
    }

    /** @return the format of a factor's value column: right-aligned in its label's width, at least 6. */
    private static String valueFormat(final int factor)
    {
        return "  %" + Math.max(6, Factor.label(factor).length()) + "s";
    }

    private static String latencyLegend(final String latencyMetric)
    {
        switch (latencyMetric)
        {
            case "tpot":
                return " of TPOT";
            case "ttft":
                return " of TTFT";
            default:
                return " of TPOT, else TTFT";
        }
    }
}
