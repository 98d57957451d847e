package io.multifactor.config;

import io.multifactor.api.ConfigProblem;
import io.multifactor.api.Factor;
import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.api.LatencyMetric;
import io.multifactor.api.Objective;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.TieBreak;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The keys of the extensions (quality floor, latency metric, cost mix, lexicographic objective, near ties): accepted
 * values reach the plan, defaults reproduce the plain weighted plan, and every bad value is refused with its located
 * message. The decision's {@code multi_factor} block starts at line 12 of every file here: {@link #file} appends the
 * given lines from line 13.
 */
class RankingConfigTest
{
    private static final String HEAD = String.join("\n",
        "models:",                                                          // 1
        "  - name: a",                                                      // 2
        "    quality_score: 0.9",                                           // 3
        "    pricing: {prompt_per_1m: 10.0, completion_per_1m: 30.0}",      // 4
        "  - name: b",                                                      // 5
        "    pricing: {prompt_per_1m: 1.0}",                                // 6
        "decisions:",                                                       // 7
        "  - name: d",                                                      // 8
        "    modelRefs: [{model: a}, {model: b}]",                          // 9
        "    algorithm:",                                                   // 10
        "      type: multi_factor",                                         // 11
        "      multi_factor:",                                              // 12
        "");

    private static final String MF = "decisions[0].algorithm.multi_factor.";

    private static String file(final String... lines)
    {
        final StringBuilder yaml = new StringBuilder(HEAD);
        for (final String line : lines)
        {
            yaml.append("        ").append(line).append('\n');
        }
        return yaml.toString();
    }

    private static DecisionPlan plan(final String yaml) throws InvalidConfigurationException
    {
        final LoadedConfig loaded = ConfigLoader.load("r.yaml", yaml, null);
        return loaded.plans().decision(loaded.plans().decisionId("d"));
    }

    @Test
    void shouldCompileEveryDefaultWhenTheKeysAreAbsent() throws Exception
    {
        final DecisionPlan plan = plan(file("on_no_candidates: first"));
        assertThat(plan.hasQualityFloor()).isFalse();
        assertThat(plan.minQuality()).isZero();
        assertThat(plan.latencyMetric()).isEqualTo(LatencyMetric.AUTO);
        assertThat(plan.costMixPrompt()).isEqualTo(1.0);
        assertThat(plan.costMixCompletion()).isZero();
        assertThat(plan.costPer1M(0)).isEqualTo(plan.promptPer1M(0));
        assertThat(plan.costPer1M(1)).isEqualTo(plan.promptPer1M(1));
        assertThat(plan.objective()).isEqualTo(Objective.WEIGHTED);
        assertThat(plan.priorityCount()).isZero();
        assertThat(plan.tieBand()).isZero();
        assertThat(plan.tieBreak()).isEqualTo(TieBreak.FIRST);
        assertThat(plan.spreadsTies()).isFalse();
    }

    @Test
    void shouldCompileFloorMetricMixBandAndBreak() throws Exception
    {
        final DecisionPlan plan = plan(file(
            "slo: {min_quality: 0.5}",
            "latency_metric: ttft",
            "cost_mix: {prompt: 3, completion: 1}",
            "tie_band: 0.02",
            "tie_break: random"));
        assertThat(plan.hasQualityFloor()).isTrue();
        assertThat(plan.minQuality()).isEqualTo(0.5);
        assertThat(plan.latencyMetric()).isEqualTo(LatencyMetric.TTFT);
        assertThat(plan.costPer1M(0)).isCloseTo((3 * 10.0 + 30.0) / 4, org.assertj.core.api.Assertions.within(1e-12));
        assertThat(plan.costPer1M(1)).as("b has no completion price, and completion has a share").isNaN();
        assertThat(plan.tieBand()).isEqualTo(0.02);
        assertThat(plan.tieBreak()).isEqualTo(TieBreak.RANDOM);
        assertThat(plan.spreadsTies()).isTrue();
    }

    @Test
    void shouldTakeAMissingCostMixKeyAsZero() throws Exception
    {
        final DecisionPlan plan = plan(file("cost_mix: {completion: 2}"));
        assertThat(plan.costMixPrompt()).isZero();
        assertThat(plan.costPer1M(0)).isEqualTo(30.0);
        assertThat(plan.costPer1M(1)).isNaN();
    }

