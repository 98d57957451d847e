package io.multifactor.tools;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * End-to-end {@code mf explain --json}: a real engine fed through the public API, checked against the JSON that the
 * rules of docs/semantics.md give. Latency values are the oracle's: HdrHistogram's {@code getValueAtPercentile}
 * at two significant digits, over microseconds, as docs/semantics.md says.
 */
class ExplainCommandTest
{
    @TempDir
    Path dir;

    private static final String DESIGN_CONFIG = """
        models:
          - name: premium-model
            quality_score: 0.9
            pricing: {prompt_per_1m: 10.0, completion_per_1m: 30.0}
          - name: economy-model
            quality_score: 0.1
            pricing: {prompt_per_1m: 1.0}
        decisions:
          - name: quality_policy_decision
            modelRefs:
              - model: premium-model
              - model: economy-model
            algorithm:
              type: multi_factor
              multi_factor:
                weights: {quality: 1.0}
        """;

    private static final String FIVE_CEILINGS = """
        models:
          - {name: slow, quality_score: 0.9, pricing: {prompt_per_1m: 2.0}}
          - {name: laggy, quality_score: 0.8, pricing: {prompt_per_1m: 2.0}}
          - {name: pricey, quality_score: 0.7, pricing: {prompt_per_1m: 10.0}}
          - {name: busy, quality_score: 0.6, pricing: {prompt_per_1m: 1.0}}
          - {name: ok, quality_score: 0.5, pricing: {prompt_per_1m: 1.0}}
        decisions:
          - name: slo
            modelRefs: [{model: slow}, {model: laggy}, {model: pricey}, {model: busy}, {model: ok}]
            algorithm:
              type: multi_factor
              multi_factor:
                weights: {quality: 1}
                slo: {max_tpot_ms: 200, max_ttft_ms: 800, max_cost_per_1m: 5.0, max_inflight: 50}
        """;

    private static final String ALL_DROPPED = """
        models:
          - {name: unpriced}
          - {name: dear, pricing: {prompt_per_1m: 3.0}}
          - {name: cheap, pricing: {prompt_per_1m: 2.0}}
        decisions:
          - name: d
            modelRefs: [{model: unpriced}, {model: dear}, {model: cheap}]
            algorithm:
              type: multi_factor
              multi_factor:
                slo: {max_inflight: 1}
                on_no_candidates: POLICY
        """;

    private static final String ALL_BUSY = """
        decision: d
        models:
          unpriced: {inflight: 2}
          dear: {inflight: 2}
          cheap: {inflight: 2}
        """;

    @Test
    void shouldPrintTheJsonOfTheDesignExample() throws IOException
    {
        final CliRun run = explain(DESIGN_CONFIG, """
            decision: quality_policy_decision   # required
            models:
              premium-model:
                tpot_ms: [42.0, 45.5, 51.0]
                ttft_ms: [310, 290]
                inflight: 7
              economy-model:
                inflight: 9
            """);

        final double tpot = p(95, 42.0, 45.5, 51.0);
        final double ttft = p(95, 310, 290);
        assertThat(run.exit()).isEqualTo(0);
        assertThat(run.err()).isEmpty();
        assertThat(run.out()).isEqualTo("""
            {"decision": "quality_policy_decision",
             "outcome": "scored",
             "selected": "premium-model",
             "objective": "weighted",
             "weights": {"quality": 1.0, "latency": 0.0, "cost": 0.0, "load": 0.0},
             "candidates": [
               {"model": "premium-model", "dropped": null, "score": 1.0,
                "quality": 0.9, "latency_ms": %s, "tpot_ms": %s, "ttft_ms": %s,
                "cost_per_1m": 10.0, "inflight": 7,
                "normalized": {"quality": 1.0, "latency": 0.5, "cost": 0.0, "load": 1.0},
                "eliminated_by": null},
               {"model": "economy-model", "dropped": null, "score": 0.0,
                "quality": 0.1, "latency_ms": null, "tpot_ms": null, "ttft_ms": null,
                "cost_per_1m": 1.0, "inflight": 9,
                "normalized": {"quality": 0.0, "latency": 0.0, "cost": 1.0, "load": 0.0},
                "eliminated_by": null}]}
            """.formatted(tpot, tpot, ttft));
        assertThat(tpot).isCloseTo(51.0, org.assertj.core.data.Percentage.withPercentage(1));
    }

