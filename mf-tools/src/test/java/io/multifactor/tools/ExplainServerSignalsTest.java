package io.multifactor.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code mf explain} with the model-server signals: the scenario's {@code queue} and {@code kv_cache} as the servers
 * would give them, the {@code queue} and {@code kv_cache} weights and factors in the JSON, and the drop reasons of the
 * two ceilings.
 */
class ExplainServerSignalsTest
{
    @TempDir
    Path dir;

    private static final String CONFIG = """
        models:
          - {name: busy, quality_score: 0.9, server: vllm, backend_refs: [{endpoint: '127.0.0.1:8001'}]}
          - {name: full, quality_score: 0.8, server: sglang, backend_refs: [{endpoint: '127.0.0.1:8002'}]}
          - {name: idle, quality_score: 0.5, server: vllm, backend_refs: [{endpoint: '127.0.0.1:8003'}]}
          - {name: hosted, quality_score: 0.4}
        decisions:
          - name: capped
            modelRefs: [{model: busy}, {model: full}, {model: idle}, {model: hosted}]
            algorithm:
              type: multi_factor
              multi_factor:
                weights: {quality: 0.5, queue: 0.3, kv_cache: 0.2}
                slo: {max_queue: 8, max_kv_cache: 0.9}
          - name: ranked
            modelRefs: [{model: busy}, {model: idle}, {model: hosted}]
            algorithm: {type: multi_factor, multi_factor: {weights: {queue: 1.0}}}
        signals:
          server_metrics: {every: 500ms}
        """;

    private static final String MODELS = """
        models:
          busy: {queue: 12, kv_cache: 0.5}
          full: {queue: 2, kv_cache: 0.95}
          idle: {queue: 3, kv_cache: 0.2}
        """;

    @Test
    void shouldDropAboveTheQueueAndKvCacheCeilingsAndNameTheValues() throws IOException
    {
        final CliRun run = explain("decision: capped\n" + MODELS, true);
        assertThat(run.out())
            .contains("\"model\": \"busy\", \"dropped\": \"queue=12>8\"")
            .contains("\"model\": \"full\", \"dropped\": \"kv_cache=0.95>0.9\"")
            .contains(" \"selected\": \"idle\",\n")
            .containsPattern("\"weights\": \\{[^}]*\"queue\": 0\\.3[^}]*\"kv_cache\": 0\\.2")
            .containsPattern("\"model\": \"idle\"[^}]*\"queue\": 3(\\.0)?, \"kv_cache\": 0\\.2")
            .containsPattern("\"model\": \"hosted\"[^}]*\"queue\": null, \"kv_cache\": null");
        final CliRun table = explain("decision: capped\n" + MODELS, false);
        assertThat(table.out()).contains("queue=12>8").contains("kv_cache=0.95>0.9");
    }

    @Test
    void aShorterQueueShouldWinAndAModelWithoutServerShouldGetZeroForIt() throws IOException
    {
        final CliRun run = explain("decision: ranked\n" + MODELS, true);
        // idle (3) beats busy (12); hosted has no queue signal: 0 for the factor.
        assertThat(run.out()).contains(" \"selected\": \"idle\",\n")
            .containsPattern("\"model\": \"busy\"[^\\n]*\"score\": 0\\.0,")
            .containsPattern("\"model\": \"idle\"[^\\n]*\"score\": 1\\.0,")
            .containsPattern("\"model\": \"hosted\"[^\\n]*\"score\": 0\\.0,");
    }

    private CliRun explain(final String scenario, final boolean json) throws IOException
    {
        final Path config = Files.writeString(dir.resolve("router.yaml"), CONFIG, StandardCharsets.UTF_8);
        final Path scenarioFile = Files.writeString(dir.resolve("scenario.yaml"), scenario, StandardCharsets.UTF_8);
        final CliRun run = json ?
            CliRun.of("explain", "--config", config.toString(), "--scenario", scenarioFile.toString(), "--json") :
            CliRun.of("explain", "--config", config.toString(), "--scenario", scenarioFile.toString());
        assertThat(run.err()).as("stderr").isEmpty();
        assertThat(run.exit()).isEqualTo(0);
        return run;
    }
}
