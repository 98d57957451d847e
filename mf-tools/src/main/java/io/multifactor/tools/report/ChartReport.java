package io.multifactor.tools.report;

import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.sim.IntervalRow;
import io.multifactor.sim.ModelBehaviour;
import io.multifactor.sim.ServingFigures;
import io.multifactor.sim.SimulationProfile;
import io.multifactor.sim.SimulationReport;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.IntervalMarker;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.ui.Layer;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Draws a simulation as a PNG with JFreeChart: three panels over simulated time sharing one axis, the traffic share per
 * model, its p95 TTFT and its p95 TPOT (per report interval), with the configured ceilings as dashed lines and each
 * model's degraded window shaded; when models were simulated server by server, two more panels: each backend's prefix
 * hit rate and p90 TTFT. Runs headless.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class ChartReport
{
    private static final Color[] PALETTE = {
        new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0xff7f0e), new Color(0x9467bd),
        new Color(0x8c564b) };
    private static final BasicStroke LINE = new BasicStroke(2.2f);
    private static final BasicStroke DASHED = new BasicStroke(
        1.2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] { 6f, 4f }, 0f);

    private ChartReport()
    {
    }

    /**
     * Writes the chart.
     *
     * @param report the finished run.
     * @param profile the traffic it ran (for the degraded windows).
     * @param plans the configuration it ran (for the ceilings).
     * @param file the file to write: PNG, or JPEG when its name ends with {@code .jpg} or {@code .jpeg} (see
     *     {@link #formatProblem(Path)}).
     * @throws IOException when writing fails.
     */
    public static void write(
        final SimulationReport report,
        final SimulationProfile profile,
        final Plans plans,
        final Path file) throws IOException
    {
        final SortedMap<Double, String> ttftCeilingsMs = new TreeMap<>();
        final SortedMap<Double, String> tpotCeilingsMs = new TreeMap<>();
        for (int id = 0; id < plans.decisionCapacity(); id++)
        {
            final DecisionPlan plan = plans.decision(id);
            if (plan != null)
            {
                addCeiling(ttftCeilingsMs, plan.maxTtftMs(), plan.name());
                addCeiling(tpotCeilingsMs, plan.maxTpotMs(), plan.name());
            }
        }
        System.setProperty("java.awt.headless", "true");
        final List<String> models = report.modelNames();
        final XYSeriesCollection share = new XYSeriesCollection();
        final XYSeriesCollection ttft = new XYSeriesCollection();
        final XYSeriesCollection tpot = new XYSeriesCollection();
        for (int m = 0; m < models.size(); m++)
        {
            final XYSeries shareSeries = new XYSeries(models.get(m), false, true);
            final XYSeries ttftSeries = new XYSeries(models.get(m), false, true);
            final XYSeries tpotSeries = new XYSeries(models.get(m), false, true);
            for (final IntervalRow row : report.rows())
            {
                final double midS = (row.startS() + row.endS()) / 2.0;
                shareSeries.add(midS, row.share(m) * 100.0);
                ttftSeries.add(midS, nullIfMissing(row.p95TtftMs(m)));
                tpotSeries.add(midS, nullIfMissing(row.p95TpotMs(m)));
            }
            share.addSeries(shareSeries);
            ttft.addSeries(ttftSeries);
            tpot.addSeries(tpotSeries);
        }

        final NumberAxis time = new NumberAxis("simulated time (s)");
        time.setRange(0.0, report.durationS());
        final CombinedDomainXYPlot combined = new CombinedDomainXYPlot(time);
        combined.setGap(12.0);
        final NumberAxis shareAxis = new NumberAxis("traffic share (%)");
        shareAxis.setRange(0.0, 100.0);
        combined.add(panel(share, shareAxis, models.size(), profile, report.modelNames(), true), 1);
        combined.add(panel(ttft, new NumberAxis("p95 TTFT (ms)"), models.size(), profile, report.modelNames(),
            ttftCeilingsMs, "max_ttft_ms"), 1);
        combined.add(panel(tpot, new NumberAxis("p95 TPOT (ms)"), models.size(), profile, report.modelNames(),
            tpotCeilingsMs, "max_tpot_ms"), 1);
        final boolean servers = report.serving().any();
        if (servers)
        {
            addServerPanels(combined, report);
        }

        final JFreeChart chart = new JFreeChart(String.format(Locale.ROOT,
            "multi-factor simulation: %d requests, SLO attainment %.1f%%, ceilings %s", report.requests(),
            report.sloAttainment() * 100.0, report.ceilingsEnforced() ? "on" : "off"),
            new Font(Font.SANS_SERIF, Font.BOLD, 16), combined, true);
        chart.setBackgroundPaint(Color.WHITE);
        if (isJpeg(file))
        {
            ChartUtils.saveChartAsJPEG(file.toFile(), 0.92f, chart, 1200, servers ? 1400 : 900);
        }
        else
        {
            ChartUtils.saveChartAsPNG(file.toFile(), chart, 1200, servers ? 1400 : 900);
        }
    }

    // The models simulated server by server: per backend, its prefix hit rate and p90 TTFT in each interval.
    private static void addServerPanels(final CombinedDomainXYPlot combined, final SimulationReport report)
    {
        final XYSeriesCollection hitRates = new XYSeriesCollection();
        final XYSeriesCollection ttftP90 = new XYSeriesCollection();
        final List<IntervalRow> rows = report.rows();
        for (final ServingFigures.Server server : report.serving().servers())
        {
            final XYSeries hits = new XYSeries(server.model() + " @ " + server.backend(), false, true);
            final XYSeries ttft = new XYSeries(server.model() + " @ " + server.backend(), false, true);
            for (int k = 0; k < rows.size() && k < server.intervalHitRates().length; k++)
            {
                final double midS = (rows.get(k).startS() + rows.get(k).endS()) / 2.0;
                hits.add(midS, nullIfMissing(server.intervalHitRates()[k] * 100.0));
                ttft.add(midS, nullIfMissing(server.intervalTtftP90Ms()[k]));
            }
            hitRates.addSeries(hits);
            ttftP90.addSeries(ttft);
        }
        final NumberAxis hitAxis = new NumberAxis("prefix hit rate per backend (%)");
        hitAxis.setRange(0.0, 100.0);
        combined.add(LoadChartReport.plot(hitRates, hitAxis, true), 1);
        combined.add(LoadChartReport.plot(ttftP90, new NumberAxis("p90 TTFT per backend (ms)"), false), 1);
    }

    /**
     * @param file the chart file named on the command line.
     * @return null when its name ends with {@code .png}, {@code .jpg} or {@code .jpeg} (any case), else what is wrong.
     */
    public static String formatProblem(final Path file)
    {
        final String name = file.getFileName() == null ? "" : file.getFileName().toString().toLowerCase(Locale.ROOT);
        if (name.endsWith(".png") || isJpeg(file))
        {
            return null;
        }
        return "cannot write " + file + ": the chart is written as PNG (.png) or JPEG (.jpg, .jpeg); name the file " +
            "with one of these extensions";
    }

    private static boolean isJpeg(final Path file)
    {
        final String name = file.getFileName() == null ? "" : file.getFileName().toString().toLowerCase(Locale.ROOT);
        return name.endsWith(".jpg") || name.endsWith(".jpeg");
    }

    private static XYPlot panel(
        final XYSeriesCollection data,
        final NumberAxis axis,
        final int models,
        final SimulationProfile profile,
        final List<String> modelNames,
        final SortedMap<Double, String> ceilingsMs,
        final String ceilingLabel)
    {
        final XYPlot plot = panel(data, axis, models, profile, modelNames, false);
        double top = 0.0;
        for (int s = 0; s < data.getSeriesCount(); s++)
        {
            final double max = data.getSeries(s).getMaxY();
            top = Double.isNaN(max) ? top : Math.max(top, max);
        }
        for (final double ceiling : ceilingsMs.keySet())
        {
            top = Math.max(top, ceiling);
        }
        axis.setRange(0.0, top > 0.0 ? top * 1.12 : 1.0);
        for (final Map.Entry<Double, String> ceiling : ceilingsMs.entrySet())
        {
            final ValueMarker marker = new ValueMarker(ceiling.getKey(), Color.DARK_GRAY, DASHED);
            marker.setLabel(String.format(Locale.ROOT, "%s %s (%s)", ceilingLabel, trim(ceiling.getKey()),
                ceiling.getValue()));
            marker.setLabelAnchor(RectangleAnchor.TOP_LEFT);
            marker.setLabelTextAnchor(TextAnchor.BOTTOM_LEFT);
            marker.setLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
            plot.addRangeMarker(marker, Layer.FOREGROUND);
        }
        return plot;
    }

    private static XYPlot panel(
        final XYSeriesCollection data,
        final NumberAxis axis,
        final int models,
        final SimulationProfile profile,
        final List<String> modelNames,
        final boolean primary)
    {
        final XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
        // One legend for the whole figure: the panels share colours, so only the first panel lists its series.
        renderer.setDefaultSeriesVisibleInLegend(primary);
        for (int m = 0; m < models; m++)
        {
            renderer.setSeriesPaint(m, PALETTE[m % PALETTE.length]);
            renderer.setSeriesStroke(m, LINE);
        }
        axis.setAutoRangeIncludesZero(true);
        final XYPlot plot = new XYPlot(data, null, axis, renderer);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(new Color(0xdddddd));
        plot.setRangeGridlinePaint(new Color(0xdddddd));
        for (int m = 0; m < modelNames.size(); m++)
        {
            final ModelBehaviour behaviour = profile.models().get(modelNames.get(m));
            if (behaviour != null && behaviour.degrades())
            {
                final Color color = PALETTE[m % PALETTE.length];
                final IntervalMarker window = new IntervalMarker(behaviour.degradedFromS(),
                    Math.min(behaviour.degradedUntilS(), profile.durationS()),
                    new Color(color.getRed(), color.getGreen(), color.getBlue(), 36));
                if (primary)
                {
                    window.setLabel(modelNames.get(m) + " degraded (TTFT x" + trim(behaviour.degradedTtftFactor()) +
                        ", TPOT x" + trim(behaviour.degradedTpotFactor()) + ")");
                }
                window.setLabelAnchor(RectangleAnchor.TOP_LEFT);
                window.setLabelTextAnchor(TextAnchor.TOP_LEFT);
                window.setLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
                plot.addDomainMarker(window, Layer.BACKGROUND);
            }
        }
        return plot;
    }

    private static void addCeiling(final SortedMap<Double, String> ceilings, final double ceilingMs, final String decision)
    {
        if (ceilingMs > 0.0)
        {
            ceilings.merge(ceilingMs, decision, (a, b) -> a + ", " + b);
        }
    }

    private static Double nullIfMissing(final double value)
    {
        return Double.isNaN(value) ? null : value;
    }

    private static String trim(final double value)
    {
        return value == Math.rint(value) ? String.format(Locale.ROOT, "%.0f", value) : String.format(Locale.ROOT, "%.1f", value);
    }
}
