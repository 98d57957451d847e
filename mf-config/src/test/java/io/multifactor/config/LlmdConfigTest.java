package io.multifactor.config;

import io.multifactor.api.ConfigProblem;
import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.kernel.plan.AlgorithmType;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.LlmdParameters;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * {@code type: llmd_weighted} and {@code type: llmd_sticky}: llm-d's parameter names and defaults reach the plan; their
 * blocks are read strictly, each refusal located and naming the value.
 */
class LlmdConfigTest
{
    private static DecisionPlan plan(final String type, final String block) throws Exception
    {
        final LoadedConfig loaded = ConfigLoader.load("l.yaml", BaselineConfigTest.file(type, block), null);
        assertThat(loaded.warnings()).isEmpty();
        return loaded.plans().decision(loaded.plans().decisionId("d"));
    }

    private static InvalidConfigurationException refused(final String type, final String block)
    {
        return catchThrowableOfType(InvalidConfigurationException.class,
            () -> ConfigLoader.load("l.yaml", BaselineConfigTest.file(type, block), null));
    }

    @Test
    void shouldTakeLlmdsDefaultsWithoutABlock() throws Exception
    {
        for (final String type : new String[] { "llmd_weighted", "llmd_sticky" })
        {
            final DecisionPlan plan = plan(type, "");
            assertThat(plan.algorithmType()).isEqualTo(AlgorithmType.parse(type));
            assertThat(plan.llmd()).isEqualTo(LlmdParameters.DEFAULTS);
        }
        final LlmdParameters d = LlmdParameters.DEFAULTS;
        assertThat(new double[] { d.queueScorerWeight(), d.kvCacheUtilizationScorerWeight(),
            d.prefixCacheScorerWeight() }).containsExactly(2.0, 2.0, 3.0);
        assertThat(d.affinityThreshold()).isEqualTo(0.80);
        assertThat(d.maxTtftPenaltyMs()).isEqualTo(18_000.0);
        assertThat(d.peakPrefillThroughput()).isEqualTo(15_928.0);
        assertThat(d.queueThresholdTokens()).isEqualTo(4_194_304L);
        assertThat(d.explorationProbability()).isZero();
    }

    @Test
    void shouldReadTheWeightedProfilesWeightsUnderTheScorersNames() throws Exception
    {
        final DecisionPlan plan = plan("llmd_weighted", String.join("\n",
            "      llmd_weighted:",
            "        queue-scorer: 1",
            "        prefix-cache-scorer: 5"));
        assertThat(plan.llmd().queueScorerWeight()).isEqualTo(1.0);
        assertThat(plan.llmd().kvCacheUtilizationScorerWeight()).isEqualTo(2.0);
        assertThat(plan.llmd().prefixCacheScorerWeight()).isEqualTo(5.0);
    }

    @Test
    void shouldReadTheStickyProfilesFilterAndScorer() throws Exception
    {
        final DecisionPlan plan = plan("llmd_sticky", String.join("\n",
            "      llmd_sticky:",
            "        affinityThreshold: 0.9",
            "        maxTTFTPenaltyMs: 5000",
            "        peakPrefillThroughput: 33821",
            "        queueThresholdTokens: 65536",
            "        explorationProbability: 0.01"));
        final LlmdParameters p = plan.llmd();
        assertThat(p.affinityThreshold()).isEqualTo(0.9);
        assertThat(p.maxTtftPenaltyMs()).isEqualTo(5000.0);
        assertThat(p.peakPrefillThroughput()).isEqualTo(33_821.0);
        assertThat(p.queueThresholdTokens()).isEqualTo(65_536L);
        assertThat(p.explorationProbability()).isEqualTo(0.01);
        // The gate off (0) lets peakPrefillThroughput be 0, as llm-d allows.
        assertThat(plan("llmd_sticky", "      llmd_sticky: {maxTTFTPenaltyMs: 0, peakPrefillThroughput: 0}")
            .llmd().maxTtftPenaltyMs()).isZero();
    }

    @Test
    void shouldRefuseEveryBadValueAtOnceLocated()
    {
        final InvalidConfigurationException refused = refused("llmd_sticky", String.join("\n",
            "      llmd_sticky:",                                 // 9
            "        affinityThreshold: 1.5",                     // 10
            "        explorationProbability: -0.1",               // 11
            "        maxTTFTPenaltyMs: .nan",                     // 12
            "        queueThresholdTokens: 0",                    // 13
            "        maxTTFTPenaltyMS: 100"));                    // 14
        assertThat(refused.problems()).extracting(ConfigProblem::toString).containsExactlyInAnyOrder(
            "l.yaml:10:28: decisions[0].algorithm.llmd_sticky.affinityThreshold: must be in 0..1, got 1.5",
            "l.yaml:11:33: decisions[0].algorithm.llmd_sticky.explorationProbability: must be >= 0, got -0.1",
            "l.yaml:12:27: decisions[0].algorithm.llmd_sticky.maxTTFTPenaltyMs: must be a finite number, got .nan",
            "l.yaml:13:31: decisions[0].algorithm.llmd_sticky.queueThresholdTokens: must be >= 1, got 0",
            "l.yaml:14:9: decisions[0].algorithm.llmd_sticky.maxTTFTPenaltyMS: unknown key \"maxTTFTPenaltyMS\" " +
                "(did you mean maxTTFTPenaltyMs?)");
    }

    @Test
    void shouldRefuseAZeroThroughputUnderTheGateANegativeWeightAndAnotherTypesBlock()
    {
        assertThat(refused("llmd_sticky", "      llmd_sticky: {peakPrefillThroughput: 0}").problems())
            .extracting(ConfigProblem::toString).containsExactly(
                "l.yaml:9:44: decisions[0].algorithm.llmd_sticky.peakPrefillThroughput: must be > 0 while " +
                    "maxTTFTPenaltyMs is above 0 (the load gate divides the in-flight tokens by it), got 0");
        assertThat(refused("llmd_weighted", "      llmd_weighted: {queue-scorer: -2}").problems())
            .extracting(ConfigProblem::toString).containsExactly(
                "l.yaml:9:37: decisions[0].algorithm.llmd_weighted.queue-scorer: must be >= 0, got -2");
        assertThat(refused("llmd_weighted", "      llmd_sticky: {affinityThreshold: 0.5}").problems())
            .extracting(ConfigProblem::toString).containsExactly(
                "l.yaml:9:20: decisions[0].algorithm.llmd_sticky: the block llmd_sticky is read only with type: " +
                    "llmd_sticky (type is llmd_weighted)");
        assertThat(refused("llmd_weighted", "      llmd_weighted: {prefix-scorer: 3}").problems())
            .extracting(ConfigProblem::message).singleElement().asString()
            .isEqualTo("unknown key \"prefix-scorer\" (did you mean prefix-cache-scorer?)");
    }
}
