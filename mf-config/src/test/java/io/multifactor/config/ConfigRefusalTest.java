package io.multifactor.config;

import io.multifactor.api.ConfigProblem;
import io.multifactor.api.Factor;
import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.NoCandidatesPolicy;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.fail;

/** Every bad input of section 3 is refused with its located message; line numbers refer to {@link #VALID}. */
class ConfigRefusalTest
{
    static final String VALID = String.join("\n",
        "models:",                                                          // 1
        "  - name: a",                                                      // 2
        "    quality_score: 0.9",                                           // 3
        "    pricing:",                                                     // 4
        "      prompt_per_1m: 10.0",                                        // 5
        "  - name: b",                                                      // 6
        "    quality_score: 0.5",                                           // 7
        "decisions:",                                                       // 8
        "  - name: d",                                                      // 9
        "    modelRefs:",                                                   // 10
        "      - model: a",                                                 // 11
        "      - model: b",                                                 // 12
        "    algorithm:",                                                   // 13
        "      type: multi_factor",                                         // 14
        "      multi_factor:",                                              // 15
        "        weights: {quality: 0.4, latency: 0.2, cost: 0.2, load: 0.2}", // 16
        "        slo:",                                                     // 17
        "          max_tpot_ms: 200",                                       // 18
        "          max_ttft_ms: 800",                                       // 19
        "          max_cost_per_1m: 5.0",                                   // 20
        "          max_inflight: 50",                                       // 21
        "        latency_percentile: 95",                                   // 22
        "        on_no_candidates: cheapest",                               // 23
        "signals:",                                                         // 24
        "  latency_window: 60s",                                            // 25
        "  latency_refresh: 1s",                                            // 26
        "  inflight_max_age: 10m",                                          // 27
        "");

    private static final String SLO = "decisions[0].algorithm.multi_factor.slo.";
    private static final String MF = "decisions[0].algorithm.multi_factor.";

    @Test
    void shouldAcceptTheBaseFile() throws Exception
    {
        final LoadedConfig loaded = ConfigLoader.load("r.yaml", VALID, null);
        assertThat(loaded.warnings()).isEmpty();
        assertThat(loaded.plans().decisionCount()).isEqualTo(1);
    }

    @Test
    void shouldReportAnUnknownKeyAtTheKeyWithTheNearestValidKey()
    {
        assertRefused(replace("          max_tpot_ms: 200", "          max_tpot: 200"),
            "r.yaml:18:11: " + SLO + "max_tpot: unknown key \"max_tpot\" (did you mean max_tpot_ms?)");
    }

    @Test
    void shouldReportAnUnknownTopLevelKey()
    {
        assertRefused(replace("signals:", "signal:") .replace("  latency_window: 60s", "  latency_windo: 60s"),
            "r.yaml:24:1: signal: unknown key \"signal\" (did you mean signals?)");
    }

    @Test
    void shouldRefuseAStringWhereANumberBelongs()
    {
        assertRefused(replace("    quality_score: 0.9", "    quality_score: high"),
            "r.yaml:3:20: models[0].quality_score: expected a number, got string \"high\"");
    }

    @Test
    void shouldRefuseAFractionalInflightCeiling()
    {
        assertRefused(replace("          max_inflight: 50", "          max_inflight: 2.5"),
            "r.yaml:21:25: " + SLO + "max_inflight: expected an integer, got 2.5");
    }

    @Test
    void shouldRefuseAMappingWhereAListBelongs()
    {
        assertRefused(replace("    modelRefs:", "    modelRefs: a").replace("      - model: a\n      - model: b\n", ""),
            "r.yaml:10:16: decisions[0].modelRefs: expected a list, got string \"a\"");
    }

    @Test
    void shouldRefuseAPercentileBelowOne()
    {
        assertRefused(replace("        latency_percentile: 95", "        latency_percentile: 0"),
            "r.yaml:22:29: " + MF + "latency_percentile: must be in 1..100, got 0");
    }

    @Test
    void shouldRefuseAPercentileAboveHundred()
    {
        assertRefused(replace("        latency_percentile: 95", "        latency_percentile: 101"),
            "r.yaml:22:29: " + MF + "latency_percentile: must be in 1..100, got 101");
    }

