package io.multifactor.tools.report;

import io.multifactor.sim.IntervalRow;

import java.io.IOException;
import java.io.Writer;
import java.util.List;
import java.util.Locale;

/**
 * Writes the interval rows of a simulation as CSV, one line per interval and model (long format, ready for a
 * spreadsheet or a data-frame pivot). A missing percentile is an empty field. Numbers use {@link Locale#ROOT}.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class CsvReport
{
    /** The header line, without its newline. */
    public static final String HEADER =
        "start_s,end_s,requests,fallbacks,failed,model,selected,share,p95_ttft_ms,p95_tpot_ms,slo_drops,inflight";

    private CsvReport()
    {
    }

    /**
     * @param rows the intervals, in time order.
     * @param out where to write; not closed.
     * @throws IOException when writing fails.
     */
    public static void write(final List<IntervalRow> rows, final Writer out) throws IOException
    {
        out.write(HEADER);
        out.write('\n');
        for (final IntervalRow row : rows)
        {
            for (int m = 0; m < row.modelNames().size(); m++)
            {
                out.write(String.format(Locale.ROOT, "%.3f,%.3f,%d,%d,%d,%s,%d,%.4f,%s,%s,%d,%d%n",
                    row.startS(), row.endS(), row.requests(), row.fallbacks(), row.failed(), row.modelNames().get(m),
                    row.selected(m), row.share(m), number(row.p95TtftMs(m)), number(row.p95TpotMs(m)),
                    row.sloDrops(m), row.inflight(m)));
            }
        }
    }

    private static String number(final double value)
    {
        return Double.isNaN(value) ? "" : String.format(Locale.ROOT, "%.3f", value);
    }
}
