package io.multifactor.bench.verdict;

import io.multifactor.bench.Budgets;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The goals of the release set, as the benchmarks of this module measure them.
 * <ul>
 *   <li>{@code select} (engine, all ceilings, counting on) at most 1.10x {@code handLoopStoringCounting}, the minimal
 *       loop that stores what a selection holds and counts as the engine does; the bare {@code handLoop} beside it as
 *       information;</li>
 *   <li>counting on against off adds at most 5 ns;</li>
 *   <li>each optional signal or rule adds at most 10 ns + 1 ns per candidate per added factor over the same
 *       {@code select} without it (the queue and KV-cache factors count as two added factors, prefix as one; peak-EWMA, p2c, token
 *       load and ejection add no factor, so they have 10 ns whatever the candidate count);</li>
 *   <li>a session (1,000 live keys), eligibility, and eligibility with a request SLO each add at most 10 ns + 1 ns per
 *       candidate over the same {@code select} without them;</li>
 *   <li>two threads against one: per-thread time at most 1.3x ({@code handLoop} is the control, as information);</li>
 *   <li>absolute budgets as information: those of {@link Budgets} (record one sample, begin + end, the refresh of one
 *       model's window) and the parse of a 64 KB {@code /metrics} body, 200 us.</li>
 * </ul>
 * The allocation goal (0 B/op) is judged on every row by {@link VerdictReport}.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class ReleaseGoals
{
    /** The ratio goal of {@code select} against its storing and counting control. */
    public static final double SELECT_RATIO = 1.10;
    /** What counting may add, ns. */
    public static final double COUNTING_NS = 5;
    /** What an optional signal or rule may add per call, ns, before the per-candidate allowance. */
    public static final double SIGNAL_NS = 10;
    /** What an optional signal or rule may add per candidate per added factor, ns. */
    public static final double SIGNAL_NS_PER_CANDIDATE = 1;
    /** The parse of one 64 KB vLLM {@code /metrics} body, ns (off the request path). */
    public static final double METRICS_PARSE_NS = 200_000;
    /** Per-thread time of two threads against one. */
    public static final double THREADS_RATIO = 1.3;

    private ReleaseGoals()
    {
    }

    /**
     * @return every goal of the release set, in the order of the report.
     */
    public static List<Goal> all()
    {
        final List<Goal> goals = new ArrayList<>();
        for (final int n : new int[] { 4, 16, 64 })
        {
            final String params = " candidates=" + n + ",ceilings=all";
            goals.add(Goal.ratio("select / handLoopStoringCounting, " + n + " candidates",
                "SelectBenchmark.engine" + params, "SelectBenchmark.handLoopStoringCounting" + params,
                SELECT_RATIO, true));
            goals.add(Goal.ratio("select / handLoop (bare), " + n + " candidates",
                "SelectBenchmark.engine" + params, "SelectBenchmark.handLoop" + params, SELECT_RATIO, false));
        }
        for (final int n : new int[] { 4, 16 })
        {
            final String params = " candidates=" + n + ",ceilings=all";
            goals.add(Goal.difference("counting on - off, " + n + " candidates",
                "CountingBenchmark.counting" + params, "CountingBenchmark.notCounting" + params, COUNTING_NS));
        }
        for (final int n : new int[] { 4, 16, 64 })
        {
            goals.add(signal("queue and KV-cache", "ServerSignalsBenchmark.select", n, "queueKv", "without", 2));
        }
        for (final String variant : new String[] { "peakEwma", "p2c", "tokens" })
        {
            for (final int n : new int[] { 4, 16 })
            {
                goals.add(signal(variant, "SignalVariantsBenchmark.select", n, variant, "window", 0));
            }
        }
        for (final int n : new int[] { 4, 16 })
        {
            goals.add(Goal.difference("ejection configured, " + n + " candidates",
                "EjectionBenchmark.selectWithEjectionConfigured candidates=" + n,
                "EjectionBenchmark.selectWithoutEjection candidates=" + n, SIGNAL_NS));
        }
        for (final int n : new int[] { 4, 16, 64 })
        {
            goals.add(signal("prefix", "PrefixBenchmark.select", n, "prefix", "without", 1));
        }
        for (final int n : new int[] { 4, 16 })
        {
            goals.add(Goal.difference("session (1,000 live keys) - without, " + n + " candidates",
                "SessionBenchmark.selectWithSession candidates=" + n + ",liveKeys=1000",
                "SessionBenchmark.selectWithoutSession candidates=" + n + ",liveKeys=1000",
                SIGNAL_NS + SIGNAL_NS_PER_CANDIDATE * n));
        }
        for (final int n : new int[] { 4, 16 })
        {
            goals.add(Goal.difference("eligibility - without, " + n + " candidates",
                "EligibilityBenchmark.selectWithEligibility candidates=" + n,
                "EligibilityBenchmark.selectWithoutEligibility candidates=" + n,
                SIGNAL_NS + SIGNAL_NS_PER_CANDIDATE * n));
            goals.add(Goal.difference("eligibility and a request SLO - without, " + n + " candidates",
                "EligibilityBenchmark.selectWithEligibilityAndSlo candidates=" + n,
                "EligibilityBenchmark.selectWithoutEligibility candidates=" + n,
                SIGNAL_NS + SIGNAL_NS_PER_CANDIDATE * n));
        }
        for (final String op : new String[] { "select", "beginEnd", "selectRecord", "handLoop" })
        {
            goals.add(Goal.ratio("2 threads / 1, " + op + (op.equals("handLoop") ? " (control)" : ""),
                "ThreadsBenchmark." + op + "TwoThreads", "ThreadsBenchmark." + op + "OneThread", THREADS_RATIO,
                !op.equals("handLoop")));
        }
        goals.add(budget("record one TPOT sample", "RecordBenchmark.recordTpotMicros"));
        goals.add(budget("record one TTFT sample", "RecordBenchmark.recordTtftMicros"));
        goals.add(budget("begin + end", "InflightBenchmark.beginEnd"));
        goals.add(budget("refresh of one model's window, 64 lease slots",
            "RefreshBenchmark.refreshOneModel leaseCapacity=64"));
        goals.add(budget("refresh of one model's window, 65,536 lease slots",
            "RefreshBenchmark.refreshOneModel leaseCapacity=65536"));
        goals.add(Goal.absolute("parse a 64 KB vLLM /metrics body", "MetricsParseBenchmark.reader sizeKib=64",
            METRICS_PARSE_NS));
        goals.add(Goal.ratio("prefix: prompt bytes, blocks and choice, 32 KB over 8 backends (2 warm) / hash only",
            "PromptBlocksBenchmark.promptBlocksAndChoice promptKib=32", "PromptBlocksBenchmark.hashOnly promptKib=32", 1.5, true));
        return goals;
    }

    private static Goal budget(final String title, final String row)
    {
        final int space = row.indexOf(' ');
        final String benchmark = space < 0 ? row : row.substring(0, space);
        return Goal.absolute(title, row, Budgets.of(benchmark, Map.of()).maxNsPerOp());
    }

    private static Goal signal(
        final String what, final String benchmark, final int n, final String variant, final String without,
        final int addedFactors)
    {
        return Goal.difference(what + " - " + without + ", " + n + " candidates",
            benchmark + " candidates=" + n + ",variant=" + variant,
            benchmark + " candidates=" + n + ",variant=" + without,
            SIGNAL_NS + SIGNAL_NS_PER_CANDIDATE * n * addedFactors);
    }
}
