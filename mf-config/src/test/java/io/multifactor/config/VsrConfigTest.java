package io.multifactor.config;

import io.multifactor.api.Capability;
import io.multifactor.api.ConfigProblem;
import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.config.model.BackendRef;
import io.multifactor.config.model.ConfigFormat;
import io.multifactor.config.model.DecisionConfig;
import io.multifactor.config.model.ModelConfig;
import io.multifactor.config.model.MultiFactorConfig;
import io.multifactor.config.model.SkippedDecision;
import io.multifactor.config.model.SloConfig;
import io.multifactor.config.model.WeightsConfig;
import io.multifactor.kernel.plan.NoCandidatesPolicy;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.RequestRules;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.assertj.core.api.Assertions.tuple;

/**
 * vLLM Semantic Router's canonical v0.3 files (and Helm values holding one under {@code config:}) load as they are:
 * what is read, what is skipped and ignored, and the located problems of what is read.
 */
class VsrConfigTest
{
    static final String ROUTER = resource("vsr/router-v0.3.yaml");
    static final String HELM = resource("vsr/router-helm-values.yaml");
    static final String RECIPES_ONLY = resource("vsr/recipes-only-v0.3.yaml");
    static final List<BackendRef> BATCH_BACKENDS =
        List.of(new BackendRef("batch-local", false, "127.0.0.1", 8003, "/v1", 1.0, null));

    @Test
    void shouldJoinProviderModelsAndModelCardsByName() throws Exception
    {
        final LoadedConfig loaded = ConfigLoader.load("router.yaml", ROUTER, null);
        assertThat(loaded.config().models()).containsExactly(
            // vSR's pricing.cached_input_per_1m is read as cached_prompt_per_1m.
            new ModelConfig("small-chat", 0.71, 0.2, 0.6, "acme/small-chat-8b",
                List.of(new BackendRef("small-local", false, "127.0.0.1", 8000, "/v1", 3.0, null)), null, null, null,
                0.05, RequestRules.NO_CONTEXT_WINDOW, Capability.ALL),
            new ModelConfig("large-reasoner", 0.93, 3.0, 9.0, "acme/large-reasoner-70b", List.of(
                new BackendRef("large-remote", true, "inference.example.invalid", 443, "/v1", 1.0, "LARGE_REASONER_KEY"))),
            new ModelConfig("code-expert", 0.88, 1.1, Double.NaN, "acme/code-expert-32b",
                List.of(new BackendRef("code-local", false, "127.0.0.1", 8002, "/v1", 1.0, null))),
            // A card without a provider entry, and a provider model without a card, are models too.
            new ModelConfig("vision-lite", 0.64, Double.NaN, Double.NaN),
            new ModelConfig("batch-only", Double.NaN, 0.05, 0.1, "acme/batch-7b", BATCH_BACKENDS));
        final Plans plans = loaded.plans();
        assertThat(plans.modelCount()).isEqualTo(5);
        assertThat(plans.modelPromptPer1M(plans.modelId("batch-only"))).isEqualTo(0.05);
        assertThat(plans.modelQuality(plans.modelId("vision-lite"))).isEqualTo(0.64);
    }

    @Test
    void shouldPlanOnlyMultiFactorDecisionsAndQualifyRecipeDecisions() throws Exception
    {
        final LoadedConfig loaded = ConfigLoader.load("router.yaml", ROUTER, null);
        assertThat(loaded.config().decisions()).extracting(DecisionConfig::name)
            .containsExactly("code_route", "chat_route", "privacy/local_only", "burst/chat_route");
        assertThat(loaded.config().decisions().get(0)).isEqualTo(new DecisionConfig("code_route",
            List.of("code-expert", "large-reasoner", "small-chat"),
            new MultiFactorConfig(new WeightsConfig(0.5, 0.2, 0.2, 0.1), new SloConfig(120.0, 900.0, 0.0, 64L), 90,
                NoCandidatesPolicy.FIRST)));
        assertThat(loaded.config().decisions().get(2).modelRefs()).containsExactly("small-chat", "code-expert");
        assertThat(loaded.config().decisions().get(2).multiFactor().onNoCandidates()).isEqualTo(NoCandidatesPolicy.FAIL);
        assertThat(loaded.config().decisions().get(3).multiFactor().slo().maxInflight()).isEqualTo(200L);
        final Plans plans = loaded.plans();
        assertThat(plans.decisionCount()).isEqualTo(4);
        assertThat(plans.decision(plans.decisionId("burst/chat_route")).candidateCount()).isEqualTo(2);
        assertThat(plans.decisionId("math_route")).isNegative();
        assertThat(loaded.warnings()).isEmpty();
    }

