package io.multifactor.config;

import io.multifactor.api.ConfigProblem;
import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.LoadMetric;
import io.multifactor.kernel.plan.Pick;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * {@code pick}, {@code load_metric} and {@code slo.max_inflight_tokens} (section 4.4): read into the plan, and
 * {@code pick: p2c} refused, located, with the lexicographic objective, a tie band and a random tie-break. Line numbers
 * refer to {@link ConfigRefusalTest#VALID}, whose line 23 ({@code on_no_candidates}) is followed by the added lines.
 */
class PickAndLoadConfigTest
{
    static String with(final String... lines)
    {
        return ConfigRefusalTest.VALID.replace("        on_no_candidates: cheapest\n",
            "        on_no_candidates: cheapest\n" + String.join("\n", lines) + "\n");
    }

    static DecisionPlan plan(final String yaml) throws Exception
    {
        final LoadedConfig loaded = ConfigLoader.load("r.yaml", yaml, null);
        assertThat(loaded.warnings()).isEmpty();
        return loaded.plans().decision(loaded.plans().decisionId("d"));
    }

    @Test
    void shouldDefaultToBestRequestsAndNoTokenCeiling() throws Exception
    {
        final DecisionPlan plan = plan(ConfigRefusalTest.VALID);
        assertThat(plan.pick()).isEqualTo(Pick.BEST);
        assertThat(plan.loadMetric()).isEqualTo(LoadMetric.REQUESTS);
        assertThat(plan.effectiveMaxInflightTokens()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void shouldReadP2cTokensAndTheTokenCeiling() throws Exception
    {
        final DecisionPlan plan = plan(with("        pick: p2c", "        load_metric: tokens")
            .replace("          max_inflight: 50\n", "          max_inflight: 50\n          max_inflight_tokens: 200000\n"));
        assertThat(plan.pick()).isEqualTo(Pick.P2C);
        assertThat(plan.tokenLoad()).isTrue();
        assertThat(plan.effectiveMaxInflightTokens()).isEqualTo(200_000L);
        assertThat(plan.effectiveMaxInflight()).as("max_inflight still counts requests").isEqualTo(50L);
    }

    @Test
    void shouldRefuseP2cWithATieBandOrARandomBreakWhereEachIs()
    {
        assertRefused(with("        pick: p2c", "        tie_band: 0.05", "        tie_break: random"),
            "r.yaml:25:19: decisions[0].algorithm.multi_factor.tie_band: tie_band must be 0 with pick: p2c, got 0.05 " +
            "(p2c picks the better of two survivors drawn at random on the weighted objective)",
            "r.yaml:26:20: decisions[0].algorithm.multi_factor.tie_break: tie_break: random does not go with pick: " +
            "p2c, got \"random\" (p2c picks the better of two survivors drawn at random on the weighted objective)");
    }

    @Test
    void shouldRefuseP2cWithTheLexicographicObjective()
    {
        assertRefused(with("        pick: p2c", "        objective: lexicographic", "        priority: [quality]"),
            "r.yaml:24:15: decisions[0].algorithm.multi_factor.pick: pick: p2c applies to the weighted objective " +
            "only, but the objective is lexicographic (p2c picks the better of two survivors drawn at random on the " +
            "weighted objective)");
    }

    @Test
    void shouldRefuseUnknownWordsWithTheNearestAndANegativeTokenCeiling()
    {
        final List<String> messages = messages(with("        pick: p2", "        load_metric: token")
            .replace("          max_inflight: 50\n", "          max_inflight: 50\n          max_inflight_tokens: -5\n"));
        assertThat(messages).hasSize(3);
        assertThat(messages.get(0)).startsWith("r.yaml:22:32: decisions[0].algorithm.multi_factor.slo.max_inflight_tokens:");
        assertThat(messages.get(1)).startsWith("r.yaml:25:15: decisions[0].algorithm.multi_factor.pick:")
            .contains("p2").contains("p2c");
        assertThat(messages.get(2)).startsWith("r.yaml:26:22: decisions[0].algorithm.multi_factor.load_metric:")
            .contains("tokens");
    }

    private static void assertRefused(final String yaml, final String... expected)
    {
        assertThat(messages(yaml)).containsExactly(expected);
    }

    static List<String> messages(final String yaml)
    {
        final InvalidConfigurationException thrown =
            catchThrowableOfType(InvalidConfigurationException.class, () -> ConfigLoader.load("r.yaml", yaml, null));
        assertThat(thrown).as("refused").isNotNull();
        final List<String> messages = new ArrayList<>();
        for (final ConfigProblem problem : thrown.problems())
        {
            messages.add(problem.toString());
        }
        return messages;
    }
}
