package io.multifactor.sim.load;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;

/**
 * A load run cut into intervals by send time: per interval and serving model, the requests sent and their p95 TTFT
 * (milliseconds, NaN without a measured one), and per interval the overall SLO attainment. What the load chart draws.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param intervalS width of an interval, seconds.
 * @param models serving models, sorted ({@link LoadSummary#NONE} for requests no model answered).
 * @param requests {@code requests[interval][model]}.
 * @param ttftP95Ms {@code ttftP95Ms[interval][model]}.
 * @param attainment {@code attainment[interval]}, NaN for an interval without requests.
 * @param ttftP95AllMs {@code ttftP95AllMs[interval]}: p95 TTFT over every model, NaN without a measured one.
 */
public record LoadTimeline(double intervalS, List<String> models, int[][] requests, double[][] ttftP95Ms,
    double[] attainment, double[] ttftP95AllMs)
{
    /**
     * @param intervalS width.
     * @param models models; copied.
     * @param requests counts (not copied: the factory's own).
     * @param ttftP95Ms percentiles (not copied).
     * @param attainment attainment (not copied).
     * @param ttftP95AllMs overall percentiles (not copied).
     */
    public LoadTimeline
    {
        models = List.copyOf(models);
    }

    /**
     * @param results a finished run.
     * @param intervalS interval width in seconds, > 0.
     * @param maxTtftMs TTFT ceiling of attainment, 0 = none.
     * @param maxTpotMs TPOT ceiling of attainment, 0 = none.
     * @return its timeline.
     */
    public static LoadTimeline of(final LoadResults results, final double intervalS, final double maxTtftMs,
        final double maxTpotMs)
    {
        final TreeSet<String> names = new TreeSet<>();
        long lastNs = 0;
        for (int i = 0; i < results.count(); i++)
        {
            names.add(name(results, i));
            lastNs = Math.max(lastNs, results.startNs(i));
        }
        final List<String> models = new ArrayList<>(names);
        final int intervals = results.count() == 0 ? 0 : (int)(lastNs / (intervalS * 1e9)) + 1;
        final int[][] requests = new int[intervals][models.size()];
        final double[][] p95 = new double[intervals][models.size()];
        final double[] attainment = new double[intervals];
        final double[] p95All = new double[intervals];
        final int[] attained = new int[intervals];
        final int[] sent = new int[intervals];
        final List<List<List<Long>>> ttft = new ArrayList<>();
        for (int k = 0; k < intervals; k++)
        {
            final List<List<Long>> perModel = new ArrayList<>();
            for (int m = 0; m < models.size(); m++)
            {
                perModel.add(new ArrayList<>());
            }
            ttft.add(perModel);
        }
        for (int i = 0; i < results.count(); i++)
        {
            final int k = (int)(results.startNs(i) / (intervalS * 1e9));
            final int m = models.indexOf(name(results, i));
            requests[k][m]++;
            sent[k]++;
            attained[k] += results.attained(i, maxTtftMs, maxTpotMs) ? 1 : 0;
            if (results.ok(i) && results.ttftMicros(i) >= 0)
            {
                ttft.get(k).get(m).add(results.ttftMicros(i));
            }
        }
        for (int k = 0; k < intervals; k++)
        {
            attainment[k] = sent[k] == 0 ? Double.NaN : (double)attained[k] / sent[k];
            final List<Long> all = new ArrayList<>();
            for (int m = 0; m < models.size(); m++)
            {
                final List<Long> samples = ttft.get(k).get(m);
                all.addAll(samples);
                final long[] sorted = new long[samples.size()];
                for (int j = 0; j < sorted.length; j++)
                {
                    sorted[j] = samples.get(j);
                }
                Arrays.sort(sorted);
                p95[k][m] = LoadSummary.percentileMs(sorted, 95);
            }
            final long[] sortedAll = new long[all.size()];
            for (int j = 0; j < sortedAll.length; j++)
            {
                sortedAll[j] = all.get(j);
            }
            Arrays.sort(sortedAll);
            p95All[k] = LoadSummary.percentileMs(sortedAll, 95);
        }
        return new LoadTimeline(intervalS, models, requests, p95, attainment, p95All);
    }

    /** @return number of intervals. */
    public int intervals()
    {
        return attainment.length;
    }

    private static String name(final LoadResults results, final int i)
    {
        return results.model(i) == null ? LoadSummary.NONE : results.model(i);
    }
}