    @Test
    void shouldDropByTheFirstBrokenCeilingInOrderTpotTtftCostInflight() throws IOException
    {
        final CliRun run = explain(FIVE_CEILINGS, """
            decision: slo
            models:
              slow: {tpot_ms: [260], ttft_ms: [900]}
              laggy: {tpot_ms: [100], ttft_ms: [900]}
              busy: {inflight: 51}
              ok: {inflight: 50}
            """);

        final double slowTpot = p(95, 260);
        final double ttft = p(95, 900);
        final double laggyTpot = p(95, 100);
        assertThat(run.exit()).isEqualTo(0);
        assertThat(run.out()).isEqualTo("""
            {"decision": "slo",
             "outcome": "scored",
             "selected": "ok",
             "objective": "weighted",
             "weights": {"quality": 1.0, "latency": 0.0, "cost": 0.0, "load": 0.0},
             "candidates": [
               {"model": "slow", "dropped": "tpot_p95=%sms>200.0ms", "score": null,
                "quality": 0.9, "latency_ms": %s, "tpot_ms": %s, "ttft_ms": %s,
                "cost_per_1m": 2.0, "inflight": 0,
                "normalized": {"quality": null, "latency": null, "cost": null, "load": null},
                "eliminated_by": null},
               {"model": "laggy", "dropped": "ttft_p95=%sms>800.0ms", "score": null,
                "quality": 0.8, "latency_ms": %s, "tpot_ms": %s, "ttft_ms": %s,
                "cost_per_1m": 2.0, "inflight": 0,
                "normalized": {"quality": null, "latency": null, "cost": null, "load": null},
                "eliminated_by": null},
               {"model": "pricey", "dropped": "cost_per_1m=10.0>5.0", "score": null,
                "quality": 0.7, "latency_ms": null, "tpot_ms": null, "ttft_ms": null,
                "cost_per_1m": 10.0, "inflight": 0,
                "normalized": {"quality": null, "latency": null, "cost": null, "load": null},
                "eliminated_by": null},
               {"model": "busy", "dropped": "inflight=51>50", "score": null,
                "quality": 0.6, "latency_ms": null, "tpot_ms": null, "ttft_ms": null,
                "cost_per_1m": 1.0, "inflight": 51,
                "normalized": {"quality": null, "latency": null, "cost": null, "load": null},
                "eliminated_by": null},
               {"model": "ok", "dropped": null, "score": 0.5,
                "quality": 0.5, "latency_ms": null, "tpot_ms": null, "ttft_ms": null,
                "cost_per_1m": 1.0, "inflight": 50,
                "normalized": {"quality": 0.5, "latency": 0.0, "cost": 0.5, "load": 0.5},
                "eliminated_by": null}]}
            """.formatted(slowTpot, slowTpot, slowTpot, ttft, ttft, laggyTpot, laggyTpot, ttft));
    }

    @Test
    void shouldFallBackToTheCheapestPricedCandidateAndStillListItAsDropped() throws IOException
    {
        final CliRun run = explain(ALL_DROPPED.replace("POLICY", "cheapest"), ALL_BUSY);

        assertThat(run.exit()).isEqualTo(0);
        assertThat(run.out()).startsWith("""
            {"decision": "d",
             "outcome": "fallback_cheapest",
             "selected": "cheap",
             "objective": "weighted",
             "weights": {"quality": 0.25, "latency": 0.25, "cost": 0.25, "load": 0.25},
             "candidates": [
               {"model": "unpriced", "dropped": "inflight=2>1", "score": null,
            """);
        assertThat(run.out()).contains("""
               {"model": "cheap", "dropped": "inflight=2>1", "score": null,
                "quality": null, "latency_ms": null, "tpot_ms": null, "ttft_ms": null,
                "cost_per_1m": 2.0, "inflight": 2,
                "normalized": {"quality": null, "latency": null, "cost": null, "load": null},
                "eliminated_by": null}]}
            """);
    }