    @Test
    void shouldListSkippedDecisionsWithTheirAlgorithmTypeAndTheIgnoredSections() throws Exception
    {
        final LoadedConfig loaded = ConfigLoader.load("router.yaml", ROUTER, null);
        assertThat(loaded.outline().format()).isEqualTo(ConfigFormat.VSR);
        assertThat(loaded.outline().skippedDecisions())
            .extracting(SkippedDecision::name, SkippedDecision::algorithmType, SkippedDecision::path)
            .containsExactly(
                tuple("math_route", "static", "routing.decisions[1]"),
                tuple("pick_by_prompt", "prompt", "routing.decisions[3]"),
                tuple("fallback_route", SkippedDecision.NO_ALGORITHM, "routing.decisions[4]"),
                tuple("privacy/chat_route", "confidence", "recipes[0].routing.decisions[1]"));
        assertThat(loaded.outline().skippedDecisions().get(0).line()).isEqualTo(lineOf(ROUTER, "- name: math_route"));
        assertThat(loaded.outline().ignoredSections()).containsExactly("listeners", "entrypoints", "global");
        // vSR's routing.signals are its request classifiers, not the engine's signals: engine defaults apply.
        assertThat(loaded.config().signals()).isEqualTo(io.multifactor.config.model.SignalsConfig.DEFAULTS);
    }

    @Test
    void shouldReadTheSameConfigurationUnderConfigOfHelmValues() throws Exception
    {
        final LoadedConfig plain = ConfigLoader.load("router.yaml", ROUTER, null);
        final LoadedConfig helm = ConfigLoader.load("values.yaml", HELM, null);
        assertThat(helm.outline().format()).isEqualTo(ConfigFormat.VSR_HELM_VALUES);
        assertThat(helm.config()).isEqualTo(plain.config());
        assertThat(helm.outline().skippedDecisions()).extracting(SkippedDecision::name, SkippedDecision::path)
            .contains(tuple("privacy/chat_route", "config.recipes[0].routing.decisions[1]"));
        assertThat(helm.outline().ignoredSections()).containsExactly(
            "replicaCount", "image", "service", "resources", "router", "dashboard",
            "config.listeners", "config.entrypoints", "config.global");
        assertThat(helm.warnings()).isEmpty();
    }

    @Test
    void shouldKeepPlainNamesForTheRecipeNamedDefault() throws Exception
    {
        final LoadedConfig loaded = ConfigLoader.load("recipes.yaml", RECIPES_ONLY, null);
        assertThat(loaded.config().decisions()).extracting(DecisionConfig::name)
            .containsExactly("everyday", "night/everyday");
        assertThat(loaded.outline().skippedDecisions()).extracting(SkippedDecision::name, SkippedDecision::algorithmType)
            .containsExactly(tuple("pinned", "static"));
        assertThat(loaded.outline().ignoredSections()).containsExactly("listeners", "entrypoints", "global");
    }

    @Test
    void shouldLocateAWrongValueWithThePathInTheFilesOwnTerms()
    {
        final String broken = ROUTER.replace("            max_tpot_ms: 120", "            max_tpot_ms: -120");
        final int line = lineOf(broken, "max_tpot_ms: -120");
        assertRefused("router.yaml", broken, "router.yaml:" + line + ":26: " +
            "routing.decisions[0].algorithm.multi_factor.slo.max_tpot_ms: must be >= 0, got -120");
        final String helm = HELM.replace("              max_tpot_ms: 120", "              max_tpot_ms: -120");
        assertRefused("values.yaml", helm, "values.yaml:" + lineOf(helm, "max_tpot_ms: -120") + ":28: " +
            "config.routing.decisions[0].algorithm.multi_factor.slo.max_tpot_ms: must be >= 0, got -120");
    }

