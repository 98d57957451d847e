package io.multifactor.sim.suite;

import io.multifactor.api.InvalidConfigurationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The suite on the bundled scenarios, short: two scenarios, two policies, one seed of a few simulated seconds. */
class ComparisonSuiteTest
{
    private static final Path EXAMPLES = Path.of("..", "examples", "compare");

    @Test
    void shouldReadTheSevenBundledScenariosEachWithItsRecommendedConfiguration() throws Exception
    {
        final List<Scenario> scenarios = ComparisonSuite.load(EXAMPLES);
        final List<String> names = new ArrayList<>();
        for (final Scenario scenario : scenarios)
        {
            names.add(scenario.name());
            assertThat(scenario.recommendedOrNull()).as(scenario.name()).isNotNull();
            assertThat(scenario.replicas()).isEqualTo(scenario.name().equals("7-fleet") ? 16 : 1);
        }
        assertThat(names).containsExactly("1-degrading", "2-chat-sessions", "3-shared-prefixes", "4-bursts",
            "5-failing-model", "6-mixed-sizes", "7-fleet");
        assertThat(scenarios.get(3).profile().bursts().burstRatePerS(10.0)).isEqualTo(30.0);
    }

    @Test
    void shouldMeasureEveryPolicyOfEveryScenarioAtItsKnee(@TempDir final Path dir) throws Exception
    {
        for (final String name : new String[] {"1-degrading", "3-shared-prefixes"})
        {
            for (final String suffix : new String[] {".yaml", ".profile.yaml", ".recommended.yaml"})
            {
                Files.copy(EXAMPLES.resolve(name + suffix), dir.resolve(name + suffix),
                    StandardCopyOption.REPLACE_EXISTING);
            }
        }
        final List<String> lines = new ArrayList<>();
        final List<ScenarioResult> results = ComparisonSuite.run(ComparisonSuite.load(dir),
            List.of("round_robin", ComparisonSuite.RECOMMENDED), 2, 2.0, 6.0, 2, line ->
            {
                synchronized (lines)
                {
                    lines.add(line);
                }
            });
        assertThat(results).hasSize(2);
        for (final ScenarioResult result : results)
        {
            assertThat(result.policies()).containsExactly("round_robin", ComparisonSuite.RECOMMENDED);
            assertThat(result.knee().ratePerS()).isBetween(LoadKnee.LOWEST_PER_S, LoadKnee.HIGHEST_PER_S);
            for (int p = 0; p < 2; p++)
            {
                assertThat(result.values()[p]).hasNumberOfRows(2);
                for (final SuiteColumn column : SuiteColumn.values())
                {
                    final double min = result.min(p, column);
                    final double max = result.max(p, column);
                    if (column != SuiteColumn.PREFIX_HIT_RATE)
                    {
                        assertThat(min).as(result.scenario().name() + " " + column).isNotNaN();
                    }
                    if (!Double.isNaN(min))
                    {
                        assertThat(min).isLessThanOrEqualTo(result.mean(p, column)).isLessThanOrEqualTo(max);
                    }
                }
                assertThat(result.min(p, SuiteColumn.SLO_ATTAINMENT)).isBetween(0.0, 1.0);
                assertThat(result.max(p, SuiteColumn.TTFT_P50_MS)).isLessThanOrEqualTo(
                    result.max(p, SuiteColumn.TTFT_P99_MS));
            }
            for (final SuiteColumn column : SuiteColumn.values())
            {
                final boolean any = result.best(0, column) || result.best(1, column);
                assertThat(any).as(column + " has a best").isEqualTo(!Double.isNaN(result.mean(0, column)));
                if (result.best(0, column) != result.best(1, column))
                {
                    final int better = result.best(0, column) ? 0 : 1;
                    final double sign = column.higherIsBetter() ? 1.0 : -1.0;
                    assertThat(sign * (result.mean(better, column) - result.mean(1 - better, column))).isPositive();
                }
            }
        }
        // Without prompts the servers see no prefix; with shared system prompts and affinity they hit.
        assertThat(results.get(0).min(0, SuiteColumn.PREFIX_HIT_RATE)).isNaN();
        assertThat(results.get(1).min(1, SuiteColumn.PREFIX_HIT_RATE)).isGreaterThan(0.0);
        assertThat(lines).anyMatch(line -> line.startsWith("suite: 1-degrading: knee "));
        assertThat(lines).anyMatch(line -> line.startsWith("suite: runs 8/8 "));
    }

