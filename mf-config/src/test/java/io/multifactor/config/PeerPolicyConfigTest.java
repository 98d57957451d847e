package io.multifactor.config;

import io.multifactor.api.ConfigProblem;
import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.kernel.plan.AlgorithmType;
import io.multifactor.kernel.plan.DecisionPlan;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The peers' policies in a decision's {@code algorithm: {type: T, T: {params}}}: each compiles into its type code, its
 * block is read strictly (an unknown key located, with a suggestion when plausibly a typo), and a block beside another
 * type is refused.
 */
class PeerPolicyConfigTest
{
    private static String file(final String algorithmLines)
    {
        return String.join("\n",
            "models:",                                        // 1
            "  - name: a",                                    // 2
            "  - name: b",                                    // 3
            "decisions:",                                     // 4
            "  - name: d",                                    // 5
            "    modelRefs: [{model: a}, {model: b}]",        // 6
            "    algorithm:",                                 // 7
            algorithmLines,                                   // 8..
            "");
    }

    private static InvalidConfigurationException refused(final String algorithmLines)
    {
        return catchThrowableOfType(InvalidConfigurationException.class,
            () -> ConfigLoader.load("p.yaml", file(algorithmLines), null));
    }

    @Test
    void shouldCompileEachPeerPolicyIntoItsTypeWithOrWithoutItsBlock() throws Exception
    {
        for (final String type : new String[] { "litellm_simple_shuffle", "litellm_least_busy", "aibrix_least_request" })
        {
            for (final String block : new String[] { "", "\n      " + type + ": {}" })
            {
                final LoadedConfig loaded = ConfigLoader.load("p.yaml", file("      type: " + type + block), null);
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
        final InvalidConfigurationException refused = refused(String.join("\n",
            "      type: litellm_least_busy",                   // 8
            "      litellm_least_busy: {ttl: 60}"));            // 9
        assertThat(refused.problems()).extracting(ConfigProblem::toString).containsExactly(
            "p.yaml:9:28: decisions[0].algorithm.litellm_least_busy.ttl: unknown key \"ttl\"");
    }

    @Test
    void shouldRefuseABlockBesideAnotherTypeAndSuggestAMistypedBlockName()
    {
        final InvalidConfigurationException refused = refused(String.join("\n",
            "      type: litellm_simple_shuffle",                 // 8
            "      aibrix_least_request: {}",                     // 9
            "      litellm_simple_shufle: {}"));                  // 10
        assertThat(refused.problems()).extracting(ConfigProblem::toString).containsExactly(
            "p.yaml:9:29: decisions[0].algorithm.aibrix_least_request: the block aibrix_least_request is read only " +
                "with type: aibrix_least_request (type is litellm_simple_shuffle)",
            "p.yaml:10:7: decisions[0].algorithm.litellm_simple_shufle: unknown key \"litellm_simple_shufle\" " +
                "(did you mean litellm_simple_shuffle?)");
    }

    @Test
    void shouldSuggestAPeerForAMistypedType()
    {
        final InvalidConfigurationException refused = refused("      type: aibrix_least_requests");
        assertThat(refused.problems()).extracting(ConfigProblem::message).singleElement().asString()
            .endsWith("(did you mean aibrix_least_request?)");
    }

    @Test
    void shouldWarnAboutTheMultiFactorBlockAPeerIgnores() throws Exception
    {
        final LoadedConfig loaded = ConfigLoader.load("p.yaml", file(String.join("\n",
            "      type: aibrix_least_request",                   // 8
            "      multi_factor:",                                // 9
            "        weights: {quality: 1.0}")), null);           // 10
        assertThat(loaded.warnings()).extracting(ConfigProblem::toString).containsExactly(
            "p.yaml:10:18: decisions[0].algorithm.multi_factor.weights: weights are ignored by type " +
                "aibrix_least_request (a baseline policy)");
    }
}
