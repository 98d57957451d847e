package io.multifactor.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ServeCommandTest
{
    @TempDir
    Path dir;

    @Test
    void shouldRefuseABadConfigurationWithEveryProblemAndExit2() throws Exception
    {
        final Path file = dir.resolve("bad.yaml");
        Files.writeString(file, "models:\n  - name: a\n    backend_refs: [{endpoint: nowhere}]\ndecisions: []\n");
        final CliRun run = CliRun.of("serve", "--config", file.toString(), "--port", "0");
        assertThat(run.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).contains(file + ":3:31: models[0].backend_refs[0].endpoint: expected host:port")
            .contains("decisions: must not be empty");
        assertThat(CliRun.of("serve", "--config", file.toString(), "--idle-timeout", "soon").exit())
            .isEqualTo(ExitCodes.INVALID_INPUT);
    }

    @Test
    void shouldRefuseABadRequestTimeoutOrAttemptBudgetNamingTheOptionAndValue() throws Exception
    {
        final Path file = dir.resolve("ok.yaml");
        Files.writeString(file, "models:\n  - name: a\ndecisions:\n  - name: d\n    modelRefs: [{model: a}]\n");
        final CliRun timeout = CliRun.of("serve", "--config", file.toString(), "--port", "0", "--request-timeout", "1 hour");
        assertThat(timeout.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
        assertThat(timeout.err()).contains("--request-timeout 1 hour").doesNotContain("--port");
        final CliRun attempts = CliRun.of("serve", "--config", file.toString(), "--port", "0", "--max-attempts", "0");
        assertThat(attempts.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
        assertThat(attempts.err()).contains("--max-attempts 0 (>= 1)");
    }

    @Test
    void shouldServeUntilStoppedAndWarnAboutAModelWithoutBackends() throws Exception
    {
        serveUntilStopped();
    }

    private void serveUntilStopped() throws Exception
    {
        final Path file = dir.resolve("ok.yaml");
        Files.writeString(file, "models:\n  - name: a\ndecisions:\n  - name: d\n    modelRefs: [{model: a}]\n");
        final ServeRun serve = ServeRun.start("--config", file.toString());
        final int port = serve.port();
        final HttpClient http = HttpClient.newHttpClient();
        final HttpResponse<String> health = serve.awaitHealth(http);
        assertThat(health.statusCode()).isEqualTo(200);
        final HttpResponse<String> proxied = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port +
            "/v1/chat/completions")).POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"d\",\"messages\":[]}"))
            .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(proxied.statusCode()).isEqualTo(502);
        assertThat(proxied.body()).contains("model a has no backend_refs");
        assertThat(serve.stop()).isEqualTo(ExitCodes.OK);
        // stdout carries the start-up line and, by default, the access log (whose writer thread may come first).
        assertThat(serve.out()).contains("mf serve: listening on http://127.0.0.1:" + port +
            " (1 decisions, 1 models); " + file + " is watched for changes")
            .contains("\"decision\":\"d\"", "\"status\":502", "\"outcome\":\"failed\"");
        assertThat(serve.err())
            .contains("mf serve: warning: model a has no backend_refs: its requests fail (502)");
    }
}