    @Test
    void shouldReportEveryProblemOfWhatIsReadAtOnce()
    {
        final String broken = ROUTER
            .replace("          latency_percentile: 90", "          latency_percentil: 90")
            .replace("        - model: vision-lite", "        - model: vision-lit")
            .replace("  - name: burst", "  - name: default")
            .replace("              weights: {quality: 0.3, latency: 0.4, load: 0.3}",
                "              weights: {quality: 0.3, latency: 0.4, lod: 0.3}")
            .replace("      quality_score: 0.71", "      quality_score: high");
        assertRefused("router.yaml", broken,
            "router.yaml:" + lineOf(broken, "quality_score: high") + ":22: routing.modelCards[0].quality_score: " +
                "expected a number, got string \"high\"",
            "router.yaml:" + lineOf(broken, "latency_percentil: 90") + ":11: " +
                "routing.decisions[0].algorithm.multi_factor.latency_percentil: unknown key \"latency_percentil\" " +
                "(did you mean latency_percentile?)",
            "router.yaml:" + lineOf(broken, "- model: vision-lit") + ":18: routing.decisions[2].modelRefs[1].model: " +
                "unknown model \"vision-lit\": defined in neither providers.models nor routing.modelCards " +
                "(did you mean vision-lite?)",
            "router.yaml:" + lineOf(broken, "lod: 0.3") + ":53: " +
                "recipes[0].routing.decisions[0].algorithm.multi_factor.weights.lod: unknown key \"lod\" " +
                "(did you mean load?)",
            // The recipe named default keeps plain names, so its chat_route meets the default profile's.
            "router.yaml:" + lineOf(broken, "        - name: chat_route\n          description: Same") + ":17: " +
                "recipes[1].routing.decisions[0].name: duplicate decision \"chat_route\" (first defined at line " +
                lineOf(broken, "    - name: chat_route\n      description: Everyday") + ")");
    }

    @Test
    void shouldRefuseADuplicateDecisionWithinARecipeAfterQualification()
    {
        final String broken = ROUTER.replace("        - name: chat_route\n          modelRefs:\n            - model: small-chat",
            "        - name: local_only\n          modelRefs:\n            - model: small-chat");
        assertRefused("router.yaml", broken, "router.yaml:" + lineOf(broken, "        - name: local_only\n          modelRefs:") +
            ":17: recipes[0].routing.decisions[1].name: duplicate decision \"privacy/local_only\" (first defined at line " +
            lineOf(broken, "        - name: local_only\n          rules:") + ")");
    }

    @Test
    void shouldReadEveryMultiFactorKeyOfTheOwnFormatInAVsrDecision() throws Exception
    {
        final String extended = ROUTER.replace("""
                      slo:
                        max_cost_per_1m: 1.0
            """, """
                      slo:
                        max_cost_per_1m: 1.0
                        min_quality: 0.5
                      objective: lexicographic
                      priority: [cost, quality]
                      tolerance: 0.1
            """);
        final MultiFactorConfig chat = ConfigLoader.load("router.yaml", extended, null).config().decisions().get(1)
            .multiFactor();
        assertThat(chat.slo().minQuality()).isEqualTo(0.5);
        assertThat(chat.ranking()).isNotEqualTo(ConfigLoader.load("router.yaml", ROUTER, null).config().decisions()
            .get(1).multiFactor().ranking());
        assertRefused("router.yaml", extended.replace("tolerance: 0.1", "tolerence: 0.1"),
            "router.yaml:" + lineOf(extended, "tolerance: 0.1") + ":11: routing.decisions[2].algorithm.multi_factor." +
                "tolerence: unknown key \"tolerence\" (did you mean tolerance?)");
    }