    @Test
    void shouldGiveTheSameFiguresWhateverThePoolSize() throws Exception
    {
        final List<Scenario> one = ComparisonSuite.load(EXAMPLES).subList(0, 1);
        final List<ScenarioResult> serial = ComparisonSuite.run(one, List.of("multi_factor"), 2, 1.0, 4.0, 1,
            line -> { });
        final List<ScenarioResult> parallel = ComparisonSuite.run(one, List.of("multi_factor"), 2, 1.0, 4.0, 2,
            line -> { });
        assertThat(parallel.get(0).knee()).isEqualTo(serial.get(0).knee());
        assertThat(parallel.get(0).values()).isDeepEqualTo(serial.get(0).values());
    }

    @Test
    void shouldRefuseARecommendedConfigurationWithoutTheScenariosDecision(@TempDir final Path dir) throws Exception
    {
        Files.copy(EXAMPLES.resolve("1-degrading.yaml"), dir.resolve("1-degrading.yaml"));
        Files.copy(EXAMPLES.resolve("1-degrading.profile.yaml"), dir.resolve("1-degrading.profile.yaml"));
        Files.writeString(dir.resolve("1-degrading.recommended.yaml"),
            Files.readString(EXAMPLES.resolve("1-degrading.recommended.yaml")).replace("- name: chat", "- name: talk"));
        assertThatThrownBy(() -> ComparisonSuite.load(dir)).isInstanceOf(InvalidConfigurationException.class)
            .hasMessageContaining("1-degrading.recommended.yaml").hasMessageContaining("has no decision \"chat\"");
    }

    @Test
    void shouldJudgeEveryPolicyByTheScenariosCeilings() throws Exception
    {
        // round_robin is compiled without ceilings, and a recommended configuration may drop them: the SLO stays the
        // scenario's 1 s, so a run whose TTFTs all exceed 1 s meets none of it.
        final Scenario degrading = ComparisonSuite.load(EXAMPLES).get(0);
        final io.multifactor.sim.SteadyFigures overloaded = ComparisonSuite.run(degrading,
            ComparisonSuite.configFor(degrading, "round_robin"), 400.0, 1L, 5.0, 5.0);
        assertThat(overloaded.ttftMs(10)).isGreaterThan(1000.0);
        assertThat(overloaded.sloAttainment()).isLessThan(0.1);
        final io.multifactor.sim.SteadyFigures light = ComparisonSuite.run(degrading,
            ComparisonSuite.configFor(degrading, "round_robin"), 2.0, 1L, 5.0, 30.0);
        assertThat(light.sloAttainment()).isGreaterThan(0.9);
        assertThat(light.requests()).isBetween(30L, 100L);
    }

    @Test
    void shouldRefuseAScenarioWithoutItsConfiguration(@TempDir final Path dir) throws Exception
    {
        Files.copy(EXAMPLES.resolve("1-degrading.profile.yaml"), dir.resolve("1-degrading.profile.yaml"));
        assertThatThrownBy(() -> ComparisonSuite.load(dir)).isInstanceOf(InvalidConfigurationException.class)
            .hasMessageContaining("has no configuration");
    }

    @Test
    void shouldOfferEveryAlgorithmTypeThenTheRecommendedRow()
    {
        final List<String> policies = ComparisonSuite.policies();
        assertThat(policies.get(0)).isEqualTo("multi_factor");
        assertThat(policies).contains("round_robin", "aibrix_least_request");
        assertThat(policies.get(policies.size() - 1)).isEqualTo(ComparisonSuite.RECOMMENDED);
        assertThatThrownBy(() -> ComparisonSuite.run(List.of(), List.of("fastest"), 1, 1.0, 1.0, 1, line -> { }))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("fastest");
    }
}