    @Test
    void shouldFallBackToTheFirstCandidateUnderPolicyFirst() throws IOException
    {
        final CliRun run = explain(ALL_DROPPED.replace("POLICY", "first"), ALL_BUSY);

        assertThat(run.exit()).isEqualTo(0);
        assertThat(run.out()).contains(" \"outcome\": \"fallback_first\",\n \"selected\": \"unpriced\",\n");
    }

    @Test
    void shouldFailWithExitCode3UnderPolicyFail() throws IOException
    {
        final CliRun run = explain(ALL_DROPPED.replace("POLICY", "fail"), ALL_BUSY);

        assertThat(run.exit()).isEqualTo(ExitCodes.FAILED_OUTCOME);
        assertThat(run.out()).contains(" \"outcome\": \"failed\",\n \"selected\": null,\n");
        assertThat(run.out()).contains("{\"model\": \"dear\", \"dropped\": \"inflight=2>1\", \"score\": null,");
    }

    @Test
    void shouldListAnExcludedCandidateAsExcludedAndScoreTheRest() throws IOException
    {
        final CliRun run = explain(DESIGN_CONFIG, """
            decision: quality_policy_decision
            exclude: [premium-model]
            """);

        assertThat(run.exit()).isEqualTo(0);
        assertThat(run.out()).isEqualTo("""
            {"decision": "quality_policy_decision",
             "outcome": "scored",
             "selected": "economy-model",
             "objective": "weighted",
             "weights": {"quality": 1.0, "latency": 0.0, "cost": 0.0, "load": 0.0},
             "candidates": [
               {"model": "premium-model", "dropped": "excluded", "score": null,
                "quality": 0.9, "latency_ms": null, "tpot_ms": null, "ttft_ms": null,
                "cost_per_1m": 10.0, "inflight": 0,
                "normalized": {"quality": null, "latency": null, "cost": null, "load": null},
                "eliminated_by": null},
               {"model": "economy-model", "dropped": null, "score": 0.5,
                "quality": 0.1, "latency_ms": null, "tpot_ms": null, "ttft_ms": null,
                "cost_per_1m": 1.0, "inflight": 0,
                "normalized": {"quality": 0.5, "latency": 0.0, "cost": 0.5, "load": 0.5},
                "eliminated_by": null}]}
            """);
    }

    @Test
    void shouldFailWhateverThePolicyWhenEveryCandidateIsExcluded() throws IOException
    {
        final CliRun run = explain(DESIGN_CONFIG, """
            decision: quality_policy_decision
            exclude: [premium-model, economy-model]
            """);

        assertThat(run.exit()).isEqualTo(ExitCodes.FAILED_OUTCOME);
        assertThat(run.out()).contains(" \"outcome\": \"failed\",\n \"selected\": null,\n");
        assertThat(run.out()).contains("{\"model\": \"economy-model\", \"dropped\": \"excluded\", \"score\": null,");
    }

    @Test
    void shouldUseTtftWhenThereIsNoTpotAndGiveAMissingSignalZero() throws IOException
    {
        final CliRun run = explain("""
            models: [{name: x}, {name: y}, {name: z}]
            decisions:
              - name: fast
                modelRefs: [{model: x}, {model: y}, {model: z}]
                algorithm: {type: multi_factor, multi_factor: {weights: {latency: 1}}}
            """, """
            decision: fast
            models:
              x: {tpot_ms: [100], ttft_ms: [10]}
              y: {ttft_ms: [50]}
            """);

        final double x = p(95, 100);
        final double y = p(95, 50);
        assertThat(run.exit()).isEqualTo(0);
        assertThat(run.out()).contains(" \"selected\": \"y\",\n");
        assertThat(run.out()).contains(("{\"model\": \"x\", \"dropped\": null, \"score\": 0.0,\n" +
            "    \"quality\": null, \"latency_ms\": %s, \"tpot_ms\": %s, \"ttft_ms\": %s,").formatted(x, x, p(95, 10)));
        assertThat(run.out()).contains(("{\"model\": \"y\", \"dropped\": null, \"score\": 1.0,\n" +
            "    \"quality\": null, \"latency_ms\": %s, \"tpot_ms\": null, \"ttft_ms\": %s,").formatted(y, y));
        assertThat(run.out()).contains("{\"model\": \"z\", \"dropped\": null, \"score\": 0.0,\n" +
            "    \"quality\": null, \"latency_ms\": null, \"tpot_ms\": null, \"ttft_ms\": null,\n" +
            "    \"cost_per_1m\": null, \"inflight\": 0,\n" +
            "    \"normalized\": {\"quality\": 0.0, \"latency\": 0.0, \"cost\": 0.0, \"load\": 0.5},\n" +
            "    \"eliminated_by\": null}");
    }

