package io.multifactor.tools.report;

import io.multifactor.sim.suite.ScenarioResult;
import io.multifactor.sim.suite.SuiteColumn;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.CategoryLabelPositions;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.CombinedDomainCategoryPlot;
import org.jfree.chart.renderer.category.IntervalBarRenderer;
import org.jfree.data.category.DefaultIntervalCategoryDataset;

import java.awt.Color;
import java.awt.Font;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Draws one scenario of {@code bin/mf compare --suite} as a PNG with JFreeChart, in the palette of
 * {@link LoadChartReport}: per policy, a bar from the lowest to the highest value over the seeds of its SLO attainment
 * (top) and of its p99 TTFT (bottom); a bar of one value is drawn a hair thick. Runs headless.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class SuiteChartReport
{
    private static final Color ATTAINMENT = new Color(0x1f77b4);
    private static final Color TTFT = new Color(0xd62728);

    private SuiteChartReport()
    {
    }

    /**
     * @param result one scenario's result.
     * @param title the chart's title.
     * @param file the PNG to write.
     * @throws IOException when writing fails.
     */
    public static void write(final ScenarioResult result, final String title, final Path file) throws IOException
    {
        final CombinedDomainCategoryPlot combined = new CombinedDomainCategoryPlot(new CategoryAxis("policy"));
        combined.getDomainAxis().setCategoryLabelPositions(CategoryLabelPositions.UP_45);
        combined.add(panel(result, SuiteColumn.SLO_ATTAINMENT, 100.0, "SLO attainment % (range over seeds)",
            ATTAINMENT), 1);
        combined.add(panel(result, SuiteColumn.TTFT_P99_MS, 1.0, "TTFT p99 ms (range over seeds)", TTFT), 1);
        final JFreeChart chart = new JFreeChart(title, new Font(Font.SANS_SERIF, Font.BOLD, 14), combined, false);
        chart.setBackgroundPaint(Color.WHITE);
        final int width = Math.max(900, 70 * result.policies().size());
        ChartUtils.saveChartAsPNG(file.toFile(), chart, width, 720);
    }

    private static CategoryPlot panel(final ScenarioResult result, final SuiteColumn column, final double scale,
        final String label, final Color color)
    {
        final int n = result.policies().size();
        final double[][] starts = new double[1][n];
        final double[][] ends = new double[1][n];
        double top = 0.0;
        for (int p = 0; p < n; p++)
        {
            final double min = result.min(p, column);
            final double max = result.max(p, column);
            starts[0][p] = Double.isNaN(min) ? 0.0 : min * scale;
            ends[0][p] = Double.isNaN(max) ? 0.0 : max * scale;
            top = Math.max(top, ends[0][p]);
            // A range of one value still shows: a hair of 0.5% of the axis.
            if (ends[0][p] - starts[0][p] < 1e-9)
            {
                ends[0][p] = starts[0][p] + Math.max(1e-6, top * 0.005);
            }
        }
        final DefaultIntervalCategoryDataset data = new DefaultIntervalCategoryDataset(
            new Comparable<?>[] { column.title() }, result.policies().toArray(new Comparable<?>[0]), box(starts),
            box(ends));
        final IntervalBarRenderer renderer = new IntervalBarRenderer();
        renderer.setSeriesPaint(0, color);
        renderer.setShadowVisible(false);
        final NumberAxis axis = new NumberAxis(label);
        axis.setAutoRangeIncludesZero(column != SuiteColumn.TTFT_P99_MS);
        final CategoryPlot plot = new CategoryPlot(data, null, axis, renderer);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        return plot;
    }

    private static Number[][] box(final double[][] values)
    {
        final Number[][] out = new Number[values.length][];
        for (int s = 0; s < values.length; s++)
        {
            out[s] = new Number[values[s].length];
            for (int i = 0; i < values[s].length; i++)
            {
                out[s][i] = values[s][i];
            }
        }
        return out;
    }

    /**
     * @param name a scenario's name.
     * @return the chart's file name for it.
     */
    public static String fileName(final String name)
    {
        return "compare-" + name.toLowerCase(Locale.ROOT) + ".png";
    }
}
