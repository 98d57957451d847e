package io.multifactor.config;

import io.multifactor.api.ConfigProblem;
import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.config.model.BackendChoiceConfig;
import io.multifactor.kernel.plan.AlgorithmType;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.PeerParameters;
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
                "litellm_latency, prodstack_session, llmd_weighted and llmd_sticky (did you mean round_robin?)");
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

    @Test
    void shouldReadLitellmLatencysTtlAndBufferUnderLiteLlmsNames() throws Exception
    {
        final LoadedConfig defaults = ConfigLoader.load("b.yaml", file("litellm_latency", ""), null);
        final DecisionPlan plain = defaults.plans().decision(0);
        assertThat(plain.algorithmType()).isEqualTo(AlgorithmType.LITELLM_LATENCY);
        assertThat(plain.peerParameters()).isEqualTo(PeerParameters.DEFAULTS);
        assertThat(plain.peerParameters().ttlNs()).isEqualTo(3_600_000_000_000L);
        assertThat(plain.peerParameters().lowestLatencyBuffer()).isZero();
        final LoadedConfig loaded = ConfigLoader.load("b.yaml", file("litellm_latency", String.join("\n",
            "      litellm_latency: {ttl: 10m, lowest_latency_buffer: 0.5}",
            "      multi_factor: {latency_metric: tpot}")), null);
        final DecisionPlan plan = loaded.plans().decision(0);
        assertThat(plan.peerParameters().ttlNs()).isEqualTo(600_000_000_000L);
        assertThat(plan.peerParameters().lowestLatencyBuffer()).isEqualTo(0.5);
        assertThat(plan.latencyMetric()).isEqualTo(io.multifactor.api.LatencyMetric.TPOT);
        // latency_metric names the ring it averages: read, not warned about.
        assertThat(loaded.warnings()).isEmpty();
        assertThat(loaded.config().decisions().get(0).peerParameters()).isEqualTo(plan.peerParameters());
    }

    @Test
    void shouldReadProdstackSessionsRequestStatsWindow() throws Exception
    {
        final LoadedConfig loaded = ConfigLoader.load("b.yaml", file("prodstack_session",
            "      prodstack_session: {request_stats_window: 10s}"), null);
        final DecisionPlan plan = loaded.plans().decision(0);
        assertThat(plan.algorithmType()).isEqualTo(AlgorithmType.PRODSTACK_SESSION);
        assertThat(plan.peerParameters().requestStatsWindowNs()).isEqualTo(10_000_000_000L);
        assertThat(ConfigLoader.load("b.yaml", file("prodstack_session", ""), null).plans().decision(0)
            .peerParameters().requestStatsWindowNs()).isEqualTo(60_000_000_000L);
    }

    @Test
    void shouldRefuseEveryBadParameterOfTheNewPeersLocated()
    {
        final InvalidConfigurationException latency = catchThrowableOfType(InvalidConfigurationException.class,
            () -> ConfigLoader.load("b.yaml", file("litellm_latency",
                "      litellm_latency: {ttl: 3600, lowest_latency_bufer: 1, max_latency_list_size: 5}"), null));
        assertThat(latency.problems()).extracting(ConfigProblem::toString).containsExactly(
            "b.yaml:9:30: decisions[0].algorithm.litellm_latency.ttl: expected a duration such as 60s, 250ms or 10m " +
                "(units ns, us, ms, s, m, h), got \"3600\"",
            "b.yaml:9:36: decisions[0].algorithm.litellm_latency.lowest_latency_bufer: unknown key " +
                "\"lowest_latency_bufer\" (did you mean lowest_latency_buffer?)",
            "b.yaml:9:61: decisions[0].algorithm.litellm_latency.max_latency_list_size: unknown key " +
                "\"max_latency_list_size\"");
        final InvalidConfigurationException buffer = catchThrowableOfType(InvalidConfigurationException.class,
            () -> ConfigLoader.load("b.yaml", file("litellm_latency",
                "      litellm_latency: {lowest_latency_buffer: -0.1}"), null));
        assertThat(buffer.problems()).extracting(ConfigProblem::path).containsExactly(
            "decisions[0].algorithm.litellm_latency.lowest_latency_buffer");
        assertThat(buffer.problems().get(0).message()).contains("-0.1");
        final InvalidConfigurationException window = catchThrowableOfType(InvalidConfigurationException.class,
            () -> ConfigLoader.load("b.yaml", file("prodstack_session", String.join("\n",
                "      prodstack_session: {request_stats_window: 500us, session_key: x-user}")), null));
        assertThat(window.problems()).extracting(ConfigProblem::toString).containsExactly(
            "b.yaml:9:49: decisions[0].algorithm.prodstack_session.request_stats_window: must be at least 1ms (the " +
                "QPS window is cut into 64 buckets), got 500us",
            "b.yaml:9:56: decisions[0].algorithm.prodstack_session.session_key: unknown key \"session_key\"");
        final InvalidConfigurationException other = catchThrowableOfType(InvalidConfigurationException.class,
            () -> ConfigLoader.load("b.yaml", file("litellm_latency", "      prodstack_session: {}"), null));
        assertThat(other.problems()).extracting(ConfigProblem::message).containsExactly(
            "the block prodstack_session is read only with type: prodstack_session (type is litellm_latency)");
    }

    // A model's backend_choice: the same rules among its backends.

    private static String model(final String backendChoice)
    {
        return String.join("\n",
            "models:",                                                        // 1
            "  - name: a",                                                    // 2
            "    backend_refs: [{endpoint: 127.0.0.1:9001}]",                 // 3
            "    backend_choice: " + backendChoice,                           // 4
            "decisions:",                                                     // 5
            "  - name: d",                                                    // 6
            "    modelRefs: [{model: a}]",                                    // 7
            "");
    }

    @Test
    void shouldReadABackendChoiceAsATypeWordOrWithItsPeersParameters() throws Exception
    {
        assertThat(ConfigLoader.load("m.yaml", model("round_robin"), null).config().models().get(0).backendChoice())
            .isEqualTo(new BackendChoiceConfig(AlgorithmType.ROUND_ROBIN, PeerParameters.DEFAULTS));
        final BackendChoiceConfig latency = ConfigLoader.load("m.yaml",
            model("{type: litellm_latency, litellm_latency: {ttl: 30s, lowest_latency_buffer: 0.2}}"), null)
            .config().models().get(0).backendChoice();
        assertThat(latency.type()).isEqualTo(AlgorithmType.LITELLM_LATENCY);
        assertThat(latency.parameters().ttlNs()).isEqualTo(30_000_000_000L);
        assertThat(latency.parameters().lowestLatencyBuffer()).isEqualTo(0.2);
        final LoadedConfig both = ConfigLoader.load("m.yaml", model("random\n    prefix_affinity: {}"), null);
        assertThat(both.warnings()).extracting(ConfigProblem::toString).containsExactly(
            "m.yaml:4:21: models[0].backend_choice: prefix_affinity is ignored: backend_choice chooses this model's " +
                "backends");
        final String plain = model("x").replace("    backend_choice: x\n", "");
        assertThat(ConfigLoader.load("m.yaml", plain, null).config().models().get(0).backendChoice().isSet()).isFalse();
    }

    @Test
    void shouldRefuseABadBackendChoiceLocated()
    {
        final InvalidConfigurationException word = catchThrowableOfType(InvalidConfigurationException.class,
            () -> ConfigLoader.load("m.yaml", model("round_robbin"), null));
        assertThat(word.problems()).extracting(ConfigProblem::toString).singleElement().asString()
            .startsWith("m.yaml:4:21: models[0].backend_choice: unknown backend rule \"round_robbin\": expected one of " +
                "round_robin, random, least_inflight, lowest_latency, litellm_simple_shuffle")
            .endsWith("(did you mean round_robin?)");
        final InvalidConfigurationException mf = catchThrowableOfType(InvalidConfigurationException.class,
            () -> ConfigLoader.load("m.yaml", model("multi_factor"), null));
        assertThat(mf.problems()).extracting(ConfigProblem::message).singleElement().asString()
            .startsWith("unknown backend rule \"multi_factor\"");
        final InvalidConfigurationException block = catchThrowableOfType(InvalidConfigurationException.class,
            () -> ConfigLoader.load("m.yaml",
                model("{type: random, prodstack_session: {}, litellm_latency: {buffer: 1}}"), null));
        assertThat(block.problems()).extracting(ConfigProblem::toString).containsExactly(
            "m.yaml:4:55: models[0].backend_choice.prodstack_session: the block prodstack_session is read only with " +
                "type: prodstack_session (type is random)",
            "m.yaml:4:76: models[0].backend_choice.litellm_latency: the block litellm_latency is read only with " +
                "type: litellm_latency (type is random)");
        final InvalidConfigurationException missing = catchThrowableOfType(InvalidConfigurationException.class,
            () -> ConfigLoader.load("m.yaml", model("{litellm_latency: {}}"), null));
        assertThat(missing.problems()).extracting(ConfigProblem::message).contains("missing required key \"type\"");
    }
}