    @Test
    void shouldBreakTiesInFavourOfTheEarlierCandidate() throws IOException
    {
        final CliRun run = explain("""
            models: [{name: first}, {name: second}]
            decisions:
              - name: tie
                modelRefs: [{model: second}, {model: first}]
                algorithm: {type: multi_factor, multi_factor: {weights: {load: 1}}}
            """, """
            decision: tie
            models: {first: {inflight: 3}, second: {inflight: 3}}
            """);

        assertThat(run.exit()).isEqualTo(0);
        assertThat(run.out()).contains(" \"selected\": \"second\",\n");
        assertThat(run.out()).contains("\"normalized\": {\"quality\": 0.0, \"latency\": 0.0, \"cost\": 0.0, \"load\": 0.5},\n" +
            "    \"eliminated_by\": null}]}");
    }

    @Test
    void shouldReadTheDecisionsOwnPercentile() throws IOException
    {
        final String config = """
            models: [{name: m}]
            decisions:
              - {name: median, modelRefs: [{model: m}],
                 algorithm: {type: multi_factor, multi_factor: {latency_percentile: 50, slo: {max_tpot_ms: 200},
                             on_no_candidates: fail}}}
              - {name: tail, modelRefs: [{model: m}],
                 algorithm: {type: multi_factor, multi_factor: {slo: {max_tpot_ms: 200}, on_no_candidates: fail}}}
            """;
        final String samples = "models: {m: {tpot_ms: [100, 100, 300]}}\n";

        final CliRun median = explain(config, "decision: median\n" + samples);
        final CliRun tail = explain(config, "decision: tail\n" + samples);

        assertThat(median.exit()).isEqualTo(0);
        assertThat(median.out()).contains("\"tpot_ms\": " + p(50, 100, 100, 300) + ",");
        assertThat(tail.exit()).isEqualTo(ExitCodes.FAILED_OUTCOME);
        assertThat(tail.out()).contains("\"dropped\": \"tpot_p95=" + p(95, 100, 100, 300) + "ms>200.0ms\"");
    }

    @Test
    void shouldPrintAReadableTableWithoutJson() throws IOException
    {
        final Path config = write("router.yaml", DESIGN_CONFIG);
        final Path scenario = write("scenario.yaml", "decision: quality_policy_decision\nexclude: [economy-model]\n");

        final CliRun run = CliRun.of("explain", "--config", config.toString(), "--scenario", scenario.toString());

        assertThat(run.exit()).isEqualTo(0);
        assertThat(run.out()).contains("outcome   scored").contains("selected  premium-model")
            .containsPattern("\\* premium-model +- +0\\.5000")
            .containsPattern("  economy-model +excluded +-");
    }

    @Test
    void shouldRefuseAnUnknownDecisionNamingTheScenarioFileAndTheNearestDecision() throws IOException
    {
        assertRefused("decision: quality_polcy_decision\n", "scenario.yaml:1:11: decision: decision " +
            "\"quality_polcy_decision\" is not in the configuration (did you mean quality_policy_decision?)");
    }

    @Test
    void shouldListTheConfigurationsDecisionsWhenNothingResemblesTheUnknownOne() throws IOException
    {
        assertRefused("decision: zz\n", "scenario.yaml:1:11: decision: decision \"zz\" is not in the configuration " +
            "(the configuration's decisions: quality_policy_decision)");
    }

    @Test
    void shouldRefuseAnUnknownModelNamingTheScenarioFileWithTheNearestOrEveryModel() throws IOException
    {
        assertRefused("decision: quality_policy_decision\nexclude: [gpt]\nmodels:\n  economy: {inflight: 1}\n",
            "scenario.yaml:2:11: exclude[0]: model \"gpt\" is not in the configuration " +
            "(the configuration's models: premium-model, economy-model)",
            "scenario.yaml:4:3: models.economy: model \"economy\" is not in the configuration " +
            "(did you mean economy-model?)");
    }