    @Test
    void shouldRefuseAnUnsupportedVersion()
    {
        assertRefused("router.yaml", ROUTER.replace("version: v0.3", "version: v0.2"),
            "router.yaml:3:10: version: unsupported version string \"v0.2\": this library reads vLLM Semantic " +
                "Router's v0.3 files (and its own format, which has no version key)");
    }

    @Test
    void shouldSayHowToReadAVsrFileWithoutVersionAsOne()
    {
        assertRefused("router.yaml", ROUTER.replace("version: v0.3", ""),
            "router.yaml:5:1: listeners: neither a multi-factor configuration (no models: or decisions:) nor, without " +
                "\"version: v0.3\" at its root, a vLLM Semantic Router one: add that line to read it as vLLM Semantic " +
                "Router's");
        assertRefused("values.yaml", HELM.replace("  version: v0.3\n", ""),
            "values.yaml:" + lineOf(HELM, "config:\n") + ":1: config: Helm values whose config: has no \"version: " +
                "v0.3\": add that line under config: to read it as vLLM Semantic Router's configuration");
    }

    @Test
    void shouldRefuseAMisspeltMultiFactorTypeOrBlock()
    {
        final String type = ROUTER.replace("        type: multi_factor\n        on_error: fallback",
            "        type: multi-factor\n        on_error: fallback");
        assertRefused("router.yaml", type, "router.yaml:" + lineOf(type, "type: multi-factor") + ":15: " +
            "routing.decisions[0].algorithm.type: unknown algorithm type \"multi-factor\" (did you mean multi_factor?)");
        final String upper = ROUTER.replace("        type: multi_factor\n        on_error: fallback",
            "        type: Multi_Factor\n        on_error: fallback");
        assertRefused("router.yaml", upper, "router.yaml:" + lineOf(upper, "type: Multi_Factor") + ":15: " +
            "routing.decisions[0].algorithm.type: algorithm type \"Multi_Factor\" must be written \"multi_factor\" " +
            "(lower case, no spaces), as vLLM Semantic Router requires");
        final String block = ROUTER.replace("        on_error: fallback\n        multi_factor:",
            "        on_error: fallback\n        multi_factr:");
        assertRefused("router.yaml", block, "router.yaml:" + lineOf(block, "multi_factr:") + ":9: " +
            "routing.decisions[0].algorithm.multi_factr: unknown key \"multi_factr\" (did you mean multi_factor?)");
    }

    @Test
    void shouldNotReadTheModelRefsOfASkippedDecision() throws Exception
    {
        // vSR lets a static decision name a LoRA adapter; this library never plans it, so it does not judge it.
        final String lora = ROUTER.replace("        - model: large-reasoner\n          lora_name: math-adapter",
            "        - model: math-adapter");
        assertThat(ConfigLoader.load("router.yaml", lora, null).outline().skippedDecisions()).hasSize(4);
    }

    @Test
    void shouldSayWhenAMultiFactorCandidateIsALoraAdapter()
    {
        final String broken = ROUTER.replace("        - model: code-expert\n          use_reasoning: false",
            "        - model: math-adapter\n          use_reasoning: false");
        assertRefused("router.yaml", broken, "router.yaml:" + lineOf(broken, "- model: math-adapter") + ":18: " +
            "routing.decisions[0].modelRefs[0].model: unknown model \"math-adapter\": it is a LoRA adapter of model " +
            "card large-reasoner, and a multi_factor candidate must be a model");
    }

    @Test
    void shouldRefuseADuplicateModelWithinOneList()
    {
        final String broken = ROUTER.replace("    - name: vision-lite", "    - name: code-expert");
        assertRefused("router.yaml", broken,
            "router.yaml:" + lineOf(broken, "    - name: code-expert\n      param_size: 4B") + ":13: " +
                "routing.modelCards[3].name: duplicate model \"code-expert\" in routing.modelCards (first defined at " +
                "line " + lineOf(broken, "    - name: code-expert\n      param_size: 32B") + ")",
            "router.yaml:" + lineOf(broken, "        - model: vision-lite") + ":18: " +
                "routing.decisions[2].modelRefs[1].model: unknown model \"vision-lite\": defined in neither " +
                "providers.models nor routing.modelCards " +
                "(the configuration's models: small-chat, large-reasoner, code-expert, batch-only)");
    }

