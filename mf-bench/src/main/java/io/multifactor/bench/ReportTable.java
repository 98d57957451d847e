package io.multifactor.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Renders benchmark results as a Markdown table: benchmark, parameters, mean ns/op with its error, B/op, the
 * budget and its verdict, and the time ratios against the baselines measured in the same run.
 * <p>
 * A baseline is the method named {@value #REFERENCE} or {@value #HAND_LOOP} of the same benchmark class, with the same
 * parameters. "speedup vs reference" is the reference's time divided by this row's (above 1: faster than the
 * reference); "x hand loop" is this row's time divided by the hand loop's (how far from the practical limit).
 * <p>
 * This class is stateless and threadsafe.
 */
public final class ReportTable
{
    /** Method name of the reference-implementation baseline in a benchmark class. */
    public static final String REFERENCE = "reference";
    /** Method name of the hand-written-loop baseline in a benchmark class. */
    public static final String HAND_LOOP = "handLoop";

    private ReportTable()
    {
    }

    /**
     * @param rows results, in the order to print them.
     * @return the Markdown table, one line per row after the header, ending with a newline.
     */
    public static String render(final List<ReportRow> rows)
    {
        return render(rows, true);
    }

    /**
     * @param rows results, in the order to print them.
     * @param judgeTime whether the run can judge time and ratio budgets (see
     *     {@link Budget#verdict(double, double, double, boolean)}).
     * @return the Markdown table, one line per row after the header, ending with a newline.
     */
    public static String render(final List<ReportRow> rows, final boolean judgeTime)
    {
        final List<String[]> cells = new ArrayList<>();
        cells.add(new String[] {
            "benchmark", "params", "ns/op", "error", "B/op", "budget", "verdict", "speedup vs reference", "x hand loop" });
        for (final ReportRow row : rows)
        {
            final Budget budget = Budgets.of(row.benchmark(), row.params());
            cells.add(new String[] {
                row.benchmark(),
                row.paramsLabel(),
                formatNs(row.nsPerOp()),
                Double.isNaN(row.errorNs()) ? "-" : "± " + formatNs(row.errorNs()),
                Double.isNaN(row.bytesPerOp()) ? "-" : String.format(Locale.ROOT, "%.3f", row.bytesPerOp()),
                budget.label(),
                budget.verdict(row.nsPerOp(), row.bytesPerOp(), ratio(row, rows, HAND_LOOP), judgeTime),
                formatRatio(1.0 / ratio(row, rows, REFERENCE)),
                formatRatio(ratio(row, rows, HAND_LOOP)) });
        }
        final int columns = cells.get(0).length;
        final int[] widths = new int[columns];
        for (final String[] line : cells)
        {
            for (int c = 0; c < columns; c++)
            {
                widths[c] = Math.max(widths[c], line[c].length());
            }
        }
        final StringBuilder out = new StringBuilder();
        for (int r = 0; r < cells.size(); r++)
        {
            appendLine(out, cells.get(r), widths);
            if (r == 0)
            {
                final String[] rule = new String[columns];
                for (int c = 0; c < columns; c++)
                {
                    rule[c] = "-".repeat(widths[c]);
                }
                appendLine(out, rule, widths);
            }
        }
        return out.toString();
    }

    /**
     * @param rows results.
     * @return how many rows fail their budget.
     */
    public static int failures(final List<ReportRow> rows)
    {
        return failures(rows, true);
    }

    /**
     * @param rows results.
     * @param judgeTime whether the run can judge time and ratio budgets.
     * @return how many rows fail what the run judges.
     */
    public static int failures(final List<ReportRow> rows, final boolean judgeTime)
    {
        int failures = 0;
        for (final ReportRow row : rows)
        {
            if (Budgets.of(row.benchmark(), row.params())
                .verdict(row.nsPerOp(), row.bytesPerOp(), ratio(row, rows, HAND_LOOP), judgeTime).startsWith("FAIL"))
            {
                failures++;
            }
        }
        return failures;
    }

    /**
     * Time of {@code row} divided by the time of the named baseline of its class with the same parameters.
     *
     * @param row a result.
     * @param rows every result of the run.
     * @param baselineMethod {@link #REFERENCE} or {@link #HAND_LOOP}.
     * @return the ratio, or NaN when there is no such baseline or {@code row} is that baseline.
     */
    public static double ratio(final ReportRow row, final List<ReportRow> rows, final String baselineMethod)
    {
        if (row.method().equals(baselineMethod))
        {
            return Double.NaN;
        }
        final String baseline = row.benchmarkClass() + "." + baselineMethod;
        for (final ReportRow other : rows)
        {
            if (other.benchmark().equals(baseline) && other.params().equals(row.params()))
            {
                return row.nsPerOp() / other.nsPerOp();
            }
        }
        return Double.NaN;
    }

    /**
     * @param ns a time in nanoseconds.
     * @return {@code 12.3 ns} below 10 us, {@code 45.6 us} from there.
     */
    public static String formatNs(final double ns)
    {
        return ns >= 10_000.0 ?
            String.format(Locale.ROOT, "%.1f us", ns / 1000.0) :
            String.format(Locale.ROOT, "%.1f ns", ns);
    }

    /**
     * @param bytes a budget in bytes per operation.
     * @return such as {@code 0 B}.
     */
    public static String formatBytes(final double bytes)
    {
        return String.format(Locale.ROOT, "%.0f B", bytes);
    }

    /**
     * @param ratio a ratio, NaN when there is none.
     * @return two decimals below 10, one below 100, none above; {@code -} for NaN.
     */
    public static String formatRatio(final double ratio)
    {
        if (Double.isNaN(ratio))
        {
            return "-";
        }
        final String format = ratio < 10.0 ? "%.2f" : ratio < 100.0 ? "%.1f" : "%.0f";
        return String.format(Locale.ROOT, format, ratio);
    }

    private static void appendLine(final StringBuilder out, final String[] line, final int[] widths)
    {
        out.append('|');
        for (int c = 0; c < line.length; c++)
        {
            out.append(' ').append(line[c]).append(" ".repeat(widths[c] - line[c].length())).append(" |");
        }
        out.append('\n');
    }
}