    @Test
    void shouldRefuseANaNSample() throws IOException
    {
        assertRefused("decision: quality_policy_decision\nmodels:\n  premium-model: {tpot_ms: [40, .nan]}\n",
            "scenario.yaml:3:33: models.premium-model.tpot_ms[1]: must be a finite number, got .nan");
    }

    @Test
    void shouldRefuseANonPositiveSample() throws IOException
    {
        assertRefused("decision: quality_policy_decision\nmodels:\n  premium-model: {ttft_ms: [0]}\n",
            "scenario.yaml:3:29: models.premium-model.ttft_ms[0]: a latency sample must be > 0 ms, got 0");
    }

    @Test
    void shouldRefuseANegativeInflightCount() throws IOException
    {
        assertRefused("decision: quality_policy_decision\nmodels:\n  premium-model: {inflight: -1}\n",
            "scenario.yaml:3:29: models.premium-model.inflight: must be in 0..1000000, got -1");
    }

    @Test
    void shouldRefuseAnUnknownScenarioKey() throws IOException
    {
        assertRefused("decison: quality_policy_decision\n",
            "scenario.yaml:1:1: decison: unknown key \"decison\" (did you mean decision?)",
            "scenario.yaml:1:1: decision: missing required key \"decision\"");
    }

    @Test
    void shouldRefuseABadConfigurationNamingTheConfigurationFile() throws IOException
    {
        final Path config = write("router.yaml", DESIGN_CONFIG.replace("quality_score: 0.9", "quality_score: -0.9"));
        final Path scenario = write("scenario.yaml", "decision: quality_policy_decision\n");

        final CliRun run = CliRun.of("explain", "--config", config.toString(), "--scenario", scenario.toString(), "--json");

        assertThat(run.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).contains(config + ":3:20: models[0].quality_score: must be >= 0, got -0.9");
    }

    @Test
    void shouldRefuseAMissingFile() throws IOException
    {
        final Path config = write("router.yaml", DESIGN_CONFIG);

        final CliRun run = CliRun.of("explain", "--config", config.toString(), "--scenario", dir.resolve("none.yaml")
            .toString(), "--json");

        assertThat(run.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).contains(dir.resolve("none.yaml") + ": no such file");
    }

    @Test
    void shouldRefuseAMissingOptionAsInvalidInput()
    {
        final CliRun run = CliRun.of("explain", "--config", "x.yaml");

        assertThat(run.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).contains("Missing required option: '--scenario=SCENARIO'");
    }

    private void assertRefused(final String scenarioYaml, final String... expected) throws IOException
    {
        final Path config = write("router.yaml", DESIGN_CONFIG);
        final Path scenario = write("scenario.yaml", scenarioYaml);

        final CliRun run = CliRun.of("explain", "--config", config.toString(), "--scenario", scenario.toString(), "--json");

        assertThat(run.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
        assertThat(run.out()).isEmpty();
        final StringBuilder lines = new StringBuilder();
        for (final String line : expected)
        {
            lines.append(dir).append('/').append(line).append('\n');
        }
        lines.append(scenario).append(": refused, ").append(expected.length)
            .append(expected.length == 1 ? " problem\n" : " problems\n");
        assertThat(run.err()).isEqualTo(lines.toString());
    }

    private CliRun explain(final String config, final String scenario) throws IOException
    {
        final Path configFile = write("router.yaml", config);
        final Path scenarioFile = write("scenario.yaml", scenario);
        final CliRun run = CliRun.of(
            "explain", "--config", configFile.toString(), "--scenario", scenarioFile.toString(), "--json");
        assertThat(run.err()).as("stderr").isEmpty();
        return run;
    }

    private Path write(final String name, final String content) throws IOException
    {
        return Files.writeString(dir.resolve(name), content, StandardCharsets.UTF_8);
    }

    /** The oracle: HdrHistogram at two significant digits over microseconds, reported in milliseconds. */
    private static double p(final double percentile, final double... samplesMs)
    {
        final Histogram histogram = new Histogram(1, 60_000_000L, 2);
        for (final double ms : samplesMs)
        {
            histogram.recordValue(Math.round(ms * 1000.0));
        }
        return histogram.getValueAtPercentile(percentile) / 1000.0;
    }
}
