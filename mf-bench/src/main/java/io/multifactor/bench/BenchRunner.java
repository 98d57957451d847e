package io.multifactor.bench;

import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs the benchmarks of this module with one of two profiles, with the GC profiler, writes JMH's JSON results and a
 * Markdown report (machine, table of budgets and ratios) beside them, and prints the report.
 * <ul>
 *   <li>{@code quick}: the benchmarks that have a budget and their baselines ({@link #QUICK_INCLUDE}: select at 4, 16
 *       and 64 candidates with all ceilings active, record, begin + end, refresh), one fork, 3 + 4 iterations of
 *       400 ms: {@value #QUICK_RUNS} runs, about 1.5 minutes of JMH on 2 cores. One short fork on a shared machine
 *       cannot judge a time, so it judges allocation only; times and ratios are printed, and marked when over
 *       budget, but not judged;</li>
 *   <li>{@code full}: every benchmark, three forks, 5 x 1 s warm-up and measurement, every parameter; it judges every
 *       budget, for release figures (from a quiet machine).</li>
 * </ul>
 * When a row fails what its profile judges, the report is written and the runner exits with status 1, so the build
 * fails too: a FAIL row never comes with BUILD SUCCESS.
 * <p>
 * Usage: {@code BenchRunner quick|full RESULT_JSON [INCLUDE_REGEX]} (the regex replaces the profile's set). Any other
 * JMH use goes through the jar's own {@code org.openjdk.jmh.Main}.
 * <p>
 * This class runs on the main thread only.
 */
public final class BenchRunner
{
    private static final String PACKAGE = "io.multifactor.bench.";
    private static final String ALLOC_NORM = "gc.alloc.rate.norm";

    /** What the quick profile runs: the benchmarks with a budget and the baselines in their classes. */
    public static final String QUICK_INCLUDE = "io\\.multifactor\\.bench\\.(SelectBenchmark\\." +
        "(engine|kernel|handLoop|reference|referenceScorer)|RecordBenchmark\\..*|InflightBenchmark\\..*|RefreshBenchmark\\..*)$";

    /**
     * Runs of the quick profile: 5 select methods x 3 candidate counts, 2 record methods, begin + end and its
     * reference, refresh at 2 lease capacities.
     */
    public static final int QUICK_RUNS = 21;

    /** The quick profile's {@code candidates} parameter: the counts that have a budget. */
    static final String[] QUICK_CANDIDATES = { "4", "16", "64" };

    /** The quick profile's {@code ceilings} parameter: all ceilings active, as the budgets are stated. */
    static final String[] QUICK_CEILINGS = { "all" };

    private BenchRunner()
    {
    }

    /**
     * @param args {@code quick|full}, the JSON result file, and optionally an include regex.
     * @throws RunnerException when JMH fails.
     * @throws IOException when the report cannot be written.
     */
    public static void main(final String[] args) throws RunnerException, IOException
    {
        if (args.length < 2 || !("quick".equals(args[0]) || "full".equals(args[0])))
        {
            System.err.println("usage: BenchRunner quick|full RESULT_JSON [INCLUDE_REGEX]");
            System.exit(2);
            return;
        }
        final String mode = args[0];
        final Path json = Path.of(args[1]).toAbsolutePath();
        final boolean quick = "quick".equals(mode);
        final String include = args.length > 2 && !args[2].isBlank() ? args[2] :
            quick ? QUICK_INCLUDE : PACKAGE.replace(".", "\\.") + ".*";
        Files.createDirectories(json.getParent());

        final ChainedOptionsBuilder options = new OptionsBuilder()
            .include(include)
            .addProfiler(GCProfiler.class)
            .resultFormat(ResultFormatType.JSON)
            .result(json.toString())
            .shouldFailOnError(true);
        if (quick)
        {
            options.forks(1)
                .warmupIterations(3).warmupTime(TimeValue.milliseconds(400))
                .measurementIterations(4).measurementTime(TimeValue.milliseconds(400))
                .param("candidates", QUICK_CANDIDATES)
                .param("ceilings", QUICK_CEILINGS);
        }
        else
        {
            options.forks(3)
                .warmupIterations(5).warmupTime(TimeValue.seconds(1))
                .measurementIterations(5).measurementTime(TimeValue.seconds(1));
        }

        final long startNs = System.nanoTime();
        final Collection<RunResult> results = new Runner(options.build()).run();
        final long seconds = (System.nanoTime() - startNs) / 1_000_000_000L;

        final List<ReportRow> rows = rows(results);
        final int failures = ReportTable.failures(rows, !quick);
        final String report = "# multi-factor benchmarks (" + mode + " profile)\n\n" +
            MachineInfo.describe() + "- JMH run time: " + seconds + " s\n- JSON: `" + json + "`\n" +
            MemoryFootprint.measure() + "\n" +
            (quick ? QUICK_NOTE : "") +
            ReportTable.render(rows, !quick) + "\n" +
            "Ratios come from the same run: speedup vs reference = reference time / this time; " +
            "x hand loop = this time / hand-loop time. " +
            "Budgets: the goals of mf-bench/RESULTS.md; allocation below " + Budget.ZERO_BYTES_TOLERANCE + " B/op, or below " +
            (long)(Budget.ZERO_BYTES_PER_SECOND_TOLERANCE / 1024) + " KB/s (JMH's own bookkeeping), counts as 0 B.\n" +
            "Rows failing their budget" + (quick ? " (allocation only)" : "") + ": " + failures + "\n";
        final Path markdown = json.resolveSibling(stripExtension(json.getFileName().toString()) + ".md");
        Files.writeString(markdown, report, StandardCharsets.UTF_8);
        System.out.println();
        System.out.println(report);
        System.out.println("Report written to " + markdown);
        if (failures > 0)
        {
            System.out.println(failures + (failures == 1 ? " row fails" : " rows fail") + " its budget: exit status 1");
            System.exit(1);
        }
    }

    /** What a quick report says before its table. */
    static final String QUICK_NOTE = "Quick profile: one fork of 4 x 400 ms per case on a shared machine moves times " +
        "by 2x, so it judges allocation only: PASS (alloc only) or FAIL (alloc); a time or ratio over its budget is " +
        "marked \"over, not judged\". Verdicts on time come from the full profile on a quiet machine.\n\n";

    static List<ReportRow> rows(final Collection<RunResult> results)
    {
        final List<ReportRow> rows = new ArrayList<>();
        for (final RunResult run : results)
        {
            final String benchmark = simpleName(run.getParams().getBenchmark());
            final Map<String, String> params = new LinkedHashMap<>();
            for (final String key : run.getParams().getParamsKeys())
            {
                params.put(key, run.getParams().getParam(key));
            }
            final Map<String, String> frozen = Collections.unmodifiableMap(params);
            final Result<?> primary = run.getPrimaryResult();
            final Result<?> alloc = run.getSecondaryResults().get(ALLOC_NORM);
            final double bytesPerOp = alloc == null ? Double.NaN : alloc.getScore();
            rows.add(new ReportRow(
                benchmark, frozen, toNs(primary.getScore(), primary.getScoreUnit()),
                toNs(primary.getScoreError(), primary.getScoreUnit()), bytesPerOp));
            // A @Group reports each of its methods as a secondary result named after the method.
            for (final String label : run.getSecondaryResults().keySet())
            {
                final Result<?> sub = run.getSecondaryResults().get(label);
                if (!label.startsWith("gc.") && sub.getScoreUnit().endsWith("/op"))
                {
                    rows.add(new ReportRow(
                        benchmark + ":" + label, frozen, toNs(sub.getScore(), sub.getScoreUnit()),
                        toNs(sub.getScoreError(), sub.getScoreUnit()), Double.NaN));
                }
            }
        }
        return rows;
    }

    private static String simpleName(final String benchmark)
    {
        return benchmark.startsWith(PACKAGE) ? benchmark.substring(PACKAGE.length()) : benchmark;
    }

    private static double toNs(final double value, final String unit)
    {
        switch (unit)
        {
            case "ns/op":
                return value;
            case "us/op":
                return value * 1e3;
            case "ms/op":
                return value * 1e6;
            case "s/op":
                return value * 1e9;
            default:
                throw new IllegalStateException("unexpected unit " + unit + ": every benchmark reports time per op");
        }
    }

    private static String stripExtension(final String name)
    {
        final int dot = name.lastIndexOf('.');
        return dot < 0 ? name : name.substring(0, dot);
    }
}