    @Test
    void shouldRefuseANegativeCeiling()
    {
        assertRefused(replace("          max_ttft_ms: 800", "          max_ttft_ms: -800"),
            "r.yaml:19:24: " + SLO + "max_ttft_ms: must be >= 0, got -800");
    }

    @Test
    void shouldRefuseANegativeInflightCeiling()
    {
        assertRefused(replace("          max_inflight: 50", "          max_inflight: -1"),
            "r.yaml:21:25: " + SLO + "max_inflight: must be >= 0, got -1");
    }

    @Test
    void shouldRefuseANegativePrice()
    {
        assertRefused(replace("      prompt_per_1m: 10.0", "      prompt_per_1m: -10.0"),
            "r.yaml:5:22: models[0].pricing.prompt_per_1m: must be >= 0, got -10.0");
    }

    @Test
    void shouldRefuseANegativeQuality()
    {
        assertRefused(replace("    quality_score: 0.5", "    quality_score: -0.5"),
            "r.yaml:7:20: models[1].quality_score: must be >= 0, got -0.5");
    }

    @Test
    void shouldRefuseNaN()
    {
        assertRefused(replace("          max_tpot_ms: 200", "          max_tpot_ms: .nan"),
            "r.yaml:18:24: " + SLO + "max_tpot_ms: must be a finite number, got .nan");
    }

    @Test
    void shouldRefuseInfinity()
    {
        assertRefused(replace("      prompt_per_1m: 10.0", "      prompt_per_1m: .inf"),
            "r.yaml:5:22: models[0].pricing.prompt_per_1m: must be a finite number, got .inf");
    }

    @Test
    void shouldRefuseANumberTooLargeForADouble()
    {
        assertRefused(replace("          max_cost_per_1m: 5.0", "          max_cost_per_1m: 1e400"),
            "r.yaml:20:28: " + SLO + "max_cost_per_1m: must be a finite number, got 1e400");
    }

    @Test
    void shouldRefuseAnUnknownNoCandidatesPolicy()
    {
        assertRefused(replace("        on_no_candidates: cheapest", "        on_no_candidates: cheap"),
            "r.yaml:23:27: " + MF + "on_no_candidates: unknown on_no_candidates \"cheap\" " +
            "(expected cheapest, first, fail or shed; did you mean cheapest?)");
    }

    @Test
    void shouldRefuseAnUnknownModel()
    {
        assertRefused(replace("      - model: b", "      - model: c"),
            "r.yaml:12:16: decisions[0].modelRefs[1].model: unknown model \"c\" (the configuration's models: a, b)");
    }

    @Test
    void shouldRefuseADuplicateModel()
    {
        assertRefused(replace("  - name: b", "  - name: a"),
            "r.yaml:6:11: models[1].name: duplicate model \"a\" (first defined at line 2)",
            "r.yaml:12:16: decisions[0].modelRefs[1].model: unknown model \"b\" (the configuration's models: a)");
    }

    @Test
    void shouldRefuseADuplicateModelRef()
    {
        assertRefused(replace("      - model: b", "      - model: a"),
            "r.yaml:12:16: decisions[0].modelRefs[1].model: duplicate model \"a\" in modelRefs (first at line 11)");
    }

    @Test
    void shouldRefuseEmptyModelRefs()
    {
        assertRefused(replace("    modelRefs:", "    modelRefs: []").replace("      - model: a\n      - model: b\n", ""),
            "r.yaml:10:16: decisions[0].modelRefs: must not be empty, got []");
    }

    @Test
    void shouldRefuseADuplicateDecision()
    {
        final String twice = VALID.replace("signals:\n",
            "  - name: d\n" +                 // 24
            "    modelRefs:\n" +              // 25
            "      - model: a\n" +            // 26
            "signals:\n");
        assertRefused(twice, "r.yaml:24:11: decisions[1].name: duplicate decision \"d\" (first defined at line 9)");
    }

    @Test
    void shouldRefuseAnotherAlgorithmType()
    {
        assertRefused(replace("      type: multi_factor", "      type: static"),
            "r.yaml:14:13: decisions[0].algorithm.type: unsupported algorithm type \"static\": " +
            "this library implements multi_factor and the baselines round_robin, random, least_inflight and " +
            "lowest_latency, and the peers' policies litellm_simple_shuffle, litellm_least_busy, " +
            "aibrix_least_request, litellm_latency, prodstack_session, llmd_weighted and llmd_sticky (did you mean " +
            "litellm_simple_shuffle?)");
    }

