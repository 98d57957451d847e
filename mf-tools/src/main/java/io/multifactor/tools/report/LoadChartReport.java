package io.multifactor.tools.report;

import io.multifactor.sim.load.LoadTimeline;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CombinedDomainXYPlot;
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

/**
 * Draws load runs as a PNG (or JPEG) with JFreeChart, over wall-clock time from the start of the run, in the style of
 * {@link ChartReport}: for one run, the traffic share and p95 TTFT per serving model; for a policy comparison, the SLO
 * attainment and overall p95 TTFT per policy. The TTFT ceiling
 * is a dashed line. Runs headless.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class LoadChartReport
{
    private static final Color[] PALETTE = {
        new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0xff7f0e), new Color(0x9467bd),
        new Color(0x8c564b), new Color(0xe377c2), new Color(0x7f7f7f), new Color(0xbcbd22), new Color(0x17becf) };
    private static final BasicStroke LINE = new BasicStroke(2.2f);
    private static final BasicStroke DASHED = new BasicStroke(
        1.2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] { 6f, 4f }, 0f);

    private LoadChartReport()
    {
    }

    /**
     * Writes the chart of one run.
     *
     * @param timeline the run.
     * @param title the chart's title.
     * @param maxTtftMs the TTFT ceiling to mark, 0 = none.
     * @param file PNG, or JPEG for a {@code .jpg}/{@code .jpeg} name.
     * @throws IOException when writing fails.
     */
    public static void writeRun(final LoadTimeline timeline, final String title, final double maxTtftMs, final Path file)
        throws IOException
    {
        final NumberAxis time = timeAxis(timeline);
        final CombinedDomainXYPlot combined = new CombinedDomainXYPlot(time);
        combined.setGap(12.0);
        combined.add(sharePanel(timeline), 1);
        final XYSeriesCollection ttft = new XYSeriesCollection();
        for (int m = 0; m < timeline.models().size(); m++)
        {
            final XYSeries series = new XYSeries(timeline.models().get(m), false, true);
            for (int k = 0; k < timeline.intervals(); k++)
            {
                series.add(mid(timeline, k), nullIfMissing(timeline.ttftP95Ms()[k][m]));
            }
            ttft.addSeries(series);
        }
        combined.add(latencyPanel(ttft, "p95 TTFT (ms)", maxTtftMs, false), 1);
        save(combined, title, file);
    }

    /**
     * Writes the chart of a comparison.
     *
     * @param byPolicy each policy's run, in table order.
     * @param title the chart's title.
     * @param maxTtftMs the TTFT ceiling to mark, 0 = none.
     * @param file PNG, or JPEG for a {@code .jpg}/{@code .jpeg} name.
     * @throws IOException when writing fails.
     */
    public static void writeComparison(
        final Map<String, LoadTimeline> byPolicy, final String title, final double maxTtftMs, final Path file)
        throws IOException
    {
        final List<String> policies = List.copyOf(byPolicy.keySet());
        final LoadTimeline first = byPolicy.get(policies.get(0));
        final CombinedDomainXYPlot combined = new CombinedDomainXYPlot(timeAxis(first));
        combined.setGap(12.0);
        final XYSeriesCollection attainment = new XYSeriesCollection();
        final XYSeriesCollection ttft = new XYSeriesCollection();
        for (final String policy : policies)
        {
            final LoadTimeline timeline = byPolicy.get(policy);
            final XYSeries a = new XYSeries(policy, false, true);
            final XYSeries t = new XYSeries(policy, false, true);
            for (int k = 0; k < timeline.intervals(); k++)
            {
                final double share = timeline.attainment()[k];
                a.add(mid(timeline, k), Double.isNaN(share) ? null : share * 100.0);
                t.add(mid(timeline, k), nullIfMissing(timeline.ttftP95AllMs()[k]));
            }
            attainment.addSeries(a);
            ttft.addSeries(t);
        }
        final NumberAxis attainmentAxis = new NumberAxis("SLO attainment (%)");
        attainmentAxis.setRange(0.0, 105.0);
        combined.add(plot(attainment, attainmentAxis, true), 1);
        combined.add(latencyPanel(ttft, "p95 TTFT, all models (ms)", maxTtftMs, false), 1);
        save(combined, title, file);
    }

    private static NumberAxis timeAxis(final LoadTimeline timeline)
    {
        final NumberAxis time = new NumberAxis("time since the first request (s)");
        time.setRange(0.0, Math.max(timeline.intervalS(), timeline.intervals() * timeline.intervalS()));
        return time;
    }

    private static XYPlot sharePanel(final LoadTimeline timeline)
    {
        final XYSeriesCollection share = new XYSeriesCollection();
        for (int m = 0; m < timeline.models().size(); m++)
        {
            final XYSeries series = new XYSeries(timeline.models().get(m), false, true);
            for (int k = 0; k < timeline.intervals(); k++)
            {
                int total = 0;
                for (final int count : timeline.requests()[k])
                {
                    total += count;
                }
                series.add(mid(timeline, k), total == 0 ? null : 100.0 * timeline.requests()[k][m] / total);
            }
            share.addSeries(series);
        }
        final NumberAxis axis = new NumberAxis("traffic share (%)");
        axis.setRange(0.0, 100.0);
        return plot(share, axis, true);
    }

    private static XYPlot latencyPanel(final XYSeriesCollection data, final String label, final double ceilingMs,
        final boolean legend)
    {
        final NumberAxis axis = new NumberAxis(label);
        final XYPlot plot = plot(data, axis, legend);
        double top = ceilingMs;
        for (int s = 0; s < data.getSeriesCount(); s++)
        {
            final double max = data.getSeries(s).getMaxY();
            top = Double.isNaN(max) ? top : Math.max(top, max);
        }
        axis.setRange(0.0, top > 0.0 ? top * 1.12 : 1.0);
        if (ceilingMs > 0.0)
        {
            final ValueMarker marker = new ValueMarker(ceilingMs, Color.DARK_GRAY, DASHED);
            marker.setLabel(String.format(Locale.ROOT, "max_ttft_ms %.0f", ceilingMs));
            marker.setLabelAnchor(RectangleAnchor.TOP_LEFT);
            marker.setLabelTextAnchor(TextAnchor.BOTTOM_LEFT);
            marker.setLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
            plot.addRangeMarker(marker, Layer.FOREGROUND);
        }
        return plot;
    }

    /**
     * One panel of lines with markers, a series per colour of the palette, on a white background.
     *
     * @param data the series.
     * @param axis its value axis.
     * @param legend whether its series appear in the chart's legend.
     * @return the panel.
     */
    static XYPlot plot(final XYSeriesCollection data, final NumberAxis axis, final boolean legend)
    {
        final XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
        renderer.setDefaultSeriesVisibleInLegend(legend);
        for (int s = 0; s < data.getSeriesCount(); s++)
        {
            renderer.setSeriesPaint(s, PALETTE[s % PALETTE.length]);
            renderer.setSeriesStroke(s, LINE);
        }
        axis.setAutoRangeIncludesZero(true);
        final XYPlot plot = new XYPlot(data, null, axis, renderer);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(new Color(0xdddddd));
        plot.setRangeGridlinePaint(new Color(0xdddddd));
        return plot;
    }

    private static void save(final CombinedDomainXYPlot combined, final String title, final Path file) throws IOException
    {
        System.setProperty("java.awt.headless", "true");
        final JFreeChart chart = new JFreeChart(title, new Font(Font.SANS_SERIF, Font.BOLD, 15), combined, true);
        chart.setBackgroundPaint(Color.WHITE);
        final String name = file.getFileName() == null ? "" : file.getFileName().toString().toLowerCase(Locale.ROOT);
        if (name.endsWith(".jpg") || name.endsWith(".jpeg"))
        {
            ChartUtils.saveChartAsJPEG(file.toFile(), 0.92f, chart, 1200, 900);
        }
        else
        {
            ChartUtils.saveChartAsPNG(file.toFile(), chart, 1200, 900);
        }
    }

    private static double mid(final LoadTimeline timeline, final int k)
    {
        return (k + 0.5) * timeline.intervalS();
    }

    private static Double nullIfMissing(final double value)
    {
        return Double.isNaN(value) ? null : value;
    }
}
