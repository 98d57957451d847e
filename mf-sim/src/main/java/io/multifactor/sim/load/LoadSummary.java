package io.multifactor.sim.load;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The figures of one load run, per serving model and overall: requests, errors (anything but a finished 200), p50 and
 * p99 TTFT and TPOT in milliseconds over the requests that measured them (nearest rank on the exact samples; NaN when
 * none did), and SLO attainment, the share of requests that succeeded within the ceilings.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param rows one row per model that served a request, by name, then the overall row (model {@link #ALL}).
 * @param maxTtftMs TTFT ceiling the attainment used, 0 = none.
 * @param maxTpotMs TPOT ceiling the attainment used, 0 = none.
 * @param elapsedS length of the run, seconds.
 */
public record LoadSummary(List<Row> rows, double maxTtftMs, double maxTpotMs, double elapsedS)
{
    /** Model name of the overall row. */
    public static final String ALL = "(all)";

    /** Model name of the requests no model answered (connect failures, a gateway's own errors without a header). */
    public static final String NONE = "(none)";

    /**
     * One row of the table.
     *
     * @param model serving model, {@link #ALL} or {@link #NONE}.
     * @param requests requests.
     * @param errors requests that did not finish with 200.
     * @param attained requests that met the SLO.
     * @param ttftP50Ms median TTFT, ms.
     * @param ttftP99Ms p99 TTFT, ms.
     * @param tpotP50Ms median TPOT, ms.
     * @param tpotP99Ms p99 TPOT, ms.
     */
    public record Row(String model, int requests, int errors, int attained, double ttftP50Ms, double ttftP99Ms,
        double tpotP50Ms, double tpotP99Ms)
    {
        /** @return attained / requests, NaN without requests. */
        public double attainment()
        {
            return requests == 0 ? Double.NaN : (double)attained / requests;
        }
    }

    /**
     * @param rows rows; copied.
     * @param maxTtftMs TTFT ceiling.
     * @param maxTpotMs TPOT ceiling.
     * @param elapsedS length of the run.
     */
    public LoadSummary
    {
        rows = List.copyOf(rows);
    }

    /**
     * @param results a finished run.
     * @param maxTtftMs TTFT ceiling of attainment in milliseconds, 0 = none.
     * @param maxTpotMs TPOT ceiling of attainment in milliseconds, 0 = none.
     * @return its summary.
     */
    public static LoadSummary of(final LoadResults results, final double maxTtftMs, final double maxTpotMs)
    {
        final Map<String, List<Integer>> byModel = new TreeMap<>();
        final List<Integer> all = new ArrayList<>();
        for (int i = 0; i < results.count(); i++)
        {
            final String model = results.model(i) == null ? NONE : results.model(i);
            byModel.computeIfAbsent(model, k -> new ArrayList<>()).add(i);
            all.add(i);
        }
        final Map<String, Row> rows = new LinkedHashMap<>();
        for (final Map.Entry<String, List<Integer>> entry : byModel.entrySet())
        {
            rows.put(entry.getKey(), row(entry.getKey(), entry.getValue(), results, maxTtftMs, maxTpotMs));
        }
        rows.put(ALL, row(ALL, all, results, maxTtftMs, maxTpotMs));
        return new LoadSummary(new ArrayList<>(rows.values()), maxTtftMs, maxTpotMs, results.elapsedS());
    }

    /** @return requests that ended without error, per second of the run (the saturation figure of a closed loop). */
    public double throughputPerS()
    {
        return elapsedS > 0.0 ? (overall().requests() - overall().errors()) / elapsedS : 0.0;
    }

    /** @return the overall row. */
    public Row overall()
    {
        return rows.get(rows.size() - 1);
    }

    /**
     * @param model a model name.
     * @return its row, or null when it served nothing.
     */
    public Row row(final String model)
    {
        for (final Row row : rows)
        {
            if (row.model().equals(model))
            {
                return row;
            }
        }
        return null;
    }

    private static Row row(final String model, final List<Integer> indices, final LoadResults results,
        final double maxTtftMs, final double maxTpotMs)
    {
        int errors = 0;
        int attained = 0;
        final long[] ttft = new long[indices.size()];
        final long[] tpot = new long[indices.size()];
        int ttftCount = 0;
        int tpotCount = 0;
        for (final int i : indices)
        {
            errors += results.ok(i) ? 0 : 1;
            attained += results.attained(i, maxTtftMs, maxTpotMs) ? 1 : 0;
            if (results.ok(i) && results.ttftMicros(i) >= 0)
            {
                ttft[ttftCount++] = results.ttftMicros(i);
            }
            if (results.ok(i) && results.tpotMicros(i) >= 0)
            {
                tpot[tpotCount++] = results.tpotMicros(i);
            }
        }
        final long[] ttftSorted = Arrays.copyOf(ttft, ttftCount);
        final long[] tpotSorted = Arrays.copyOf(tpot, tpotCount);
        Arrays.sort(ttftSorted);
        Arrays.sort(tpotSorted);
        return new Row(model, indices.size(), errors, attained, percentileMs(ttftSorted, 50), percentileMs(ttftSorted, 99),
            percentileMs(tpotSorted, 50), percentileMs(tpotSorted, 99));
    }

    /**
     * Nearest-rank percentile.
     *
     * @param sortedMicros samples in microseconds, ascending.
     * @param percentile 1..100.
     * @return the sample at rank ceil(p/100 * n), in milliseconds; NaN without samples.
     */
    public static double percentileMs(final long[] sortedMicros, final int percentile)
    {
        if (sortedMicros.length == 0)
        {
            return Double.NaN;
        }
        final int rank = (int)Math.ceil(percentile / 100.0 * sortedMicros.length);
        return sortedMicros[Math.max(0, rank - 1)] / 1000.0;
    }

    /** @return the table as text, one line per row with a header. */
    public String table()
    {
        final StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%-20s %8s %7s %11s %9s %9s %9s %9s%n", "model", "requests", "errors",
            "attainment", "ttft_p50", "ttft_p99", "tpot_p50", "tpot_p99"));
        for (final Row row : rows)
        {
            out.append(String.format(Locale.ROOT, "%-20s %8d %7d %10.1f%% %7.1fms %7.1fms %7.1fms %7.1fms%n", row.model(),
                row.requests(), row.errors(), 100.0 * row.attainment(), row.ttftP50Ms(), row.ttftP99Ms(),
                row.tpotP50Ms(), row.tpotP99Ms()));
        }
        out.append(String.format(Locale.ROOT, "SLO: max_ttft_ms %s, max_tpot_ms %s; %.1f s; throughput %.1f requests/s " +
            "without error%n", ceiling(maxTtftMs), ceiling(maxTpotMs), elapsedS, throughputPerS()));
        return out.toString();
    }

    private static String ceiling(final double ms)
    {
        return ms > 0.0 ? String.format(Locale.ROOT, "%.0f", ms) : "none";
    }
}