    @Test
    void shouldRefuseMalformedYaml()
    {
        final List<ConfigProblem> problems = refused(replace("        slo:", "        slo: [unclosed"));
        assertThat(problems).hasSize(1);
        final ConfigProblem problem = problems.get(0);
        assertThat(problem.file()).isEqualTo("r.yaml");
        assertThat(problem.line()).isBetween(17, 19);
        assertThat(problem.column()).isPositive();
        assertThat(problem.message()).startsWith("malformed YAML: ");
    }

    @Test
    void shouldRefuseTabIndentation()
    {
        final List<ConfigProblem> problems = refused(replace("    quality_score: 0.9", "\tquality_score: 0.9"));
        assertThat(problems).singleElement().satisfies(p ->
        {
            assertThat(p.line()).isEqualTo(3);
            assertThat(p.message()).startsWith("malformed YAML: ").containsIgnoringCase("tab");
        });
    }

    @Test
    void shouldRefuseAnEmptyFile()
    {
        assertRefused("# nothing here\n", "r.yaml:1:1: <root>: the file holds no YAML document");
    }

    @Test
    void shouldRefuseADuplicateKey()
    {
        assertRefused(replace("          max_ttft_ms: 800", "          max_tpot_ms: 800"),
            "r.yaml:19:11: " + SLO + "max_tpot_ms: duplicate key \"max_tpot_ms\" (first at line 18)");
    }

    @Test
    void shouldAcceptEveryDocumentedDurationUnitIncludingMicrosAndNanos() throws Exception
    {
        // docs/configuration.md documents ns, us, ms, s, m and h; each one is read in its own unit.
        final String yaml = replace("  latency_window: 60s", "  latency_window: 30000000us")
            .replace("  latency_refresh: 1s", "  latency_refresh: 250000000ns")
            .replace("  inflight_max_age: 10m", "  inflight_max_age: 2h");
        final LoadedConfig loaded = ConfigLoader.load("r.yaml", yaml, null);
        assertThat(loaded.config().signals().latencyWindowNs()).isEqualTo(30_000_000_000L);
        assertThat(loaded.config().signals().latencyRefreshNs()).isEqualTo(250_000_000L);
        assertThat(loaded.config().signals().inflightMaxAgeNs()).isEqualTo(7_200_000_000_000L);
    }

    @Test
    void shouldRefuseAnUndocumentedDurationUnitNamingTheDocumentedOnes()
    {
        assertRefused(replace("  latency_window: 60s", "  latency_window: 1d"),
            "r.yaml:25:19: signals.latency_window: expected a duration such as 60s, 250ms or 10m " +
            "(units ns, us, ms, s, m, h), got \"1d\"");
    }

    @Test
    void shouldRefuseABadDuration()
    {
        assertRefused(replace("  latency_window: 60s", "  latency_window: 60 seconds"),
            "r.yaml:25:19: signals.latency_window: expected a duration such as 60s, 250ms or 10m " +
            "(units ns, us, ms, s, m, h), got \"60 seconds\"");
    }

    @Test
    void shouldRefuseARefreshLongerThanTheWindow()
    {
        assertRefused(replace("  latency_refresh: 1s", "  latency_refresh: 2m"),
            "r.yaml:26:20: signals.latency_refresh: must not exceed latency_window, got 2m > 60s");
    }

    @Test
    void shouldReportStructureValuesAndNamesInOnePass()
    {
        assertRefused("""
            models:
              - {name: a, quality_score: x}
              - {nam: b}
            decisions:
              - {name: d, modelRefs: [{model: a}, {model: zz}]}
              - {name: d, modelRefs: {model: a}}
            signals: {latency_refresh: 1us}
            """,
            "r.yaml:2:30: models[0].quality_score: expected a number, got string \"x\"",
            "r.yaml:3:5: models[1].name: missing required key \"name\"",
            "r.yaml:3:6: models[1].nam: unknown key \"nam\" (did you mean name?)",
            "r.yaml:5:47: decisions[0].modelRefs[1].model: unknown model \"zz\" (the configuration's models: a)",
            "r.yaml:6:12: decisions[1].name: duplicate decision \"d\" (first defined at line 5)",
            "r.yaml:6:26: decisions[1].modelRefs: expected a list, got a mapping {model: \"a\"}",
            "r.yaml:7:28: signals.latency_refresh: must be at least 10ms (a shorter period keeps the refresh agent " +
            "busy on a whole core), got 1us");
    }