    @Test
    void shouldWarnWhenHelmValuesSetConfigOverride() throws Exception
    {
        final String values = HELM.replace("configOverride: null", "configOverride:\n  version: v0.3");
        final LoadedConfig loaded = ConfigLoader.load("values.yaml", values, null);
        assertThat(loaded.warnings()).extracting(ConfigProblem::toString).containsExactly(
            "values.yaml:21:3: configOverride: the chart deploys configOverride instead of config; " +
                "this library read config");
    }

    @Test
    void shouldWarnThatZeroIsAValueHereWhereVsrReadsItAsAbsent() throws Exception
    {
        final String zero = ROUTER.replace("        prompt_per_1m: 0.05", "        prompt_per_1m: 0")
            .replace("      quality_score: 0.64", "      quality_score: 0.0");
        final LoadedConfig loaded = ConfigLoader.load("router.yaml", zero, null);
        assertThat(loaded.warnings()).extracting(ConfigProblem::toString).containsExactly(
            "router.yaml:" + lineOf(zero, "prompt_per_1m: 0\n") + ":24: providers.models[3].pricing.prompt_per_1m: 0 " +
                "means free (the cheapest price) here; vLLM Semantic Router's multi_factor reads it as no price",
            "router.yaml:" + lineOf(zero, "quality_score: 0.0") + ":22: routing.modelCards[3].quality_score: 0 means " +
                "a quality of 0 here; vLLM Semantic Router's multi_factor reads it as no quality signal");
        assertThat(loaded.config().models())
            .contains(new ModelConfig("batch-only", Double.NaN, 0.0, 0.1, "acme/batch-7b", BATCH_BACKENDS));
    }

    @Test
    void shouldWarnWhenNoDecisionIsMultiFactor() throws Exception
    {
        final String none = String.join("\n",
            "version: v0.3",
            "routing:",
            "  modelCards: [{name: m, quality_score: 0.5}]",
            "  decisions:",
            "    - {name: only, modelRefs: [{model: m}], algorithm: {type: static}}",
            "");
        final LoadedConfig loaded = ConfigLoader.load("none.yaml", none, null);
        assertThat(loaded.plans().decisionCount()).isZero();
        assertThat(loaded.warnings()).extracting(ConfigProblem::toString).containsExactly(
            "none.yaml:1:1: <root>: no decision has algorithm.type multi_factor: the engine has no plan to select " +
                "with (1 other decisions skipped)");
    }

    static void assertRefused(final String file, final String yaml, final String... expected)
    {
        try
        {
            ConfigLoader.load(file, yaml, null);
            fail("expected a refusal with " + List.of(expected));
        }
        catch (final InvalidConfigurationException ex)
        {
            final List<String> actual = new ArrayList<>();
            for (final ConfigProblem problem : ex.problems())
            {
                actual.add(problem.toString());
            }
            assertThat(actual).containsExactly(expected);
        }
    }

    /** @return the 1-based line where {@code snippet} starts (after its leading spaces and dashes). */
    static int lineOf(final String text, final String snippet)
    {
        final int at = text.indexOf(snippet);
        assertThat(at).as("snippet %s", snippet).isNotNegative();
        assertThat(text.indexOf(snippet, at + 1)).as("snippet %s is unique", snippet).isNegative();
        int line = 1;
        for (int i = 0; i < at; i++)
        {
            if (text.charAt(i) == '\n')
            {
                line++;
            }
        }
        return line;
    }

    static String resource(final String name)
    {
        try (InputStream in = VsrConfigTest.class.getClassLoader().getResourceAsStream(name))
        {
            if (in == null)
            {
                throw new IllegalStateException("missing test resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
    }
}
