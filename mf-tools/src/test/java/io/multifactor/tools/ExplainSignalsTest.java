package io.multifactor.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code mf explain} with the signals of section 4.4: peak-EWMA replays a scenario's samples one second apart (the
 * last at the request's time) and names its drops {@code tpot_ewma=...}; the scenario's {@code inflight_tokens} feed
 * the token load and its ceiling; a scenario with tokens but no request in flight is refused.
 */
class ExplainSignalsTest
{
    @TempDir
    Path dir;

    private static final String CONFIG = """
        models:
          - {name: a, quality_score: 0.9, pricing: {prompt_per_1m: 1.0}}
          - {name: b, quality_score: 0.5, pricing: {prompt_per_1m: 1.0}}
        decisions:
          - name: d
            modelRefs: [{model: a}, {model: b}]
            algorithm:
              type: multi_factor
              multi_factor:
                weights: {quality: 1}
                slo: {max_tpot_ms: 100, max_inflight_tokens: 5000}
                load_metric: tokens
        signals:
          latency_estimator: peak_ewma
          ewma_decay: 10s
        """;

    @Test
    void shouldReplayPeakEwmaSamplesOneSecondApartAndNameTheEwmaDrop() throws IOException
    {
        // 300 at t-2 s, then 50 at t-1 s and 50 at t: E = max(50, 300 w + 50 (1 - w)) with w = exp(-0.1), twice.
        final double w = Math.exp(-0.1);
        final double afterSecond = Math.max(50, 300 * w + 50 * (1 - w));
        final double expected = Math.max(50, afterSecond * w + 50 * (1 - w));
        final CliRun run = explain("decision: d\nmodels:\n  a: {tpot_ms: [300, 50, 50]}\n");
        assertThat(expected).isGreaterThan(100.0);
        assertThat(run.out()).contains("\"dropped\": \"tpot_ewma=" + Math.round(expected * 1000) / 1000.0 + "ms>100.0ms\"");
        assertThat(run.out()).contains(" \"selected\": \"b\",\n");
    }

    @Test
    void shouldFeedTheScenariosInflightTokensToTheLoadAndItsCeiling() throws IOException
    {
        final CliRun run = explain("decision: d\nmodels:\n  a: {inflight: 2, inflight_tokens: 6000}\n" +
            "  b: {inflight: 3, inflight_tokens: 900}\n");
        assertThat(run.out()).contains("\"dropped\": \"inflight_tokens=6000>5000\"");
        assertThat(run.out()).contains("\"inflight\": 3, \"inflight_tokens\": 900,");
    }

    @Test
    void shouldRefuseTokensWithoutARequestInFlight() throws IOException
    {
        final CliRun run = run("decision: d\nmodels:\n  a: {inflight_tokens: 600}\n");
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).contains("models.a.inflight_tokens: 600 tokens need requests to carry them, but inflight " +
            "is 0 (set inflight >= 1)");
    }

    private CliRun explain(final String scenario) throws IOException
    {
        final CliRun run = run(scenario);
        assertThat(run.err()).as("stderr").isEmpty();
        assertThat(run.exit()).isEqualTo(0);
        return run;
    }

    private CliRun run(final String scenario) throws IOException
    {
        final Path config = Files.writeString(dir.resolve("router.yaml"), CONFIG, StandardCharsets.UTF_8);
        final Path scenarioFile = Files.writeString(dir.resolve("scenario.yaml"), scenario, StandardCharsets.UTF_8);
        return CliRun.of("explain", "--config", config.toString(), "--scenario", scenarioFile.toString(), "--json");
    }
}
