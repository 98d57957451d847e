package io.multifactor.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code mf explain} with eligibility, request SLOs and priority: a scenario's {@code prompt_tokens},
 * {@code max_output_tokens} and {@code needs} drop candidates with {@code context=...>...} and
 * {@code capability=...}; none eligible is outcome {@code ineligible} with exit code 3; {@code request_slo} tightens
 * the decision's TTFT ceiling; a {@code sheddable} request with no room is outcome {@code shed} (exit code 3), listed
 * without drops or scores; bad values of the new keys are located errors.
 */
class ExplainEligibilityTest
{
    @TempDir
    Path dir;

    private static final String CONFIG = """
        models:
          - {name: small, quality_score: 0.9, context_window: 8192, capabilities: [vision]}
          - {name: large, quality_score: 0.5}
        decisions:
          - name: d
            modelRefs: [{model: small}, {model: large}]
            algorithm:
              type: multi_factor
              multi_factor:
                weights: {quality: 1}
                slo: {max_ttft_ms: 500, max_inflight: 10}
                admission: {sheddable_above: 0.5}
          - name: only_small
            modelRefs: [{model: small}]
        """;

    @Test
    void shouldDropByContextAndCapabilityAndNameWhatIsLacking() throws IOException
    {
        final CliRun context = run("decision: d\nprompt_tokens: 8000\nmax_output_tokens: 1200\n");
        assertThat(context.exit()).isZero();
        assertThat(context.out()).contains("\"dropped\": \"context=9200>8192\"").contains("\"selected\": \"large\"");
        final CliRun tools = run("decision: d\nneeds: [tools]\n");
        assertThat(tools.out()).contains("\"dropped\": \"capability=tools\"").contains("\"selected\": \"large\"");
    }

    @Test
    void shouldAnswerIneligibleWithExitCodeThree() throws IOException
    {
        final CliRun run = run("decision: only_small\nneeds: [json_schema]\n");
        assertThat(run.exit()).isEqualTo(3);
        assertThat(run.out()).contains("\"outcome\": \"ineligible\"").contains("\"selected\": null")
            .contains("\"dropped\": \"capability=json_schema\"");
    }

    @Test
    void shouldTightenTheDecisionsTtftWithTheRequestsSlo() throws IOException
    {
        final String models = "models:\n  small: {ttft_ms: [300]}\n  large: {ttft_ms: [100]}\n";
        assertThat(run("decision: d\n" + models).out()).contains("\"selected\": \"small\"");
        final CliRun tight = run("decision: d\nrequest_slo: {max_ttft_ms: 200}\n" + models);
        assertThat(tight.out()).contains("\"selected\": \"large\"").containsPattern("\"dropped\": \"ttft_p95=3\\d\\d(\\.\\d+)?ms>200\\.0ms\"");
    }

    @Test
    void shouldShedASheddableRequestWithoutRoom() throws IOException
    {
        final String busy = "models:\n  small: {inflight: 5}\n  large: {inflight: 7}\n";
        final CliRun shed = run("decision: d\npriority: sheddable\n" + busy);
        assertThat(shed.exit()).isEqualTo(3);
        assertThat(shed.out()).contains("\"outcome\": \"shed\"").doesNotContain("\"dropped\": \"");
        assertThat(run("decision: d\npriority: critical\n" + busy).out()).contains("\"outcome\": \"scored\"");
    }

    @Test
    void shouldRefuseBadValuesOfTheNewKeysLocated() throws IOException
    {
        final Path config = dir.resolve("router.yaml");
        Files.writeString(config, CONFIG);
        final Path scenario = dir.resolve("bad.yaml");
        Files.writeString(scenario, "decision: d\nneeds: [tool]\nrequest_slo: {max_ttft_ms: 0}\npriority: low\n");
        final CliRun run = CliRun.of("explain", "--config", config.toString(), "--scenario", scenario.toString());
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).contains("bad.yaml:2:9: needs[0]: unknown capability \"tool\"")
            .contains("bad.yaml:3:28: request_slo.max_ttft_ms: must be a positive number of milliseconds, got 0.0")
            .contains("bad.yaml:4:11: priority: unknown priority \"low\"");
    }

    private CliRun run(final String scenario) throws IOException
    {
        final Path config = dir.resolve("router.yaml");
        Files.writeString(config, CONFIG);
        final Path scenarioFile = dir.resolve("scenario.yaml");
        Files.writeString(scenarioFile, scenario);
        final CliRun run = CliRun.of("explain", "--config", config.toString(), "--scenario", scenarioFile.toString(),
            "--json");
        assertThat(run.err()).as("stderr").isEmpty();
        return run;
    }
}
