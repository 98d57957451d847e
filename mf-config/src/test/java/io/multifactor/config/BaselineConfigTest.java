package io.multifactor.config;

import io.multifactor.api.ConfigProblem;
import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.kernel.plan.AlgorithmType;
import io.multifactor.kernel.plan.DecisionPlan;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * {@code algorithm.type} accepts the baseline policies: they reach the plan as a type code, without ceilings; the keys of
 * a {@code multi_factor} block that a baseline ignores are warned about, located; any other type is still refused. The
 * peers' policies likewise, with their own block {@code algorithm.<type>} read strictly.
 */
class BaselineConfigTest
{
    static String file(final String type, final String block)
    {
        return String.join("\n",
            "models:",                                        // 1
            "  - name: a",                                    // 2
            "  - name: b",                                    // 3
            "decisions:",                                     // 4
            "  - name: d",                                    // 5
            "    modelRefs: [{model: a}, {model: b}]",        // 6
            "    algorithm:",                                 // 7
            "      type: " + type,                            // 8
            block,                                            // 9..
            "");
    }

    private static final String BLOCK = String.join("\n",
        "      multi_factor:",                                // 9
        "        weights: {quality: 1.0}",                    // 10
        "        slo: {max_ttft_ms: 500}",                    // 11
        "        latency_percentile: 99",                     // 12
        "        on_no_candidates: fail");                    // 13

    @Test
    void shouldCompileEachBaselineIntoItsTypeWithoutCeilings() throws Exception
    {
        for (final String type : new String[] { "round_robin", "random", "least_inflight", "lowest_latency" })
        {
            final LoadedConfig loaded = ConfigLoader.load("b.yaml", file(type, BLOCK), null);
            final DecisionPlan plan = loaded.plans().decision(loaded.plans().decisionId("d"));
            assertThat(plan.algorithmType()).isEqualTo(AlgorithmType.parse(type));
            assertThat(plan.maxTtftMs()).isZero();
            assertThat(plan.percentile()).isEqualTo(99);
            // The block is kept as read: a load test reads the decision's ceilings from it.
            assertThat(loaded.config().decisions().get(0).multiFactor().slo().maxTtftMs()).isEqualTo(500.0);
            assertThat(loaded.config().decisions().get(0).algorithmType()).isEqualTo(AlgorithmType.parse(type));
        }
    }

    @Test
    void shouldWarnAboutEveryKeyARoundRobinIgnores() throws Exception
    {
        final LoadedConfig loaded = ConfigLoader.load("b.yaml", file("round_robin", BLOCK), null);
        assertThat(loaded.warnings()).extracting(ConfigProblem::toString).containsExactly(
            "b.yaml:10:18: decisions[0].algorithm.multi_factor.weights: weights are ignored by type round_robin " +
                "(a baseline policy)",
            "b.yaml:11:14: decisions[0].algorithm.multi_factor.slo: ceilings (slo) are ignored by type round_robin " +
                "(a baseline policy)",
            "b.yaml:12:29: decisions[0].algorithm.multi_factor.latency_percentile: latency_percentile is ignored by " +
                "type round_robin (a baseline policy)",
            "b.yaml:13:27: decisions[0].algorithm.multi_factor.on_no_candidates: on_no_candidates is ignored by type " +
                "round_robin (a baseline policy)");
    }

    @Test
    void shouldNotWarnAboutTheLatencyKeysLowestLatencyReads() throws Exception
    {
        final LoadedConfig loaded = ConfigLoader.load("b.yaml", file("lowest_latency", BLOCK), null);
        assertThat(loaded.warnings()).extracting(ConfigProblem::path).containsExactly(
            "decisions[0].algorithm.multi_factor.weights",
            "decisions[0].algorithm.multi_factor.slo",
            "decisions[0].algorithm.multi_factor.on_no_candidates");
    }

    @Test
    void shouldKeepMultiFactorTheDefaultWithoutWarnings() throws Exception
    {
        final LoadedConfig loaded = ConfigLoader.load("b.yaml", file("multi_factor", BLOCK), null);
        assertThat(loaded.warnings()).isEmpty();
        final DecisionPlan plan = loaded.plans().decision(0);
        assertThat(plan.algorithmType()).isEqualTo(AlgorithmType.MULTI_FACTOR);
        assertThat(plan.maxTtftMs()).isEqualTo(500.0);
        assertThat(loaded.config().decisions().get(0).withAlgorithmType(AlgorithmType.RANDOM).algorithmType())
            .isEqualTo(AlgorithmType.RANDOM);
    }