    @Test
    void shouldCompileTheLexicographicObjective() throws Exception
    {
        final DecisionPlan plan = plan(file(
            "objective: lexicographic",
            "priority: [quality, latency, cost]",
            "tolerance: 0.05",
            "tie_break: random"));
        assertThat(plan.objective()).isEqualTo(Objective.LEXICOGRAPHIC);
        assertThat(plan.priorityCount()).isEqualTo(3);
        assertThat(plan.priority(0)).isEqualTo(Factor.QUALITY);
        assertThat(plan.priority(1)).isEqualTo(Factor.LATENCY);
        assertThat(plan.priority(2)).isEqualTo(Factor.COST);
        assertThat(plan.tolerance()).isEqualTo(0.05);
        assertThat(plan.tieBreak()).isEqualTo(TieBreak.RANDOM);
    }

    @Test
    void shouldWarnThatWeightsAreIgnoredByTheLexicographicObjective() throws Exception
    {
        final LoadedConfig loaded = ConfigLoader.load("r.yaml", file(
            "weights: {quality: 1}",
            "objective: lexicographic",
            "priority: [quality]"), null);
        assertThat(loaded.warnings()).extracting(ConfigProblem::toString)
            .containsExactly("r.yaml:13:18: " + MF + "weights: weights are ignored by objective: lexicographic");
    }

    @Test
    void shouldRefuseANegativeQualityFloor()
    {
        assertRefused(file("slo: {min_quality: -0.1}"),
            "r.yaml:13:28: " + MF + "slo.min_quality: must be >= 0, got -0.1");
    }

    @Test
    void shouldRefuseAnUnknownLatencyMetricWithTheNearestWord()
    {
        assertRefused(file("latency_metric: tpott"),
            "r.yaml:13:25: " + MF + "latency_metric: unknown latency_metric \"tpott\" (expected auto, tpot or ttft; " +
            "did you mean tpot?)");
    }

    @Test
    void shouldRefuseACostMixOfTwoZeros()
    {
        assertRefused(file("cost_mix: {prompt: 0, completion: 0}"),
            "r.yaml:13:19: " + MF + "cost_mix: prompt and completion must not both be 0, got a mapping " +
            "{prompt: 0, completion: 0}");
    }

    @Test
    void shouldRefuseAnEmptyCostMix()
    {
        assertRefused(file("cost_mix: {}"),
            "r.yaml:13:19: " + MF + "cost_mix: prompt and completion must not both be 0, got a mapping {}");
    }

    @Test
    void shouldRefuseANegativeOrNonFiniteCostShareAndAnUnknownKey()
    {
        assertRefused(file(
            "cost_mix: {prompt: -1, completion: .nan}",
            "tie_band: 0.1"),
            "r.yaml:13:28: " + MF + "cost_mix.prompt: must be >= 0, got -1",
            "r.yaml:13:44: " + MF + "cost_mix.completion: must be a finite number, got .nan");
        assertRefused(file("cost_mix: {prompt: 1, complete: 3}"),
            "r.yaml:13:31: " + MF + "cost_mix.complete: unknown key \"complete\" (did you mean completion?)");
    }

    @Test
    void shouldRefuseACostMixTooLargeToAddUp()
    {
        assertRefused(file("cost_mix: {prompt: 1e308, completion: 1e308}"),
            "r.yaml:13:19: " + MF + "cost_mix: prompt and completion are too large to add up; scale them down, got " +
            "a mapping {prompt: 1e308, completion: 1e308}");
    }

    @Test
    void shouldRefuseAMisspeltObjectiveOnceWithTheNearestWord()
    {
        assertRefused(file(
            "objective: lexicografic",
            "priority: [quality]"),
            "r.yaml:13:20: " + MF + "objective: unknown objective \"lexicografic\" (expected weighted or " +
            "lexicographic; did you mean lexicographic?)");
    }

    @Test
    void shouldRefuseADuplicateAndAnUnknownPriorityFactor()
    {
        assertRefused(file(
            "objective: lexicographic",
            "priority: [quality, latncy, cost, quality]"),
            "r.yaml:14:29: " + MF + "priority[1]: unknown factor \"latncy\" (expected quality, latency, cost or load; " +
            "did you mean latency?)",
            "r.yaml:14:43: " + MF + "priority[3]: duplicate factor \"quality\" in priority (first at line 14, column 20)");
    }

