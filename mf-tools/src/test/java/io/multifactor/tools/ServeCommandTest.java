package io.multifactor.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

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
    void shouldServeUntilStoppedAndWarnAboutAModelWithoutBackends() throws Exception
    {
        serveUntilStopped();
    }

    private void serveUntilStopped() throws Exception
    {
        final Path file = dir.resolve("ok.yaml");
        Files.writeString(file, "models:\n  - name: a\ndecisions:\n  - name: d\n    modelRefs: [{model: a}]\n");
        final int port;
        try (ServerSocket socket = new ServerSocket(0))
        {
            port = socket.getLocalPort();
        }
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final AtomicInteger exit = new AtomicInteger(-1);
        final Thread serve = new Thread(() -> exit.set(Mf.run(new String[] {"serve", "--config", file.toString(),
            "--port", Integer.toString(port)}, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8))));
        serve.start();
        final HttpClient http = HttpClient.newHttpClient();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        HttpResponse<String> health = null;
        while (health == null)
        {
            try
            {
                health = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/healthz")).build(),
                    HttpResponse.BodyHandlers.ofString());
            }
            catch (final ConnectException ex)
            {
                assertThat(System.nanoTime()).isLessThan(deadline);
                Thread.sleep(20);
            }
        }
        assertThat(health.statusCode()).isEqualTo(200);
        final HttpResponse<String> proxied = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port +
            "/v1/chat/completions")).POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"d\",\"messages\":[]}"))
            .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(proxied.statusCode()).isEqualTo(502);
        assertThat(proxied.body()).contains("model a has no backend_refs");
        serve.interrupt();
        serve.join(TimeUnit.SECONDS.toMillis(20));
        assertThat(exit.get()).isEqualTo(ExitCodes.OK);
        assertThat(out.toString(StandardCharsets.UTF_8)).startsWith("mf serve: listening on http://127.0.0.1:" + port +
            " (1 decisions, 1 models); " + file + " is watched for changes");
        assertThat(err.toString(StandardCharsets.UTF_8))
            .contains("mf serve: warning: model a has no backend_refs: its requests fail (502)");
    }
}
