package io.multifactor.tools.report;

import io.multifactor.sim.load.LoadResults;

import java.io.IOException;
import java.io.Writer;
import java.util.Locale;

/**
 * Writes every request of a load run as one CSV row: {@code index,sent_ms,status,model,ttft_ms,tpot_ms,chunks,complete,
 * attained} (times in milliseconds from the start of the run; an unmeasured TTFT or TPOT and an unknown model are
 * empty).
 * <p>
 * This class is stateless and threadsafe.
 */
public final class LoadCsvReport
{
    /** The header line. */
    public static final String HEADER = "index,sent_ms,status,model,ttft_ms,tpot_ms,chunks,complete,attained";

    private LoadCsvReport()
    {
    }

    /**
     * @param results a finished run.
     * @param maxTtftMs TTFT ceiling of attainment, 0 = none.
     * @param maxTpotMs TPOT ceiling of attainment, 0 = none.
     * @param out where to write.
     * @throws IOException when writing fails.
     */
    public static void write(final LoadResults results, final double maxTtftMs, final double maxTpotMs, final Writer out)
        throws IOException
    {
        out.write(HEADER);
        out.write('\n');
        for (int i = 0; i < results.count(); i++)
        {
            out.write(String.format(Locale.ROOT, "%d,%.3f,%d,%s,%s,%s,%d,%b,%b%n", i, results.startNs(i) / 1e6,
                results.status(i), results.model(i) == null ? "" : results.model(i), ms(results.ttftMicros(i)),
                ms(results.tpotMicros(i)), results.chunks(i), results.complete(i),
                results.attained(i, maxTtftMs, maxTpotMs)));
        }
    }

    private static String ms(final long micros)
    {
        return micros < 0 ? "" : String.format(Locale.ROOT, "%.3f", micros / 1000.0);
    }
}
