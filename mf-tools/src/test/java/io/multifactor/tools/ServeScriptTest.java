package io.multifactor.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs {@code bin/mf serve} through the real script in a child process (the build skipped through
 * {@code MF_CLASSPATH}): it runs on the server JVM flags, not the short-lived commands' C1-only ones, serves, and stops
 * cleanly on SIGTERM.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ServeScriptTest
{
    @TempDir
    Path dir;

    @Test
    void shouldServeOnTheServerJvmFlagsAndStopOnSigterm() throws Exception
    {
        final Path config = Files.writeString(dir.resolve("router.yaml"),
            "models:\n  - name: a\n    backend_refs: [{endpoint: 127.0.0.1:9}]\ndecisions:\n  - name: d\n" +
                "    modelRefs: [{model: a}]\n");
        final int port;
        try (ServerSocket socket = new ServerSocket(0))
        {
            port = socket.getLocalPort();
        }
        final Path script = Path.of("..", "bin", "mf").toAbsolutePath().normalize();
        final ProcessBuilder builder = new ProcessBuilder(List.of("bash", script.toString(), "serve", "--config",
            config.toString(), "--port", Integer.toString(port)));
        builder.environment().put("MF_CLASSPATH", System.getProperty("java.class.path"));
        builder.environment().put("MF_JAVA_OPTS", "-XX:+PrintCommandLineFlags");
        builder.redirectOutput(dir.resolve("out.txt").toFile()).redirectError(dir.resolve("err.txt").toFile());
        final Process process = builder.start();
        try
        {
            final HttpClient http = HttpClient.newHttpClient();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            HttpResponse<String> ready = null;
            while (ready == null)
            {
                try
                {
                    ready = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz")).build(),
                        HttpResponse.BodyHandlers.ofString());
                }
                catch (final ConnectException ex)
                {
                    assertThat(process.isAlive()).as(Files.readString(dir.resolve("err.txt"))).isTrue();
                    assertThat(System.nanoTime()).isLessThan(deadline);
                    Thread.sleep(50);
                }
            }
            assertThat(ready.statusCode()).isEqualTo(200);
            // Nothing listens on port 9 of loopback: the only candidate fails to connect and there is none to retry on.
            final HttpResponse<String> refused = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port +
                "/v1/completions")).POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"d\",\"prompt\":\"x\"}"))
                .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(refused.statusCode()).isEqualTo(502);
            assertThat(refused.body()).contains("could not connect to backend 127.0.0.1:9 of model a");
        }
        finally
        {
            process.destroy();
            assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        final String out = Files.readString(dir.resolve("out.txt"), StandardCharsets.UTF_8);
        assertThat(out).contains("-XX:+UseG1GC").doesNotContain("TieredStopAtLevel").doesNotContain("UseSerialGC");
        assertThat(out).contains("mf serve: listening on http://127.0.0.1:" + port + " (1 decisions, 1 models)");
    }
}
