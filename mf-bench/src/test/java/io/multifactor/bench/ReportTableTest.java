package io.multifactor.bench;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class ReportTableTest
{
    private static final Map<String, String> FOUR_ALL = Map.of("candidates", "4", "ceilings", "all");
    private static final Map<String, String> SIXTEEN_ALL = Map.of("candidates", "16", "ceilings", "all");

    @Test
    void shouldPassSelectWithinItsHandLoopRatioAndWithoutAllocationWhateverItsAbsoluteTime()
    {
        assertThat(Budgets.of("SelectBenchmark.engine", FOUR_ALL).verdict(60.0, 0.001, 1.24)).isEqualTo("PASS");
        assertThat(Budgets.of("SelectBenchmark.engine", FOUR_ALL).verdict(24.0, 0.001, 1.25)).isEqualTo("PASS");
    }

    @Test
    void shouldFailSelectOverItsHandLoopRatioOrWithoutAHandLoopInTheRun()
    {
        assertThat(Budgets.of("SelectBenchmark.engine", FOUR_ALL).verdict(20.0, 0.0, 1.26)).isEqualTo("FAIL (ratio)");
        assertThat(Budgets.of("SelectBenchmark.kernel", SIXTEEN_ALL).verdict(20.0, 8.0, 1.5))
            .isEqualTo("FAIL (ratio, alloc)");
        assertThat(Budgets.of("SelectBenchmark.engine", Map.of("candidates", "64", "ceilings", "all"))
            .verdict(299.0, 0.0, Double.NaN)).isEqualTo("FAIL (ratio)");
    }

    @Test
    void shouldFailAnyAllocationAboveTolerance()
    {
        assertThat(Budgets.of("RecordBenchmark.recordTtftMicros", Map.of()).verdict(10.0, 16.0)).isEqualTo("FAIL (alloc)");
        assertThat(Budgets.of("InflightBenchmark.beginEnd", Map.of()).verdict(61.0, 24.0)).isEqualTo("FAIL (time, alloc)");
        assertThat(Budgets.of("InflightBenchmark.beginEnd", Map.of()).verdict(59.0, Double.NaN)).isEqualTo("FAIL (alloc)");
    }

    @Test
    void shouldAscribeASlowTrickleOfAllocationToJmhButNotARealAllocationPerOperation()
    {
        final Budget refresh = Budgets.of("RefreshBenchmark.refreshOneModel", Map.of());
        // 0.3 B/op at 9 us/op is 33 KB/s: JMH's own few kilobytes per iteration.
        assertThat(refresh.verdict(9_000.0, 0.3)).isEqualTo("PASS");
        // One 16-byte object per refresh at 9 us is 1.8 MB/s.
        assertThat(refresh.verdict(9_000.0, 16.0)).isEqualTo("FAIL (alloc)");
        // One 16-byte object every 16 selections at 20 ns is 50 MB/s.
        assertThat(Budgets.of("SelectBenchmark.engine", FOUR_ALL).verdict(20.0, 1.0, 1.0)).isEqualTo("FAIL (alloc)");
    }

    @Test
    void shouldCheckOnlyAllocationWhenCeilingsAreOff()
    {
        final Budget budget = Budgets.of("SelectBenchmark.engine", Map.of("candidates", "4", "ceilings", "none"));
        assertThat(budget.verdict(1_000.0, 0.0)).isEqualTo("PASS");
        assertThat(budget.verdict(1.0, 8.0)).isEqualTo("FAIL (alloc)");
    }

    @Test
    void shouldJudgeOnlyAllocationWhenTheRunCannotJudgeTimeAndMarkWhatIsOver()
    {
        final Budget select = Budgets.of("SelectBenchmark.engine", FOUR_ALL);
        assertThat(select.verdict(30.0, 0.0, 1.5, false)).isEqualTo("PASS (alloc only; ratio over, not judged)");
        assertThat(select.verdict(30.0, 0.0, 1.1, false)).isEqualTo("PASS (alloc only)");
        assertThat(select.verdict(30.0, 16.0, 1.5, false)).isEqualTo("FAIL (alloc)");
        final Budget beginEnd = Budgets.of("InflightBenchmark.beginEnd", Map.of());
        assertThat(beginEnd.verdict(90.0, 0.0, Double.NaN, false)).isEqualTo("PASS (alloc only; time over, not judged)");
        assertThat(new Budget(25.0, Double.NaN).verdict(90.0, 0.0, Double.NaN, false)).isEqualTo(Budget.NOT_JUDGED);

        final List<ReportRow> rows = List.of(
            new ReportRow("SelectBenchmark.engine", FOUR_ALL, 30.0, 2.0, 0.0),
            new ReportRow("SelectBenchmark.handLoop", FOUR_ALL, 10.0, 0.5, 0.0));
        assertThat(ReportTable.failures(rows, false)).isZero();
        assertThat(ReportTable.failures(rows, true)).isEqualTo(1);
        assertThat(ReportTable.render(rows, false)).contains("PASS (alloc only; ratio over, not judged)")
            .doesNotContain("FAIL");
    }

    @Test
    void shouldGiveBaselinesNoBudget()
    {
        assertThat(Budgets.of("SelectBenchmark.handLoop", FOUR_ALL).verdict(1e9, 1e3)).isEqualTo(Budget.NO_VERDICT);
        assertThat(Budgets.of("SelectBenchmark.reference", FOUR_ALL).isSet()).isFalse();
    }

    @Test
    void shouldUseMicrosecondBudgetForRefresh()
    {
        final Budget budget = Budgets.of("RefreshBenchmark.refreshOneModel", Map.of());
        assertThat(budget.verdict(9_900.0, 0.0)).isEqualTo("PASS");
        assertThat(budget.verdict(10_100.0, 0.0)).isEqualTo("FAIL (time)");
        assertThat(budget.label()).isEqualTo("<=10.0 us, 0 B");
    }

    @Test
    void shouldDivideByTheBaselineWithTheSameParameters()
    {
        final ReportRow engine = new ReportRow("SelectBenchmark.engine", FOUR_ALL, 20.0, 1.0, 0.0);
        final List<ReportRow> rows = List.of(
            engine,
            new ReportRow("SelectBenchmark.reference", SIXTEEN_ALL, 1_000.0, 1.0, 512.0),
            new ReportRow("SelectBenchmark.reference", FOUR_ALL, 200.0, 1.0, 256.0),
            new ReportRow("SelectBenchmark.handLoop", FOUR_ALL, 10.0, 1.0, 0.0),
            new ReportRow("RecordBenchmark.reference", FOUR_ALL, 1.0, 1.0, 0.0));

        assertThat(ReportTable.ratio(engine, rows, ReportTable.REFERENCE)).isCloseTo(0.1, within(1e-12));
        assertThat(ReportTable.ratio(engine, rows, ReportTable.HAND_LOOP)).isCloseTo(2.0, within(1e-12));
        assertThat(ReportTable.ratio(rows.get(3), rows, ReportTable.HAND_LOOP)).isNaN();
        assertThat(ReportTable.ratio(rows.get(3), rows, ReportTable.REFERENCE)).isCloseTo(0.05, within(1e-12));
    }

    @Test
    void shouldFormatRatiosWithFewerDecimalsAsTheyGrow()
    {
        assertThat(ReportTable.formatRatio(1.234)).isEqualTo("1.23");
        assertThat(ReportTable.formatRatio(12.34)).isEqualTo("12.3");
        assertThat(ReportTable.formatRatio(1234.5)).isEqualTo("1235");
        assertThat(ReportTable.formatRatio(Double.NaN)).isEqualTo("-");
    }

    @Test
    void shouldRenderOneAlignedLinePerRowWithVerdictsAndRatios()
    {
        final List<ReportRow> rows = List.of(
            new ReportRow("SelectBenchmark.engine", FOUR_ALL, 30.0, 2.0, 0.0),
            new ReportRow("SelectBenchmark.handLoop", FOUR_ALL, 10.0, 0.5, 0.0),
            new ReportRow("SelectBenchmark.reference", FOUR_ALL, 3_000.0, 5.0, 900.0));

        final String table = ReportTable.render(rows);
        final String[] lines = table.split("\n");

        assertThat(lines).hasSize(5);
        assertThat(lines[0]).contains(
            "benchmark", "params", "ns/op", "B/op", "budget", "verdict", "speedup vs reference", "x hand loop");
        assertThat(lines[2]).contains("SelectBenchmark.engine", "candidates=4", "30.0 ns", "± 2.0 ns",
            "<=1.25x hand loop (25.0 ns: info), 0 B", "FAIL (ratio)", "| 100 ", "| 3.00 ");
        assertThat(lines[3]).contains("SelectBenchmark.handLoop", "10.0 ns", "| 300 ");
        assertThat(lines[4]).contains("SelectBenchmark.reference", "3000.0 ns", "900.000", "| 300 ");
        for (final String line : lines)
        {
            assertThat(line).hasSameSizeAs(lines[0]);
        }
        assertThat(ReportTable.failures(rows)).isEqualTo(1);
    }
}
