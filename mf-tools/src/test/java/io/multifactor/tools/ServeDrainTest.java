package io.multifactor.tools;

import io.multifactor.fakes.BackendsProfile;
import io.multifactor.fakes.FakeBackends;
import io.multifactor.fakes.FakeModelProfile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code bin/mf serve} in a child process, stopped by SIGTERM while streams are open (against slow fake servers): the
 * readiness answers 503 at once, the streams finish whole, connections after the drain delay are refused, the access
 * log has every request, and the process exits 0.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ServeDrainTest
{
    @TempDir
    Path dir;

    static int freePort() throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0))
        {
            return socket.getLocalPort();
        }
    }

    static int status(final int port, final String path)
    {
        try
        {
            // A client of its own: a new connection each time.
            return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + path)).build(), HttpResponse.BodyHandlers.ofString())
                .statusCode();
        }
        catch (final ConnectException ex)
        {
            return -1;
        }
        catch (final IOException ex)
        {
            return -2;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return -2;
        }
    }

    @Test
    void shouldDrainOnSigtermLettingOpenStreamsFinishAndExitZero() throws Exception
    {
        try (FakeBackends backends = FakeBackends.start(new BackendsProfile(1,
            List.of(FakeModelProfile.steady("m", 20, 60, 64, 40)))))
        {
            final Path config = Files.writeString(dir.resolve("router.yaml"), "models:\n  - name: m\n" +
                "    backend_refs: [{endpoint: 127.0.0.1:" + backends.port("m") + "}]\ndecisions:\n  - name: d\n" +
                "    modelRefs: [{model: m}]\n");
            final Path accessLog = dir.resolve("access.log");
            final int port = freePort();
            final ProcessBuilder builder = ChildMf.builder(List.of("serve", "--config", config.toString(), "--port",
                Integer.toString(port), "--drain-delay", "1s", "--drain-timeout", "30s", "--access-log",
                accessLog.toString()));
            builder.redirectOutput(dir.resolve("out.txt").toFile()).redirectError(dir.resolve("err.txt").toFile());
            final Process process = builder.start();
            try
            {
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (status(port, "/readyz") != 200)
                {
                    assertThat(process.isAlive()).as(Files.readString(dir.resolve("err.txt"))).isTrue();
                    assertThat(System.nanoTime()).isLessThan(deadline);
                    Thread.sleep(50);
                }
                final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                final List<CompletableFuture<String>> streams = new ArrayList<>();
                for (int i = 0; i < 3; i++)
                {
                    final HttpResponse<InputStream> head = http.send(HttpRequest.newBuilder(URI.create(
                        "http://127.0.0.1:" + port + "/v1/chat/completions")).POST(HttpRequest.BodyPublishers.ofString(
                        "{\"model\":\"d\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"))
                        .build(), HttpResponse.BodyHandlers.ofInputStream());
                    assertThat(head.statusCode()).isEqualTo(200);
                    streams.add(CompletableFuture.supplyAsync(() ->
                    {
                        try (InputStream in = head.body())
                        {
                            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
                        }
                        catch (final IOException ex)
                        {
                            return "cut: " + ex;
                        }
                    }));
                }
                process.destroy();
                final long signalled = System.nanoTime();
                while (status(port, "/readyz") != 503)
                {
                    assertThat(System.nanoTime() - signalled).isLessThan(TimeUnit.SECONDS.toNanos(1));
                    Thread.sleep(10);
                }
                for (final CompletableFuture<String> stream : streams)
                {
                    final String body = stream.get(30, TimeUnit.SECONDS);
                    assertThat(body).contains("\"content\"").endsWith("data: [DONE]\n\n");
                }
                // After the drain delay the port no longer accepts connections (while the process still drains, or
                // once it has gone).
                while (status(port, "/healthz") != -1)
                {
                    assertThat(System.nanoTime() - signalled).isLessThan(TimeUnit.SECONDS.toNanos(20));
                    Thread.sleep(20);
                }
                assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
                assertThat(process.exitValue()).as(Files.readString(dir.resolve("err.txt"))).isZero();
            }
            finally
            {
                process.destroyForcibly();
            }
            final List<String> lines = Files.readAllLines(accessLog, StandardCharsets.UTF_8);
            assertThat(lines).hasSize(3);
            for (final String line : lines)
            {
                assertThat(line).startsWith("{\"time\":\"").contains("\"decision\":\"d\",\"model\":\"m\"")
                    .contains("\"status\":200").contains("\"key_id\":null");
            }
        }
    }
}
