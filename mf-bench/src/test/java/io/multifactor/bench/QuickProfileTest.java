package io.multifactor.bench;

import org.junit.jupiter.api.Test;
import org.openjdk.jmh.runner.BenchmarkList;
import org.openjdk.jmh.runner.BenchmarkListEntry;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.VerboseMode;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The quick profile runs what it can judge and no more: every benchmark with a budget, the baselines of their classes,
 * nothing else, in the number of runs its documentation states (which sets how long it takes).
 */
class QuickProfileTest
{
    @Test
    void shouldRunTheBudgetedBenchmarksAndTheirBaselinesInTheDocumentedNumberOfRuns()
    {
        final List<String> runs = new ArrayList<>();
        for (final BenchmarkListEntry entry : entries(BenchRunner.QUICK_INCLUDE))
        {
            for (final Map<String, String> params : combinations(entry))
            {
                runs.add(simpleName(entry) + " " + params);
            }
        }

        assertThat(runs).hasSize(BenchRunner.QUICK_RUNS);
        // docs/benchmarks.md states the time from this count.
        assertThat(readme()).contains("quick profile: " + BenchRunner.QUICK_RUNS + " runs");
        for (final String run : runs)
        {
            final String benchmark = run.substring(0, run.indexOf(' '));
            final String method = benchmark.substring(benchmark.indexOf('.') + 1);
            final boolean baseline = method.startsWith(ReportTable.REFERENCE) || method.equals(ReportTable.HAND_LOOP);
            assertThat(baseline || Budgets.of(benchmark, paramsOf(run)).isSet()).as(run + " has a budget or is a baseline")
                .isTrue();
        }
    }

    @Test
    void shouldLeaveOutNoBenchmarkThatHasABudget()
    {
        final List<String> quick = new ArrayList<>();
        for (final BenchmarkListEntry entry : entries(BenchRunner.QUICK_INCLUDE))
        {
            quick.add(simpleName(entry));
        }
        for (final BenchmarkListEntry entry : entries(".*"))
        {
            for (final Map<String, String> params : combinations(entry))
            {
                if (Budgets.of(simpleName(entry), params).isSet())
                {
                    assertThat(quick).as("budgeted " + simpleName(entry)).contains(simpleName(entry));
                }
            }
        }
    }

    private static String readme()
    {
        try
        {
            return Files.readString(Path.of("..", "docs", "benchmarks.md"));
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    private static SortedSet<BenchmarkListEntry> entries(final String include)
    {
        final PrintStream silent = new PrintStream(OutputStream.nullOutputStream());
        return BenchmarkList.defaultList().find(
            OutputFormatFactory.createFormatInstance(silent, VerboseMode.SILENT), List.of(include), List.of());
    }

    /** Every parameter combination JMH runs for the entry under the quick profile's overrides. */
    private static List<Map<String, String>> combinations(final BenchmarkListEntry entry)
    {
        final Map<String, String[]> overrides = Map.of(
            "candidates", BenchRunner.QUICK_CANDIDATES, "ceilings", BenchRunner.QUICK_CEILINGS);
        List<Map<String, String>> combinations = new ArrayList<>();
        combinations.add(new HashMap<>());
        if (entry.getParams().hasValue())
        {
            for (final Map.Entry<String, String[]> param : entry.getParams().get().entrySet())
            {
                final String[] values = overrides.getOrDefault(param.getKey(), param.getValue());
                final List<Map<String, String>> next = new ArrayList<>();
                for (final Map<String, String> partial : combinations)
                {
                    for (final String value : values)
                    {
                        final Map<String, String> extended = new HashMap<>(partial);
                        extended.put(param.getKey(), value);
                        next.add(extended);
                    }
                }
                combinations = next;
            }
        }
        return combinations;
    }

    private static String simpleName(final BenchmarkListEntry entry)
    {
        return entry.getUsername().substring("io.multifactor.bench.".length());
    }

    private static Map<String, String> paramsOf(final String run)
    {
        final Map<String, String> params = new HashMap<>();
        final String body = run.substring(run.indexOf('{') + 1, run.lastIndexOf('}'));
        for (final String pair : body.split(", "))
        {
            if (!pair.isEmpty())
            {
                params.put(pair.substring(0, pair.indexOf('=')), pair.substring(pair.indexOf('=') + 1));
            }
        }
        return params;
    }
}