    @Test
    void shouldRefuseARefreshShorterThanTenMilliseconds()
    {
        assertRefused(replace("  latency_refresh: 1s", "  latency_refresh: 1us"),
            "r.yaml:26:20: signals.latency_refresh: must be at least 10ms (a shorter period keeps the refresh agent " +
            "busy on a whole core), got 1us");
        assertRefused(replace("  latency_refresh: 1s", "  latency_refresh: 9999us"),
            "r.yaml:26:20: signals.latency_refresh: must be at least 10ms (a shorter period keeps the refresh agent " +
            "busy on a whole core), got 9999us");
    }

    @Test
    void shouldAcceptARefreshOfExactlyTenMilliseconds() throws Exception
    {
        final LoadedConfig loaded = ConfigLoader.load("r.yaml", replace("  latency_refresh: 1s", "  latency_refresh: 10ms"),
            null);
        assertThat(loaded.config().signals().latencyRefreshNs()).isEqualTo(10_000_000L);
    }

    @Test
    void shouldRefuseAZeroDuration()
    {
        assertRefused(replace("  inflight_max_age: 10m", "  inflight_max_age: 0s"),
            "r.yaml:27:21: signals.inflight_max_age: must be a positive duration, got 0s");
    }

    @Test
    void shouldRefuseAYamlAlias()
    {
        assertRefused(replace("    quality_score: 0.5", "    quality_score: *q").replace("quality_score: 0.9", "quality_score: &q 0.9"),
            "r.yaml:7:20: models[1].quality_score: YAML aliases are not supported: *q");
    }

    @Test
    void shouldRefuseInvalidUtf8()
    {
        final byte[] bytes = VALID.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        bytes[VALID.indexOf("name: b") + 6] = (byte)0xC3;
        final InvalidConfigurationException thrown = catchThrowableOfType(InvalidConfigurationException.class,
            () -> ConfigLoader.load("r.yaml", bytes, null));
        assertThat(thrown.problems()).extracting(ConfigProblem::toString)
            .containsExactly("r.yaml:6:11: <root>: not valid UTF-8: byte 0xc3 at offset " + (VALID.indexOf("name: b") + 6));
    }

    @Test
    void shouldRefuseAMissingName()
    {
        assertRefused(replace("  - name: b", "  - nam: b"),
            "r.yaml:6:5: models[1].nam: unknown key \"nam\" (did you mean name?)",
            "r.yaml:6:5: models[1].name: missing required key \"name\"",
            "r.yaml:12:16: decisions[0].modelRefs[1].model: unknown model \"b\" (the configuration's models: a)");
    }

    @Test
    void shouldReportEveryProblemAtOnceInFileOrder()
    {
        final String yaml = replace("    quality_score: 0.9", "    quality_score: .nan")
            .replace("          max_tpot_ms: 200", "          max_tpot: 200")
            .replace("        latency_percentile: 95", "        latency_percentile: 101")
            .replace("  inflight_max_age: 10m", "  inflight_max_age: forever");
        assertRefused(yaml,
            "r.yaml:3:20: models[0].quality_score: must be a finite number, got .nan",
            "r.yaml:18:11: " + SLO + "max_tpot: unknown key \"max_tpot\" (did you mean max_tpot_ms?)",
            "r.yaml:22:29: " + MF + "latency_percentile: must be in 1..100, got 101",
            "r.yaml:27:21: signals.inflight_max_age: expected a duration such as 60s, 250ms or 10m " +
            "(units ns, us, ms, s, m, h), got \"forever\"");
    }

