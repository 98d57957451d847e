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
 *   <li>{@code quick}: one fork, short iterations, select at 4, 16 and 64 candidates with all ceilings active (the
 *       cases with a budget); a few minutes on 2 cores;</li>
 *   <li>{@code full}: three forks, 5 x 1 s warm-up and measurement, every parameter; for release figures.</li>
 * </ul>
 * Usage: {@code BenchRunner quick|full RESULT_JSON [INCLUDE_REGEX]}. Any other JMH use goes through the jar's own
 * {@code org.openjdk.jmh.Main}.
 * <p>
 * This class runs on the main thread only.
 */
public final class BenchRunner
{
    private static final String PACKAGE = "io.multifactor.bench.";
    private static final String ALLOC_NORM = "gc.alloc.rate.norm";

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
        final String include = args.length > 2 && !args[2].isBlank() ? args[2] : PACKAGE.replace(".", "\\.") + ".*";
        Files.createDirectories(json.getParent());

        final ChainedOptionsBuilder options = new OptionsBuilder()
            .include(include)
            .addProfiler(GCProfiler.class)
            .resultFormat(ResultFormatType.JSON)
            .result(json.toString())
            .shouldFailOnError(true);
        if ("quick".equals(mode))
        {
            options.forks(1)
                .warmupIterations(3).warmupTime(TimeValue.milliseconds(400))
                .measurementIterations(4).measurementTime(TimeValue.milliseconds(400))
                .param("candidates", "4", "16", "64")
                .param("ceilings", "all");
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
        final String report = "# multi-factor benchmarks (" + mode + " profile)\n\n" +
            MachineInfo.describe() + "- JMH run time: " + seconds + " s\n- JSON: `" + json + "`\n" +
            MemoryFootprint.measure() + "\n" +
            ReportTable.render(rows) + "\n" +
            "Ratios come from the same run: speedup vs reference = reference time / this time; " +
            "x hand loop = this time / hand-loop time. " +
            "Budgets: the goals of mf-bench/RESULTS.md; allocation below " + Budget.ZERO_BYTES_TOLERANCE + " B/op, or below " +
            (long)(Budget.ZERO_BYTES_PER_SECOND_TOLERANCE / 1024) + " KB/s (JMH's own bookkeeping), counts as 0 B.\n" +
            "Rows failing their budget: " + ReportTable.failures(rows) + "\n";
        final Path markdown = json.resolveSibling(stripExtension(json.getFileName().toString()) + ".md");
        Files.writeString(markdown, report, StandardCharsets.UTF_8);
        System.out.println();
        System.out.println(report);
        System.out.println("Report written to " + markdown);
    }

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
