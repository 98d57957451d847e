package io.multifactor.bench.verdict;

import io.multifactor.bench.Budget;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Pools the forks of a verdict run and prints its verdicts as Markdown: one table of the release set's goals, each
 * with its pooled estimate, 95% bootstrap interval ({@link PooledInterval}) and verdict, then the allocation of every
 * row, then, when a baseline jar ran in the same rounds, every row's time against the baseline's.
 * <p>
 * The run's directory holds {@code steps.tsv}, written by {@code mf-bench/verdicts.sh}: one line per JMH step,
 * {@code LABEL TAB ROUND TAB LOAD TAB JSON_FILE}, where LOAD is the 1-minute load average when the step started. A step
 * that started at or above {@value #BUSY_LOAD} marks its rows busy: their verdicts are printed and marked, and decide
 * nothing.
 * <p>
 * Usage: {@code VerdictReport RUN_DIR}. This class runs on the main thread only.
 */
public final class VerdictReport
{
    /** The load average at or above which a step counts as busy. */
    public static final double BUSY_LOAD = 1.5;
    /** Label of the jar under test. */
    public static final String NEW = "new";
    /** Label of a baseline jar run in the same rounds. */
    public static final String BASE = "base";

    private VerdictReport()
    {
    }

    /**
     * @param args the run's directory.
     * @throws IOException when a file of the run cannot be read.
     */
    public static void main(final String[] args) throws IOException
    {
        if (args.length != 1)
        {
            System.err.println("usage: VerdictReport RUN_DIR");
            System.exit(2);
        }
        System.out.print(render(load(Path.of(args[0])), ReleaseGoals.all()));
    }

    /**
     * Reads every step of a run.
     *
     * @param runDir the run's directory, with {@code steps.tsv}.
     * @return the pooled forks.
     * @throws IOException when a file cannot be read, or a line of {@code steps.tsv} is malformed (named).
     */
    public static ForkScores load(final Path runDir) throws IOException
    {
        final ForkScores scores = new ForkScores();
        final Path steps = runDir.resolve("steps.tsv");
        final List<String> lines = Files.readAllLines(steps, StandardCharsets.UTF_8);
        for (int i = 0; i < lines.size(); i++)
        {
            final String line = lines.get(i);
            if (line.isBlank())
            {
                continue;
            }
            final String[] cells = line.split("\t");
            if (cells.length != 4)
            {
                throw new IOException(steps + ":" + (i + 1) + ": expected LABEL, ROUND, LOAD, JSON_FILE: " + line);
            }
            final double load;
            try
            {
                load = Double.parseDouble(cells[2]);
            }
            catch (final NumberFormatException e)
            {
                throw new IOException(steps + ":" + (i + 1) + ": load is not a number: " + cells[2], e);
            }
            scores.addJmhJson(cells[0], runDir.resolve(cells[3]), load >= BUSY_LOAD);
        }
        return scores;
    }

    /**
     * @param scores the pooled forks.
     * @param goals the goals to judge.
     * @return the Markdown tables.
     */
    public static String render(final ForkScores scores, final List<Goal> goals)
    {
        final StringBuilder out = new StringBuilder();
        out.append("| goal | measured | 95% interval | limit | forks | verdict |\n");
        out.append("|---|---|---|---|---|---|\n");
        for (final Goal goal : goals)
        {
            final String measuredKey = ForkScores.rowKey(NEW, head(goal.measured()), tail(goal.measured()));
            final double[] measured = scores.forkMeans(measuredKey);
            final boolean hasBaseline = goal.kind() != Goal.Kind.ABSOLUTE;
            final String baselineKey =
                hasBaseline ? ForkScores.rowKey(NEW, head(goal.baseline()), tail(goal.baseline())) : "";
            final double[] baseline = hasBaseline ? scores.forkMeans(baselineKey) : new double[] { 0 };
            if (measured.length == 0 || baseline.length == 0)
            {
                out.append("| ").append(goal.title()).append(" | not run | | ").append(limit(goal))
                    .append(" | | not run |\n");
                continue;
            }
            final PooledInterval interval;
            switch (goal.kind())
            {
                case RATIO:
                    interval = PooledInterval.ratio(measured, baseline);
                    break;
                case DIFFERENCE:
                    interval = PooledInterval.difference(measured, baseline);
                    break;
                default:
                    interval = PooledInterval.mean(measured);
                    break;
            }
            final boolean busy = scores.busy(measuredKey) || (hasBaseline && scores.busy(baselineKey));
            final String verdict = interval.verdictAtMost(goal.limit());
            out.append("| ").append(goal.title())
                .append(" | ").append(measuredText(goal, measured, baseline, interval))
                .append(" | ").append(format(goal, interval.lower())).append(", ").append(format(goal, interval.upper()))
                .append(" | ").append(limit(goal))
                .append(" | ").append(measured.length).append(hasBaseline ? " / " + baseline.length : "")
                .append(" | ").append(goal.decides() ? "**" + verdict + "**" : verdict + " (information)")
                .append(busy ? " busy" : "")
                .append(" |\n");
        }
        renderAllocation(scores, out);
        renderAgainstBase(scores, out);
        return out.toString();
    }

    private static void renderAllocation(final ForkScores scores, final StringBuilder out)
    {
        // The 0 B/op rule of the single-run profiles, so a row allocates here exactly when it fails there.
        final Budget zeroBytes = new Budget(Double.NaN, 0.0);
        final List<String> allocating = new ArrayList<>();
        double worst = Double.NaN;
        int rows = 0;
        for (final String key : scores.rows())
        {
            final double bytes = scores.maxBytesPerOp(key);
            if (!key.startsWith(NEW + " ") || Double.isNaN(bytes))
            {
                continue;
            }
            rows++;
            worst = Double.isNaN(worst) ? bytes : Math.max(worst, bytes);
            final double ns = PooledInterval.mean(scores.forkMeans(key)).estimate();
            if (!zeroBytes.verdict(ns, bytes).startsWith("PASS"))
            {
                allocating.add(String.format(Locale.ROOT, "%s (%.4f B/op)", key.substring(NEW.length() + 1), bytes));
            }
        }
        out.append('\n');
        if (rows == 0)
        {
            out.append("Allocation: not measured (no -prof gc).\n");
            return;
        }
        out.append(String.format(Locale.ROOT,
            "Allocation, %d rows, largest fork mean %.4f B/op: 0 B/op **%s**%s (JMH's own bookkeeping, under %.1f B/op " +
            "or %.0f KB/s, counts as none).%n",
            rows, worst, allocating.isEmpty() ? "met" : "failed",
            allocating.isEmpty() ? "" : " by " + String.join(", ", allocating),
            Budget.ZERO_BYTES_TOLERANCE, Budget.ZERO_BYTES_PER_SECOND_TOLERANCE / 1024));
    }

    private static void renderAgainstBase(final ForkScores scores, final StringBuilder out)
    {
        boolean header = false;
        for (final String key : scores.rows())
        {
            if (!key.startsWith(NEW + " "))
            {
                continue;
            }
            final String row = key.substring(NEW.length() + 1);
            final double[] base = scores.forkMeans(BASE + " " + row);
            if (base.length == 0)
            {
                continue;
            }
            if (!header)
            {
                out.append("\n| row | new / base | 95% interval | forks | slower beyond the interval? |\n");
                out.append("|---|---|---|---|---|\n");
                header = true;
            }
            final double[] measured = scores.forkMeans(key);
            final PooledInterval interval = PooledInterval.ratio(measured, base);
            out.append(String.format(Locale.ROOT, "| %s | %.3fx (%.1f / %.1f ns) | %.3f, %.3f | %d / %d | %s |%n",
                row, interval.estimate(), PooledInterval.mean(measured).estimate(), PooledInterval.mean(base).estimate(),
                interval.lower(), interval.upper(), measured.length, base.length,
                interval.lower() > 1.0 ? "**yes**" : "no"));
        }
    }

    private static String measuredText(
        final Goal goal, final double[] measured, final double[] baseline, final PooledInterval interval)
    {
        final double m = PooledInterval.mean(measured).estimate();
        switch (goal.kind())
        {
            case RATIO:
                return String.format(Locale.ROOT, "%.1f / %.1f ns = %.3fx", m, PooledInterval.mean(baseline).estimate(),
                    interval.estimate());
            case DIFFERENCE:
                return String.format(Locale.ROOT, "%.1f - %.1f ns = %+.1f ns", m,
                    PooledInterval.mean(baseline).estimate(), interval.estimate());
            default:
                return String.format(Locale.ROOT, "%.1f ns", m);
        }
    }

    private static String limit(final Goal goal)
    {
        return goal.kind() == Goal.Kind.RATIO ?
            String.format(Locale.ROOT, "<= %.2fx", goal.limit()) :
            String.format(Locale.ROOT, "<= %s ns", trim(goal.limit()));
    }

    private static String format(final Goal goal, final double value)
    {
        return goal.kind() == Goal.Kind.RATIO ?
            String.format(Locale.ROOT, "%.3f", value) : String.format(Locale.ROOT, "%.1f", value);
    }

    private static String trim(final double value)
    {
        return value == Math.rint(value) ? Long.toString((long)value) : Double.toString(value);
    }

    private static String head(final String row)
    {
        final int space = row.indexOf(' ');
        return space < 0 ? row : row.substring(0, space);
    }

    private static String tail(final String row)
    {
        final int space = row.indexOf(' ');
        return space < 0 ? "" : row.substring(space + 1);
    }
}
