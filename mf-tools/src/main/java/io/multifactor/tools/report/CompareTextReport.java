package io.multifactor.tools.report;

import io.multifactor.sim.ComparisonFigures;

import java.util.List;
import java.util.Locale;

/**
 * The side-by-side table of {@code bin/mf simulate --compare}: one row per configuration run on the same profile and
 * seed, with its SLO attainment, p99 TTFT, the largest share one model got in any refresh period, and for each model
 * that degrades in the profile, the seconds from its recovery to its first traffic.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class CompareTextReport
{
    private CompareTextReport()
    {
    }

    /**
     * @param labels a label per run (the configuration file as given).
     * @param runs the figures of each run, same models in the same order.
     * @return the table, lines ending with a newline.
     */
    public static String render(final List<String> labels, final List<ComparisonFigures> runs)
    {
        int width = "configuration".length();
        for (final String label : labels)
        {
            width = Math.max(width, label.length());
        }
        final ComparisonFigures first = runs.get(0);
        final StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%-" + width + "s  %9s  %12s  %16s", "configuration", "SLO met",
            "p99 TTFT ms", "max period share"));
        for (int m = 0; m < first.modelNames().size(); m++)
        {
            if (first.recovers(m))
            {
                out.append(String.format(Locale.ROOT, "  %s", recoveryHeader(first.modelNames().get(m))));
            }
        }
        out.append('\n');
        for (int r = 0; r < runs.size(); r++)
        {
            final ComparisonFigures run = runs.get(r);
            out.append(String.format(Locale.ROOT, "%-" + width + "s  %8.1f%%  %12.1f  %15.1f%%", labels.get(r),
                100.0 * run.sloAttainment(), run.p99TtftMs(), 100.0 * run.maxPeriodShare()));
            for (int m = 0; m < first.modelNames().size(); m++)
            {
                if (first.recovers(m))
                {
                    final double s = run.recoveryToTrafficS(m);
                    final String header = recoveryHeader(first.modelNames().get(m));
                    out.append(String.format(Locale.ROOT, "  %" + header.length() + "s",
                        Double.isNaN(s) ? "none" : String.format(Locale.ROOT, "%.1f", s)));
                }
            }
            out.append('\n');
        }
        out.append(String.format(Locale.ROOT, "%nSLO met: share of requests within their decision's ceilings. " +
            "max period share: the most one model got of a refresh period's selections (periods with at least %d). " +
            "recovery to traffic: seconds from the end of a model's degraded window to its first selection after it.%n",
            ComparisonFigures.MIN_PERIOD_SELECTIONS));
        return out.toString();
    }

    private static String recoveryHeader(final String model)
    {
        return "recovery to traffic s (" + model + ")";
    }
}