    @Test
    void shouldWarnNotRefuseANegativeWeight() throws Exception
    {
        final LoadedConfig loaded = ConfigLoader.load("r.yaml",
            replace("        weights: {quality: 0.4, latency: 0.2, cost: 0.2, load: 0.2}",
                    "        weights: {quality: 0.4, latency: -0.2, cost: 0.2, load: 0.2}"), null);

        assertThat(loaded.warnings()).extracting(ConfigProblem::toString).containsExactly(
            "r.yaml:16:42: " + MF + "weights.latency: negative weight -0.2 is clamped to 0");
        final DecisionPlan plan = loaded.plans().decision(0);
        assertThat(plan.weight(Factor.LATENCY)).isEqualTo(0.0);
        assertThat(plan.weight(Factor.QUALITY)).isEqualTo(0.5);
    }

    @Test
    void shouldTreatMissingWeightKeysAsZeroAndAllZeroAsEqual() throws Exception
    {
        final LoadedConfig partial = ConfigLoader.load("r.yaml",
            replace("        weights: {quality: 0.4, latency: 0.2, cost: 0.2, load: 0.2}",
                    "        weights: {quality: 1}"), null);
        assertThat(partial.plans().decision(0).weight(Factor.QUALITY)).isEqualTo(1.0);
        assertThat(partial.plans().decision(0).weight(Factor.COST)).isEqualTo(0.0);

        final LoadedConfig zero = ConfigLoader.load("r.yaml",
            replace("        weights: {quality: 0.4, latency: 0.2, cost: 0.2, load: 0.2}",
                    "        weights: {quality: 0, latency: -1}"), null);
        assertThat(zero.plans().decision(0).weight(Factor.COST)).isEqualTo(0.25);
        assertThat(zero.warnings()).hasSize(2);
    }

    @Test
    void shouldUseEveryDefaultWithoutAnAlgorithmBlock() throws Exception
    {
        final String yaml = VALID.substring(0, VALID.indexOf("    algorithm:"));
        final DecisionPlan plan = ConfigLoader.load("r.yaml", yaml, null).plans().decision(0);
        assertThat(plan.weight(Factor.QUALITY)).isEqualTo(0.25);
        assertThat(plan.percentile()).isEqualTo(95);
        assertThat(plan.policy()).isEqualTo(NoCandidatesPolicy.CHEAPEST);
        assertThat(plan.maxTpotMs()).isEqualTo(0.0);
    }

    @Test
    void shouldParseDurations() throws Exception
    {
        final String yaml = replace("  latency_window: 60s", "  latency_window: 1h")
            .replace("  latency_refresh: 1s", "  latency_refresh: 250ms");
        final LoadedConfig loaded = ConfigLoader.load("r.yaml", yaml, null);
        assertThat(loaded.config().signals().latencyWindowNs()).isEqualTo(3_600_000_000_000L);
        assertThat(loaded.config().signals().latencyRefreshNs()).isEqualTo(250_000_000L);
        assertThat(loaded.config().signals().inflightMaxAgeNs()).isEqualTo(600_000_000_000L);
    }

    @Test
    void shouldKeepHandlesOfNamesThatStayWhenCompiledAgainstThePreviousPlans() throws Exception
    {
        final LoadedConfig first = ConfigLoader.load("r.yaml", VALID, null);
        final String renamed = VALID.replace("  - name: a\n", "  - name: z\n").replace("      - model: a\n", "      - model: z\n");
        final LoadedConfig second = ConfigLoader.load("r.yaml", renamed, first.plans());
        assertThat(second.plans().modelId("b")).isEqualTo(first.plans().modelId("b"));
        assertThat(second.plans().modelId("z")).isNotEqualTo(first.plans().modelId("a"));
        assertThat(second.plans().modelId("a")).isEqualTo(-1);
    }

    private static String replace(final String line, final String with)
    {
        if (!VALID.contains(line + "\n"))
        {
            fail("not a line of VALID: " + line);
        }
        return VALID.replace(line + "\n", with + "\n");
    }

    private static List<ConfigProblem> refused(final String yaml)
    {
        final InvalidConfigurationException thrown =
            catchThrowableOfType(InvalidConfigurationException.class, () -> ConfigLoader.load("r.yaml", yaml, null));
        assertThat(thrown).as("refused").isNotNull();
        return thrown.problems();
    }

    private static void assertRefused(final String yaml, final String... expected)
    {
        final List<String> messages = new ArrayList<>();
        for (final ConfigProblem problem : refused(yaml))
        {
            messages.add(problem.toString());
        }
        assertThat(messages).containsExactly(expected);
    }
}
