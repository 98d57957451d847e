package io.multifactor.config;

import io.multifactor.api.ConfigProblem;
import io.multifactor.api.Factor;
import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.Plans;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The keys of the prefix factor and the cache-aware price: {@code weights.prefix}, {@code prefix} in a lexicographic
 * {@code priority}, {@code pricing.cached_prompt_per_1m} and vSR's {@code pricing.cached_input_per_1m}.
 */
class PrefixConfigTest
{
    private static final String MODELS = String.join("\n",
        "models:",
        "  - name: a",
        "    pricing: {prompt_per_1m: 3.0, cached_prompt_per_1m: 0.3, completion_per_1m: 15.0}",
        "  - name: b",
        "    pricing: {prompt_per_1m: 1.0}",
        "");

    private static DecisionPlan decision(final LoadedConfig loaded)
    {
        final Plans plans = loaded.plans();
        return plans.decision(plans.decisionId("d"));
    }

    @Test
    void shouldReadTheCachedPromptPriceAndThePrefixWeight() throws Exception
    {
        final LoadedConfig loaded = ConfigLoader.load("c.yaml", MODELS + String.join("\n",
            "decisions:",
            "  - name: d",
            "    modelRefs: [{model: a}, {model: b}]",
            "    algorithm:",
            "      type: multi_factor",
            "      multi_factor: {weights: {quality: 1, prefix: 3}}",
            ""), null);
        assertThat(loaded.config().models().get(0).cachedPromptPer1M()).isEqualTo(0.3);
        assertThat(loaded.config().models().get(1).cachedPromptPer1M()).isNaN();
        final DecisionPlan plan = decision(loaded);
        assertThat(plan.cachedPromptPer1M(0)).isEqualTo(0.3);
        assertThat(plan.cachedPromptPer1M(1)).isNaN();
        assertThat(plan.pricesCachedPrompt()).isTrue();
        // Normalized over the seven factors.
        assertThat(plan.weight(Factor.QUALITY)).isEqualTo(0.25);
        assertThat(plan.weight(Factor.PREFIX)).isEqualTo(0.75);
        assertThat(plan.scoresBeyondSeed()).isTrue();
    }

    @Test
    void shouldLeaveEveryExistingDecisionAsItWasWithoutThePrefixWeight() throws Exception
    {
        final LoadedConfig loaded = ConfigLoader.load("c.yaml", MODELS + String.join("\n",
            "decisions:",
            "  - name: d",
            "    modelRefs: [{model: b}]",
            "    algorithm:",
            "      type: multi_factor",
            "      multi_factor: {weights: {quality: 0.4, latency: 0.2, cost: 0.2, load: 0.2}}",
            ""), null);
        final DecisionPlan plan = decision(loaded);
        assertThat(plan.weight(Factor.PREFIX)).isZero();
        assertThat(plan.scoresBeyondSeed()).isFalse();
        // b has no cached price: a request's shares never price it.
        assertThat(plan.pricesCachedPrompt()).isFalse();
    }

    @Test
    void shouldAllowPrefixInALexicographicPriority() throws Exception
    {
        final LoadedConfig loaded = ConfigLoader.load("c.yaml", MODELS + String.join("\n",
            "decisions:",
            "  - name: d",
            "    modelRefs: [{model: a}, {model: b}]",
            "    algorithm:",
            "      type: multi_factor",
            "      multi_factor: {objective: lexicographic, priority: [prefix, cost], tolerance: 0.1}",
            ""), null);
        final DecisionPlan plan = decision(loaded);
        assertThat(plan.priorityCount()).isEqualTo(2);
        assertThat(plan.priority(0)).isEqualTo(Factor.PREFIX);
        assertThat(plan.priority(1)).isEqualTo(Factor.COST);
    }

    @Test
    void shouldRefuseABadCachedPriceAndPrefixWeightWithTheirLocation()
    {
        final String yaml = String.join("\n",
            "models:",
            "  - name: a",
            "    pricing: {prompt_per_1m: 3.0, cached_prompt_per_1m: -0.3}",
            "  - name: b",
            "    pricing: {prompt_per_1m: 1.0, cached_prompt_per_1m: .nan}",
            "  - name: c",
            "    pricing: {prompt_per_1m: 1.0, cached_prompt_per_1M: 0.1}",
            "  - name: e",
            "    pricing: {prompt_per_1m: 1.0, cached_prompt_per_1m: cheap}",
            "decisions:",
            "  - name: d",
            "    modelRefs: [{model: a}]",
            "    algorithm:",
            "      type: multi_factor",
            "      multi_factor: {weights: {prefix: .inf}}",
            "");
        final InvalidConfigurationException refused =
            catchThrowableOfType(InvalidConfigurationException.class, () -> ConfigLoader.load("c.yaml", yaml, null));
        assertThat(refused.problems()).extracting(ConfigProblem::toString).containsExactly(
            "c.yaml:3:57: models[0].pricing.cached_prompt_per_1m: must be >= 0, got -0.3",
            "c.yaml:5:57: models[1].pricing.cached_prompt_per_1m: must be a finite number, got .nan",
            "c.yaml:7:35: models[2].pricing.cached_prompt_per_1M: unknown key \"cached_prompt_per_1M\" " +
                "(did you mean cached_prompt_per_1m?)",
            "c.yaml:9:57: models[3].pricing.cached_prompt_per_1m: expected a number, got string \"cheap\"",
            "c.yaml:15:40: decisions[0].algorithm.multi_factor.weights.prefix: must be a finite number, got .inf");
    }

    @Test
    void shouldReadVsrsCachedInputPriceAsTheCachedPromptPrice() throws Exception
    {
        final LoadedConfig loaded = ConfigLoader.load("router.yaml", String.join("\n",
            "version: v0.3",
            "providers:",
            "  models:",
            "    - name: small",
            "      pricing: {prompt_per_1m: 0.2, cached_input_per_1m: 0.05, completion_per_1m: 0.6, currency: USD}",
            "    - name: large",
            "      pricing: {prompt_per_1m: 3.0}",
            "routing:",
            "  modelCards:",
            "    - {name: small, quality_score: 0.5}",
            "    - {name: large, quality_score: 0.9}",
            "  decisions:",
            "    - name: d",
            "      modelRefs: [{model: small}, {model: large}]",
            "      algorithm: {type: multi_factor, multi_factor: {weights: {cost: 1, prefix: 1}}}",
            ""), null);
        final DecisionPlan plan = decision(loaded);
        assertThat(plan.cachedPromptPer1M(0)).isEqualTo(0.05);
        assertThat(plan.cachedPromptPer1M(1)).isNaN();
        assertThat(plan.weight(Factor.PREFIX)).isEqualTo(0.5);
    }
}
