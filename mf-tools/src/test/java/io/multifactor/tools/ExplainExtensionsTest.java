package io.multifactor.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code mf explain} with the extension keys: the quality drop text, the cost under the mix and under the scenario's
 * token counts, the objective and {@code eliminated_by} in the JSON and the table, the seed of the random tie-break,
 * and the scenario's refusals.
 */
class ExplainExtensionsTest
{
    @TempDir
    Path dir;

    private static final String CONFIG = """
        models:
          - {name: premium, quality_score: 0.9, pricing: {prompt_per_1m: 10.0, completion_per_1m: 30.0}}
          - {name: standard, quality_score: 0.6, pricing: {prompt_per_1m: 3.0, completion_per_1m: 4.0}}
          - {name: economy, quality_score: 0.4, pricing: {prompt_per_1m: 0.5, completion_per_1m: 1.5}}
          - {name: unscored, pricing: {prompt_per_1m: 0.1}}
        decisions:
          - name: floor
            modelRefs: [{model: premium}, {model: economy}, {model: unscored}]
            algorithm: {type: multi_factor, multi_factor: {slo: {min_quality: 0.5}}}
          - name: mix
            modelRefs: [{model: premium}, {model: standard}]
            algorithm: {type: multi_factor, multi_factor: {weights: {cost: 1}, cost_mix: {prompt: 3, completion: 1}}}
          - name: lex
            modelRefs: [{model: premium}, {model: standard}, {model: economy}]
            algorithm:
              type: multi_factor
              multi_factor: {objective: lexicographic, priority: [quality, cost], tolerance: 0.65}
          - name: spread
            modelRefs: [{model: premium}, {model: standard}, {model: economy}]
            algorithm:
              type: multi_factor
              multi_factor: {weights: {load: 1}, tie_band: 0.1, tie_break: random}
        """;

    @Test
    void shouldNameTheFloorAndTheMissingQualityInTheDropReason() throws IOException
    {
        final CliRun run = explain("decision: floor\n", true);
        assertThat(run.out()).contains("{\"model\": \"economy\", \"dropped\": \"quality=0.4<0.5\", \"score\": null,");
        assertThat(run.out()).contains("{\"model\": \"unscored\", \"dropped\": \"quality=null<0.5\", \"score\": null,");
        assertThat(run.out()).contains(" \"selected\": \"premium\",\n");
    }

    @Test
    void shouldDropAModelTheScenarioEjectsAndShowItsTimeLeft() throws IOException
    {
        // A scenario's ejected_ms applies whatever the model's reliability; the cap (10 %: one of three) lets it go.
        final CliRun json = explain("decision: lex\nmodels:\n  premium: {ejected_ms: 12000}\n", true);
        assertThat(json.exit()).as(json.err()).isZero();
        assertThat(json.out()).contains("{\"model\": \"premium\", \"dropped\": \"ejected(12.0s left)\", \"score\": null,");
        assertThat(json.out()).containsPattern("\"ejected_ms\": 1(19\\d\\d|2000)\\.\\d+");
        assertThat(json.out()).contains(" \"selected\": \"standard\",\n");
        assertThat(json.out()).contains("\"model\": \"standard\", \"dropped\": null");
        final CliRun table = explain("decision: lex\nmodels:\n  premium: {ejected_ms: 12000}\n", false);
        assertThat(table.out()).contains("ejected(12.0s left)");
    }

    @Test
    void shouldReportTheCostUnderTheMixAndUnderTheScenariosTokens() throws IOException
    {
        assertThat(explain("decision: mix\n", true).out())
            .contains("\"cost_per_1m\": 15.0, \"inflight\": 0,")
            .contains("\"cost_per_1m\": 3.25, \"inflight\": 0,");
        final CliRun byTokens = explain("decision: mix\nprompt_tokens: 1000\nmax_output_tokens: 1000\n", true);
        assertThat(byTokens.out())
            .contains("\"cost_per_1m\": 20.0, \"inflight\": 0,")
            .contains("\"cost_per_1m\": 3.5, \"inflight\": 0,");
    }

