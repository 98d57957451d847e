package io.multifactor.tools.report;

import io.multifactor.sim.suite.LoadKnee;
import io.multifactor.sim.suite.ScenarioResult;
import io.multifactor.sim.suite.SuiteColumn;

import java.util.Locale;

/**
 * The tables of {@code bin/mf compare --suite}: per scenario a heading (its knee, and the bound it hit if any), then
 * one row per policy with every {@link SuiteColumn} as its range over the seeds ({@code min-max}, one value when they
 * are equal), the best of each column marked with {@value #BEST}.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class SuiteTextReport
{
    /** The mark of a column's best value (by the mean over the seeds). */
    public static final String BEST = "*";

    private SuiteTextReport()
    {
    }

    /**
     * @param result one scenario's result.
     * @param seeds how many seeds each row ran.
     * @param measuredS measured seconds per run.
     * @return its heading and table, lines ending with a newline.
     */
    public static String render(final ScenarioResult result, final int seeds, final double measuredS)
    {
        final StringBuilder out = new StringBuilder();
        final LoadKnee.Knee knee = result.knee();
        out.append(String.format(Locale.ROOT, "%s: knee %.1f requests/s (round_robin, seed 1)%s; %d seed%s x %.0f s " +
            "measured%s%n", result.scenario().name(), knee.ratePerS(),
            knee.bound() == LoadKnee.FOUND ? "" : ", " + knee.boundNote(), seeds, seeds == 1 ? "" : "s", measuredS,
            result.scenario().replicas() > 1 ? ", " + result.scenario().replicas() + " router replicas" : ""));
        return out.append(table(result)).toString();
    }

    /**
     * @param result one scenario's result (of the simulator, or of the runs through the gateway).
     * @return its table without a heading: one row per policy, lines ending with a newline.
     */
    public static String table(final ScenarioResult result)
    {
        final StringBuilder out = new StringBuilder();
        final SuiteColumn[] columns = SuiteColumn.values();
        final String[][] cells = new String[result.policies().size()][columns.length];
        final int[] widths = new int[columns.length];
        int policyWidth = "policy".length();
        for (int p = 0; p < cells.length; p++)
        {
            policyWidth = Math.max(policyWidth, result.policies().get(p).length());
            for (final SuiteColumn column : columns)
            {
                final String cell = range(result, p, column) + (result.best(p, column) ? BEST : "");
                cells[p][column.ordinal()] = cell;
                widths[column.ordinal()] = Math.max(widths[column.ordinal()], Math.max(cell.length(),
                    column.title().length()));
            }
        }
        out.append(pad("policy", policyWidth));
        for (final SuiteColumn column : columns)
        {
            out.append("  ").append(pad(column.title(), widths[column.ordinal()]));
        }
        trimEnd(out);
        out.append('\n');
        for (int p = 0; p < cells.length; p++)
        {
            out.append(pad(result.policies().get(p), policyWidth));
            for (final SuiteColumn column : columns)
            {
                out.append("  ").append(pad(cells[p][column.ordinal()], widths[column.ordinal()]));
            }
            trimEnd(out);
            out.append('\n');
        }
        return out.toString();
    }

    /**
     * @param result a scenario's result.
     * @param policy a row.
     * @param column a column.
     * @return the range over the seeds as printed: {@code min-max}, one value when equal, {@code -} without a value.
     */
    public static String range(final ScenarioResult result, final int policy, final SuiteColumn column)
    {
        final String min = column.format(result.min(policy, column));
        final String max = column.format(result.max(policy, column));
        return min.equals(max) ? min : min + "-" + max;
    }

    // No trailing blanks on a line: the last column is padded like the others.
    private static void trimEnd(final StringBuilder out)
    {
        while (out.length() > 0 && out.charAt(out.length() - 1) == ' ')
        {
            out.setLength(out.length() - 1);
        }
    }

    private static String pad(final String text, final int width)
    {
        final StringBuilder out = new StringBuilder(text);
        while (out.length() < width)
        {
            out.append(' ');
        }
        return out.toString();
    }
}
