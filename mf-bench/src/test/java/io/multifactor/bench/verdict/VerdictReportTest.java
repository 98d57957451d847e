package io.multifactor.bench.verdict;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class VerdictReportTest
{
    @TempDir
    Path dir;

    @Test
    void shouldPoolForkMeansOfEveryRoundAndConvertMicrosecondsToNanoseconds() throws IOException
    {
        write("a.json", result("io.multifactor.bench.SelectBenchmark.engine", "candidates", "4", "ns/op",
            new double[][] { { 10, 20 }, { 30, 30 } }, 0.002));
        write("b.json", result("io.multifactor.bench.SelectBenchmark.engine", "candidates", "4", "ns/op",
            new double[][] { { 40, 40 } }, 0.004));
        write("c.json", result("io.multifactor.bench.MetricsParseBenchmark.reader", "sizeKib", "64", "us/op",
            new double[][] { { 2, 4 } }, Double.NaN));
        steps("new\t1\t0.5\ta.json", "new\t2\t1.7\tb.json", "new\t1\t0.5\tc.json");

        final ForkScores scores = VerdictReport.load(dir);

        final String engine = ForkScores.rowKey("new", "SelectBenchmark.engine", "candidates=4");
        assertThat(scores.forkMeans(engine)).containsExactly(15.0, 30.0, 40.0);
        assertThat(scores.maxBytesPerOp(engine)).isEqualTo(0.004);
        assertThat(scores.busy(engine)).isTrue();
        assertThat(scores.forkMeans(ForkScores.rowKey("new", "MetricsParseBenchmark.reader", "sizeKib=64")))
            .containsExactly(3000.0);
    }

    @Test
    void shouldJudgeMetFailedAndInconclusiveFromTheWholeInterval()
    {
        final double[] control = { 100, 101, 99, 100, 100, 101, 99, 100, 100 };
        assertThat(PooledInterval.ratio(new double[] { 104, 105, 103, 104, 104, 105, 103, 104, 104 }, control)
            .verdictAtMost(1.10)).isEqualTo("met");
        assertThat(PooledInterval.ratio(new double[] { 130, 131, 129, 130, 130, 131, 129, 130, 130 }, control)
            .verdictAtMost(1.10)).isEqualTo("failed");
        assertThat(PooledInterval.ratio(new double[] { 80, 140, 90, 130, 100, 120, 85, 135, 110 }, control)
            .verdictAtMost(1.10)).isEqualTo("inconclusive");
        final PooledInterval difference = PooledInterval.difference(new double[] { 12, 14, 13 }, new double[] { 10, 10 });
        assertThat(difference.estimate()).isEqualTo(3.0);
        assertThat(difference.lower()).isEqualTo(2.0);
        assertThat(difference.upper()).isEqualTo(4.0);
    }

    @Test
    void shouldPrintEachGoalWithItsIntervalVerdictBusyMarkAllocationAndTheBaseJarComparison() throws IOException
    {
        write("n1.json", result("io.multifactor.bench.SelectBenchmark.engine", "candidates", "4", "ns/op",
            new double[][] { { 50 }, { 51 }, { 49 } }, 0.003));
        write("n2.json", result("io.multifactor.bench.SelectBenchmark.handLoopStoringCounting", "candidates", "4",
            "ns/op", new double[][] { { 40 }, { 41 }, { 39 } }, 0.001));
        write("b1.json", result("io.multifactor.bench.SelectBenchmark.engine", "candidates", "4", "ns/op",
            new double[][] { { 50 }, { 50 }, { 50 } }, 0.003));
        steps("new\t1\t0.9\tn1.json", "new\t1\t1.9\tn2.json", "base\t1\t0.9\tb1.json");
        final List<Goal> goals = List.of(
            Goal.ratio("select 4", "SelectBenchmark.engine candidates=4", "SelectBenchmark.handLoopStoringCounting " +
                "candidates=4", 1.10, true),
            Goal.absolute("parse", "MetricsParseBenchmark.reader sizeKib=64", 200_000));

        final String report = VerdictReport.render(VerdictReport.load(dir), goals);

        assertThat(report).contains("| select 4 | 50.0 / 40.0 ns = 1.250x |", "**failed** busy", "| 3 / 3 |");
        assertThat(report).contains("| parse | not run |");
        assertThat(report).contains("Allocation, 2 rows, largest fork mean 0.0030 B/op: 0 B/op **met** (");
        assertThat(report).contains("| SelectBenchmark.engine candidates=4 | 1.000x (50.0 / 50.0 ns) |");
    }

    @Test
    void shouldFailAllocationOnlyForARowOverBothTheBytesAndTheBytesPerSecondTolerance() throws IOException
    {
        // 0.5 B per 40 us is 12.5 KB/s (JMH's bookkeeping); 0.5 B per 50 ns is 10 MB/s (an allocation).
        write("slow.json", result("io.multifactor.bench.MetricsParseBenchmark.reader", "sizeKib", "64", "us/op",
            new double[][] { { 40 } }, 0.5));
        write("fast.json", result("io.multifactor.bench.SelectBenchmark.engine", "candidates", "4", "ns/op",
            new double[][] { { 50 } }, 0.5));
        steps("new\t1\t0.5\tslow.json");
        assertThat(VerdictReport.render(VerdictReport.load(dir), List.of())).contains("0 B/op **met**");
        steps("new\t1\t0.5\tslow.json", "new\t1\t0.5\tfast.json");
        assertThat(VerdictReport.render(VerdictReport.load(dir), List.of()))
            .contains("0 B/op **failed** by SelectBenchmark.engine candidates=4 (0.5000 B/op)");
    }

    @Test
    void shouldNameTheFileAndLineOfAMalformedStep() throws IOException
    {
        steps("new\t1\tbusy\tx.json");
        assertThatThrownBy(() -> VerdictReport.load(dir))
            .hasMessageContaining("steps.tsv:1: load is not a number: busy");
    }

    @Test
    void shouldFindEveryGoalOfTheReleaseSetInTheStepsOfTheScript() throws IOException
    {
        final String script = Files.readString(Path.of("verdicts.sh"), StandardCharsets.UTF_8);
        for (final Goal goal : ReleaseGoals.all())
        {
            final String benchmark = goal.measured().split(" ")[0];
            assertThat(script).as(goal.title()).contains(benchmark.substring(0, benchmark.indexOf('.')));
        }
    }

    private void steps(final String... lines) throws IOException
    {
        Files.write(dir.resolve("steps.tsv"), List.of(lines), StandardCharsets.UTF_8);
    }

    private void write(final String name, final String json) throws IOException
    {
        Files.writeString(dir.resolve(name), json, StandardCharsets.UTF_8);
    }

    private static String result(
        final String benchmark, final String param, final String value, final String unit, final double[][] forks,
        final double bytesPerOp)
    {
        final StringBuilder raw = new StringBuilder("[");
        final StringBuilder allocRaw = new StringBuilder("[");
        for (int f = 0; f < forks.length; f++)
        {
            raw.append(f == 0 ? "" : ",").append('[');
            for (int i = 0; i < forks[f].length; i++)
            {
                raw.append(i == 0 ? "" : ",").append(forks[f][i]);
            }
            raw.append(']');
            allocRaw.append(f == 0 ? "" : ",").append('[').append(bytesPerOp).append(']');
        }
        raw.append(']');
        allocRaw.append(']');
        final String secondary = Double.isNaN(bytesPerOp) ? "{}" :
            String.format(Locale.ROOT, "{\"gc.alloc.rate.norm\": {\"score\": %s, \"scoreUnit\": \"B/op\", " +
                "\"rawData\": %s}}", bytesPerOp, allocRaw);
        return "[{\"jmhVersion\": \"1.37\", \"benchmark\": \"" + benchmark + "\", \"mode\": \"avgt\", \"params\": {\"" +
            param + "\": \"" + value + "\"}, \"primaryMetric\": {\"score\": 1.0, \"scoreError\": \"NaN\", " +
            "\"scoreUnit\": \"" + unit + "\", \"rawData\": " + raw + "}, \"secondaryMetrics\": " + secondary + "}]";
    }
}