    @Test
    void shouldStillRefuseAnyOtherTypeWithASuggestion()
    {
        final InvalidConfigurationException refused = catchThrowableOfType(InvalidConfigurationException.class,
            () -> ConfigLoader.load("b.yaml", file("round_robbin", ""), null));
        assertThat(refused.problems()).extracting(ConfigProblem::toString).containsExactly(
            "b.yaml:8:13: decisions[0].algorithm.type: unsupported algorithm type \"round_robbin\": this library " +
                "implements multi_factor and the baselines round_robin, random, least_inflight and lowest_latency, " +
                "and the peers' policies litellm_simple_shuffle, litellm_least_busy, aibrix_least_request, " +
                "llmd_weighted and llmd_sticky (did you mean round_robin?)");
    }

    // The peers' policies: each compiles into its type code; its block algorithm.<type> is read strictly.

    @Test
    void shouldCompileEachPeerPolicyIntoItsTypeWithOrWithoutItsBlock() throws Exception
    {
        for (final String type : new String[] { "litellm_simple_shuffle", "litellm_least_busy", "aibrix_least_request" })
        {
            for (final String block : new String[] { "", "      " + type + ": {}" })
            {
                final LoadedConfig loaded = ConfigLoader.load("b.yaml", file(type, block), null);
                final DecisionPlan plan = loaded.plans().decision(loaded.plans().decisionId("d"));
                assertThat(plan.algorithmType()).as(type + block).isEqualTo(AlgorithmType.parse(type));
                assertThat(AlgorithmType.isPeer(plan.algorithmType())).isTrue();
                assertThat(loaded.warnings()).isEmpty();
            }
        }
        assertThat(AlgorithmType.isPeer(AlgorithmType.LEAST_INFLIGHT)).isFalse();
    }

    @Test
    void shouldRefuseAKeyAPeerDoesNotHaveLocated()
    {
        final InvalidConfigurationException refused = catchThrowableOfType(InvalidConfigurationException.class,
            () -> ConfigLoader.load("b.yaml", file("litellm_least_busy", "      litellm_least_busy: {ttl: 60}"), null));
        assertThat(refused.problems()).extracting(ConfigProblem::toString).containsExactly(
            "b.yaml:9:28: decisions[0].algorithm.litellm_least_busy.ttl: unknown key \"ttl\"");
    }

    @Test
    void shouldRefuseAPeerBlockBesideAnotherTypeAndSuggestAMistypedBlockName()
    {
        final InvalidConfigurationException refused = catchThrowableOfType(InvalidConfigurationException.class,
            () -> ConfigLoader.load("b.yaml", file("litellm_simple_shuffle", String.join("\n",
                "      aibrix_least_request: {}",                     // 9
                "      litellm_simple_shufle: {}")), null));          // 10
        assertThat(refused.problems()).extracting(ConfigProblem::toString).containsExactly(
            "b.yaml:9:29: decisions[0].algorithm.aibrix_least_request: the block aibrix_least_request is read only " +
                "with type: aibrix_least_request (type is litellm_simple_shuffle)",
            "b.yaml:10:7: decisions[0].algorithm.litellm_simple_shufle: unknown key \"litellm_simple_shufle\" " +
                "(did you mean litellm_simple_shuffle?)");
        final InvalidConfigurationException mistyped = catchThrowableOfType(InvalidConfigurationException.class,
            () -> ConfigLoader.load("b.yaml", file("aibrix_least_requests", ""), null));
        assertThat(mistyped.problems()).extracting(ConfigProblem::message).singleElement().asString()
            .endsWith("(did you mean aibrix_least_request?)");
    }

    @Test
    void shouldWarnAboutTheMultiFactorBlockAPeerIgnores() throws Exception
    {
        final LoadedConfig loaded = ConfigLoader.load("b.yaml", file("aibrix_least_request", BLOCK), null);
        assertThat(loaded.warnings()).extracting(ConfigProblem::path).containsExactly(
            "decisions[0].algorithm.multi_factor.weights",
            "decisions[0].algorithm.multi_factor.slo",
            "decisions[0].algorithm.multi_factor.latency_percentile",
            "decisions[0].algorithm.multi_factor.on_no_candidates");
    }
}