    @Test
    void shouldRefuseAnEmptyPriorityAndANonStringFactor()
    {
        assertRefused(file(
            "objective: lexicographic",
            "priority: []"),
            "r.yaml:14:19: " + MF + "priority: must not be empty, got []; list one or more of quality, latency, cost or " +
            "load");
        assertRefused(file(
            "objective: lexicographic",
            "priority: [quality, 2]"),
            "r.yaml:14:29: " + MF + "priority[1]: expected a string, got 2");
    }

    @Test
    void shouldRefusePriorityAndToleranceWithoutTheLexicographicObjective()
    {
        assertRefused(file(
            "priority: [cost]",
            "tolerance: 0.1"),
            "r.yaml:13:19: " + MF + "priority: priority applies to objective: lexicographic only, but the objective is " +
            "weighted (the default); add objective: lexicographic or remove priority",
            "r.yaml:14:20: " + MF + "tolerance: tolerance applies to objective: lexicographic only, but the objective " +
            "is weighted (the default), got 0.1");
        assertRefused(file(
            "objective: weighted",
            "priority: [cost]"),
            "r.yaml:14:19: " + MF + "priority: priority applies to objective: lexicographic only, but the objective is " +
            "weighted; add objective: lexicographic or remove priority");
    }

    @Test
    void shouldRefuseTheLexicographicObjectiveWithoutPriority()
    {
        assertRefused(file("objective: lexicographic"),
            "r.yaml:13:20: " + MF + "priority: objective: lexicographic needs a priority, such as " +
            "[quality, latency, cost, load]");
    }

    @Test
    void shouldRefuseATieBandWithTheLexicographicObjective()
    {
        assertRefused(file(
            "objective: lexicographic",
            "priority: [quality]",
            "tie_band: 0.1"),
            "r.yaml:15:19: " + MF + "tie_band: tie_band applies to the weighted objective only (objective: " +
            "lexicographic keeps every candidate within tolerance instead), got 0.1");
    }

    @Test
    void shouldRefuseToleranceAndTieBandOutsideTheUnitInterval()
    {
        assertRefused(file(
            "tie_band: -0.1"),
            "r.yaml:13:19: " + MF + "tie_band: must be in 0..1, got -0.1");
        assertRefused(file(
            "objective: lexicographic",
            "priority: [quality]",
            "tolerance: 1.5"),
            "r.yaml:15:20: " + MF + "tolerance: must be in 0..1, got 1.5");
    }

    @Test
    void shouldRefuseAnUnknownTieBreakWithTheNearestWord()
    {
        assertRefused(file("tie_break: randon"),
            "r.yaml:13:20: " + MF + "tie_break: unknown tie_break \"randon\" (expected first or random; did you mean " +
            "random?)");
    }

    @Test
    void shouldReportEveryProblemOfTheFileAtOnce()
    {
        assertRefused(file(
            "slo: {min_quality: -1}",
            "latency_metric: ttfy",
            "tie_break: firsts",
            "priority: [loads]"),
            "r.yaml:13:28: " + MF + "slo.min_quality: must be >= 0, got -1",
            "r.yaml:14:25: " + MF + "latency_metric: unknown latency_metric \"ttfy\" (expected auto, tpot or ttft; " +
            "did you mean ttft?)",
            "r.yaml:15:20: " + MF + "tie_break: unknown tie_break \"firsts\" (expected first or random; did you mean " +
            "first?)",
            "r.yaml:16:19: " + MF + "priority: priority applies to objective: lexicographic only, but the objective is " +
            "weighted (the default); add objective: lexicographic or remove priority",
            "r.yaml:16:20: " + MF + "priority[0]: unknown factor \"loads\" (expected quality, latency, cost or load; " +
            "did you mean load?)");
    }

    private static void assertRefused(final String yaml, final String... expected)
    {
        final InvalidConfigurationException thrown =
            catchThrowableOfType(InvalidConfigurationException.class, () -> ConfigLoader.load("r.yaml", yaml, null));
        assertThat(thrown).as("refused").isNotNull();
        final List<String> messages = new ArrayList<>();
        for (final ConfigProblem problem : thrown.problems())
        {
            messages.add(problem.toString());
        }
        assertThat(messages).containsExactly(expected);
    }
}
