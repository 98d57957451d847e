package io.multifactor.tools.report;

import io.multifactor.sim.IntervalRow;
import io.multifactor.sim.ModelBehaviour;
import io.multifactor.sim.ServingFigures;
import io.multifactor.sim.SimulationProfile;
import io.multifactor.sim.SimulationReport;

import java.util.List;
import java.util.Locale;

/**
 * Formats a simulation for people: a table header, one line per interval (per model: share of traffic, p95 TTFT and
 * TPOT of its samples in the interval, SLO drops), and the closing summary. Numbers use {@link Locale#ROOT} so the text
 * is the same on every machine.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class TextReport
{
    private static final int MODEL_COLUMN_WIDTH = 31;

    private TextReport()
    {
    }

    /**
     * @param modelNames the models, in report order.
     * @return two header lines (model names, then column names), each ending with a newline.
     */
    public static String header(final List<String> modelNames)
    {
        final StringBuilder names = new StringBuilder(String.format(Locale.ROOT, "%-13s %5s", "", ""));
        final StringBuilder columns = new StringBuilder(String.format(Locale.ROOT, "%-13s %5s", "time (s)", "reqs"));
        for (final String name : modelNames)
        {
            names.append(" | ").append(String.format(Locale.ROOT, "%-" + MODEL_COLUMN_WIDTH + "s", fit(name)));
            columns.append(" | ").append(String.format(Locale.ROOT, "%5s %8s %8s %6s", "share", "ttft p95", "tpot p95",
                "drops"));
        }
        names.append(" |");
        columns.append(" | fallbacks");
        return names.toString().stripTrailing() + '\n' + columns + '\n';
    }

    /**
     * @param row one interval.
     * @return its line, ending with a newline.
     */
    public static String line(final IntervalRow row)
    {
        return line(row, null);
    }

    /**
     * @param row one interval.
     * @param profile the traffic of the run, to note when a model degrades and recovers; {@code null} for no notes.
     * @return its line, ending with a newline.
     */
    public static String line(final IntervalRow row, final SimulationProfile profile)
    {
        final StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%5.0f - %5.0f %5d",
            row.startS(), row.endS(), row.requests()));
        for (int m = 0; m < row.modelNames().size(); m++)
        {
            sb.append(" | ").append(String.format(Locale.ROOT, "%4.0f%% %8s %8s %6d", row.share(m) * 100.0,
                ms(row.p95TtftMs(m)), ms(row.p95TpotMs(m)), row.sloDrops(m)));
        }
        sb.append(" | ").append(String.format(Locale.ROOT, "%9d", row.fallbacks()));
        if (profile != null)
        {
            notes(row, profile, sb);
        }
        return sb.append('\n').toString();
    }

    /** @return what the columns of an interval line mean, each line ending with a newline. */
    public static String legend()
    {
        return "share: of the interval's requests; ttft/tpot p95: of the samples the model reported in the interval\n" +
            "(- when none); drops: selections in which an SLO ceiling removed the model from the candidates, or in which\n" +
            "it was full (max_inflight) when the lease was taken; peak in flight (summary): its largest count at a lease.\n";
    }

    /**
     * @param report a finished run.
     * @return the summary block, each line ending with a newline.
     */
    public static String summary(final SimulationReport report)
    {
        final StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "summary: %.0f simulated s, seed %d, SLO ceilings %s%n", report.durationS(),
            report.seed(), report.ceilingsEnforced() ? "on" : "off (measured against the configured ones)"));
        sb.append(String.format(Locale.ROOT, "  requests          %d (fallbacks %d, failed %d)%n", report.requests(),
            report.fallbacks(), report.failed()));
        sb.append(String.format(Locale.ROOT, "  SLO attainment    %.1f%% (%d of %d met their decision's TTFT and TPOT " +
            "ceilings)%n", report.sloAttainment() * 100.0, report.sloMet(), report.requests()));
        sb.append(String.format(Locale.ROOT, "  cost per 1k reqs  $%.4f%n", report.costPer1kRequestsUsd()));
        for (int m = 0; m < report.modelNames().size(); m++)
        {
            sb.append(String.format(Locale.ROOT, "  %-17s %5.1f%% of requests (%d), SLO drops %d, peak in flight %d%n",
                report.modelNames().get(m), report.share(m) * 100.0, report.selected(m), report.sloDrops(m),
                report.peakInflight(m)));
        }
        return sb.toString();
    }

    /**
     * The models simulated server by server: per server its requests, prefix hit rate and TTFT; per model and overall
     * the hit rate (the servers' hits / queries, in tokens) and the input tokens per simulated second.
     *
     * @param serving what the servers measured ({@link ServingFigures#any()}).
     * @return the block, each line ending with a newline; empty when no model was simulated server by server.
     */
    public static String serving(final ServingFigures serving)
    {
        if (!serving.any())
        {
            return "";
        }
        final StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "servers (prefix hit rate = the servers' cached / queried prompt tokens):%n"));
        sb.append(String.format(Locale.ROOT, "  %-17s %-17s %9s %9s %12s %12s%n", "model", "backend", "requests",
            "hit rate", "TTFT p50 ms", "TTFT p90 ms"));
        for (final ServingFigures.Server server : serving.servers())
        {
            sb.append(String.format(Locale.ROOT, "  %-17s %-17s %9d %8.1f%% %12.1f %12.1f%n", fit(server.model()),
                fit(server.backend()), server.requests(), server.hitRate() * 100.0, server.ttftP50Ms(),
                server.ttftP90Ms()));
        }
        for (final String model : serving.models())
        {
            sb.append(String.format(Locale.ROOT, "  %-17s prefix hit rate %.1f%%, input %.0f tokens/s%n", fit(model),
                serving.hitRate(model) * 100.0, serving.inputTokensPerS(model)));
        }
        sb.append(String.format(Locale.ROOT, "  %-17s prefix hit rate %.1f%%, input %.0f tokens/s%n", "(all)",
            serving.hitRate(null) * 100.0, serving.inputTokensPerS(null)));
        return sb.toString();
    }

    /**
     * The same traffic without and with ejection of failing models, side by side.
     *
     * @param without the run on the plans with every {@code reliability} removed.
     * @param with the run on the plans as configured.
     * @param profile the traffic (its failure windows name the models whose recovery is timed).
     * @return the comparison block, each line ending with a newline.
     */
    public static String ejectionComparison(
        final SimulationReport without, final SimulationReport with, final SimulationProfile profile)
    {
        final StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "ejection of failing models, same traffic and seed:%n"));
        sb.append(String.format(Locale.ROOT, "  %-40s %16s %16s%n", "", "without ejection", "with ejection"));
        sb.append(String.format(Locale.ROOT, "  %-40s %16d %16d%n", "requests", without.requests(), with.requests()));
        sb.append(String.format(Locale.ROOT, "  %-40s %16d %16d%n", "failed requests (5xx, 429 answered)",
            without.backendErrors(), with.backendErrors()));
        sb.append(String.format(Locale.ROOT, "  %-40s %15.1f%% %15.1f%%%n", "SLO attainment",
            without.sloAttainment() * 100.0, with.sloAttainment() * 100.0));
        for (int m = 0; m < with.modelNames().size(); m++)
        {
            final ModelBehaviour model = profile.models().get(with.modelNames().get(m));
            if (model != null && !Double.isNaN(model.failures().failingUntilS()))
            {
                sb.append(String.format(Locale.ROOT, "  %-40s %16s %16s%n",
                    fit(model.name()) + ": recovery (" + trim(model.failures().failingUntilS()) + " s) to traffic",
                    seconds(without.recoveryToTrafficS(m)), seconds(with.recoveryToTrafficS(m))));
            }
        }
        return sb.toString();
    }

    private static String seconds(final double value)
    {
        return Double.isNaN(value) ? "never" : String.format(Locale.ROOT, "%.1f s", value);
    }

    private static String trim(final double value)
    {
        return value == Math.rint(value) ? Long.toString((long)value) : Double.toString(value);
    }

    private static void notes(final IntervalRow row, final SimulationProfile profile, final StringBuilder sb)
    {
        String separator = "  <- ";
        for (final ModelBehaviour model : profile.models().values())
        {
            if (!model.degrades())
            {
                continue;
            }
            final String note;
            if (model.degradedFromS() >= row.startS() && model.degradedFromS() < row.endS())
            {
                note = model.name() + " degrades";
            }
            else if (model.degradedUntilS() >= row.startS() && model.degradedUntilS() < row.endS())
            {
                note = model.name() + " recovers";
            }
            else if (row.startS() > model.degradedFromS() && row.endS() <= model.degradedUntilS())
            {
                note = model.name() + " degraded";
            }
            else
            {
                continue;
            }
            sb.append(separator).append(note);
            separator = ", ";
        }
    }

    private static String ms(final double value)
    {
        return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%.0fms", value);
    }

    private static String fit(final String name)
    {
        return name.length() <= MODEL_COLUMN_WIDTH ? name : name.substring(0, MODEL_COLUMN_WIDTH - 1) + "~";
    }
}