    @Test
    void shouldPrintTheObjectiveAndTheEliminatingFactor() throws IOException
    {
        // quality normalized 1 / 0.4 / 0: tolerance 0.65 keeps premium and standard; cheaper standard wins.
        final CliRun run = explain("decision: lex\n", true);
        assertThat(run.out()).contains(" \"objective\": \"lexicographic\",\n");
        assertThat(run.out()).contains(" \"selected\": \"standard\",\n");
        assertThat(run.out()).containsSubsequence(
            "{\"model\": \"premium\"", "\"eliminated_by\": \"cost\"}",
            "{\"model\": \"standard\"", "\"eliminated_by\": null}",
            "{\"model\": \"economy\"", "\"eliminated_by\": \"quality\"}");

        final CliRun table = explain("decision: lex\n", false);
        assertThat(table.out()).contains("objective lexicographic  priority quality > cost  tolerance 0.650  tie_break first");
        assertThat(table.out()).contains("eliminated_by");
        assertThat(table.out()).containsPattern("(?m)^  premium .* cost$");
        assertThat(table.out()).containsPattern("(?m)^\\* standard .* -$");
        assertThat(table.out()).containsPattern("(?m)^  economy .* quality$");
    }

    @Test
    void shouldDrawTheSameTieBreakForTheSameSeed() throws IOException
    {
        final String first = explain("decision: spread\nseed: 7\n", true).out();
        for (int i = 0; i < 3; i++)
        {
            assertThat(explain("decision: spread\nseed: 7\n", true).out()).isEqualTo(first);
        }
        boolean differs = false;
        for (long seed = 0; seed < 20 && !differs; seed++)
        {
            differs = !explain("decision: spread\nseed: " + seed + "\n", true).out().equals(first);
        }
        assertThat(differs).as("some seed picks another tied candidate").isTrue();
        assertThat(explain("decision: spread\nseed: 7\n", false).out())
            .contains("objective weighted  tie_band 0.100  tie_break random");
    }

    @Test
    void shouldRefuseNegativeOrZeroTokenCountsAndANonIntegerSeed() throws IOException
    {
        final CliRun negative = run("decision: mix\nprompt_tokens: -1\nseed: 1.5\n", true);
        assertThat(negative.exit()).isEqualTo(2);
        assertThat(negative.out()).isEmpty();
        assertThat(negative.err())
            .contains("scenario.yaml:2:16: prompt_tokens: must be in 0..1000000000, got -1")
            .contains("scenario.yaml:3:7: seed: expected an integer, got 1.5");
        final CliRun zero = run("decision: mix\nprompt_tokens: 0\nmax_output_tokens: 0\n", true);
        assertThat(zero.exit()).isEqualTo(2);
        assertThat(zero.err()).contains("scenario.yaml:2:16: prompt_tokens: prompt_tokens and max_output_tokens must " +
            "not both be 0 (leave them out to use the decision's cost_mix), got 0");
    }

    private CliRun explain(final String scenario, final boolean json) throws IOException
    {
        final CliRun run = run(scenario, json);
        assertThat(run.err()).as("stderr").isEmpty();
        assertThat(run.exit()).isEqualTo(0);
        return run;
    }

    private CliRun run(final String scenario, final boolean json) throws IOException
    {
        final Path config = Files.writeString(dir.resolve("router.yaml"), CONFIG, StandardCharsets.UTF_8);
        final Path scenarioFile = Files.writeString(dir.resolve("scenario.yaml"), scenario, StandardCharsets.UTF_8);
        return json ?
            CliRun.of("explain", "--config", config.toString(), "--scenario", scenarioFile.toString(), "--json") :
            CliRun.of("explain", "--config", config.toString(), "--scenario", scenarioFile.toString());
    }
}
