package io.multifactor.tools;

import io.multifactor.api.Factor;
import io.multifactor.kernel.explain.Explanation;

/**
 * Writes an {@link Explanation} as exactly the JSON object the README documents: fields in the documented order,
 * numbers as doubles except {@code inflight}, {@code null} for a missing value. Other programs parse this output.
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
     * @return the JSON object, laid out as the README shows, ending with a newline.
     */
    public static String render(final Explanation explanation)
    {
        final StringBuilder sb = new StringBuilder(512);
        sb.append("{\"decision\": ").append(string(explanation.decision())).append(",\n");
        sb.append(" \"outcome\": ").append(string(explanation.outcome())).append(",\n");
        sb.append(" \"selected\": ").append(string(explanation.selected())).append(",\n");
        sb.append(" \"objective\": ").append(string(explanation.objective())).append(",\n");
        sb.append(" \"weights\": ");
        factors(sb, explanation.weights());
        sb.append(",\n");
        sb.append(" \"candidates\": [");
        for (int i = 0; i < explanation.candidates().size(); i++)
        {
            final Explanation.Candidate c = explanation.candidates().get(i);
            sb.append(i == 0 ? "\n   " : ",\n   ");
            sb.append("{\"model\": ").append(string(c.model()));
            sb.append(", \"dropped\": ").append(string(c.dropped()));
            sb.append(", \"score\": ").append(number(c.score())).append(",\n");
            sb.append("    \"quality\": ").append(number(c.quality()));
            sb.append(", \"latency_ms\": ").append(number(c.latencyMs()));
            sb.append(", \"tpot_ms\": ").append(number(c.tpotMs()));
            sb.append(", \"ttft_ms\": ").append(number(c.ttftMs())).append(",\n");
            sb.append("    \"cost_per_1m\": ").append(number(c.costPer1M()));
            sb.append(", \"inflight\": ").append(c.inflight()).append(",\n");
            sb.append("    \"normalized\": ");
            factors(sb, c.normalized());
            sb.append(",\n    \"eliminated_by\": ").append(string(c.eliminatedBy()));
            sb.append('}');
        }
        sb.append("]}\n");
        return sb.toString();
    }

    private static void factors(final StringBuilder sb, final java.util.List<Double> values)
    {
        sb.append('{');
        for (int f = 0; f < Factor.COUNT; f++)
        {
            if (f > 0)
            {
                sb.append(", ");
            }
            sb.append('"').append(Factor.label(f)).append("\": ").append(number(values.get(f)));
        }
        sb.append('}');
    }

    /**
     * @param value a number, NaN when missing.
     * @return its JSON text: a double such as {@code 51.0}, or {@code null}.
     */
    static String number(final double value)
    {
        return Double.isNaN(value) || Double.isInfinite(value) ? "null" : Double.toString(value);
    }

    /**
     * @param value a string or {@code null}.
     * @return its JSON text, quoted and escaped, or {@code null}.
     */
    static String string(final String value)
    {
        if (value == null)
        {
            return "null";
        }
        final StringBuilder sb = new StringBuilder(value.length() + 2).append('"');
        for (int i = 0; i < value.length(); i++)
        {
            final char c = value.charAt(i);
            switch (c)
            {
                case '"':
                    sb.append("\\\"");
                    break;
                case '\\':
                    sb.append("\\\\");
                    break;
                case '\n':
                    sb.append("\\n");
                    break;
                case '\r':
                    sb.append("\\r");
                    break;
                case '\t':
                    sb.append("\\t");
                    break;
                default:
                    if (c < 0x20)
                    {
                        sb.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int)c));
                    }
                    else
                    {
                        sb.append(c);
                    }
            }
        }
        return sb.append('"').toString();
    }
}
