package io.multifactor.tools;

import io.multifactor.api.Factor;
import io.multifactor.kernel.explain.Explanation;

/**
 * Writes an {@link Explanation} as a table for people: the outcome and weights, then one row per candidate with its
 * signals, drop reason, normalized factors and score.
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
        sb.append("weights  ");
        for (int f = 0; f < Factor.COUNT; f++)
        {
            sb.append(' ').append(Factor.label(f)).append(' ').append(Format.fixed(explanation.weights().get(f), 3));
        }
        sb.append("   (latency = p").append(explanation.percentile()).append(" of TPOT, else TTFT)\n\n");

        int width = "model".length();
        int dropWidth = "dropped".length();
        for (final Explanation.Candidate c : explanation.candidates())
        {
            width = Math.max(width, c.model().length());
            dropWidth = Math.max(dropWidth, c.dropped() == null ? 1 : c.dropped().length());
        }
        final String rowFormat = "%-2s%-" + width + "s  %-" + dropWidth + "s  %7s  %7s  %10s  %9s  %9s  %11s  %8s  %5s %5s %5s %5s%n";
        sb.append(String.format(java.util.Locale.ROOT, rowFormat, "", "model", "dropped", "score", "quality",
            "latency_ms", "tpot_ms", "ttft_ms", "cost_per_1m", "inflight", "nQ", "nL", "nC", "nN"));
        for (final Explanation.Candidate c : explanation.candidates())
        {
            final boolean chosen = c.model().equals(explanation.selected());
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
                Format.fixed(c.normalized().get(Factor.QUALITY), 2),
                Format.fixed(c.normalized().get(Factor.LATENCY), 2),
                Format.fixed(c.normalized().get(Factor.COST), 2),
                Format.fixed(c.normalized().get(Factor.LOAD), 2)));
        }
        sb.append("\n* selected; nQ nL nC nN: normalized quality, latency, cost, load before weighting (higher is better)\n");
        return sb.toString();
    }
}
