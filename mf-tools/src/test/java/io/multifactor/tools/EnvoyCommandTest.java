package io.multifactor.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code mf envoy}: refuses bad input with exit 2, and serves in a child process until SIGTERM shuts it down. */
@Timeout(120)
class EnvoyCommandTest
{
    private static final String CONFIG = String.join("\n",
        "models:",
        "  - name: m",
        "    quality_score: 0.5",
        "decisions:",
        "  - name: d",
        "    modelRefs:",
        "      - model: m",
        "");

    @TempDir
    Path dir;

    private static String[] run(final String... args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int code = Mf.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
        return new String[] {Integer.toString(code), out.toString(StandardCharsets.UTF_8),
            err.toString(StandardCharsets.UTF_8)};
    }

    @Test
    void shouldRefuseAnInvalidConfigurationWithEveryProblemAndExit2() throws Exception
    {
        final Path config = dir.resolve("bad.yaml");
        Files.writeString(config, "models:\n  - name: m\n    quality_scor: 0.5\ndecisions: []\n");

        final String[] result = run("envoy", "--config", config.toString(), "--port", "0");

        assertThat(result[0]).isEqualTo("2");
        assertThat(result[1]).isEmpty();
        assertThat(result[2]).contains("bad.yaml:3:").contains("quality_scor");
    }

    @Test
    void shouldRefuseAnUnknownModeAndAMissingConfig() throws Exception
    {
        final Path config = dir.resolve("router.yaml");
        Files.writeString(config, CONFIG);

        final String[] mode = run("envoy", "--config", config.toString(), "--mode", "sidecar");
        assertThat(mode[0]).isEqualTo("2");
        assertThat(mode[2]).contains("unknown mode 'sidecar'").contains("vsr or endpoint");

        final String[] missing = run("envoy");
        assertThat(missing[0]).isEqualTo("2");
        assertThat(missing[2]).contains("--config");

        final String[] both = run("envoy", "--config", config.toString(), "--port", "0", "--unix",
            dir.resolve("s.sock").toString());
        assertThat(both[0]).isEqualTo("2");
        assertThat(both[2]).contains("--unix and --port exclude each other");
        assertThat(dir.resolve("s.sock")).doesNotExist();
    }

    @Test
    void shouldServeOnAUnixDomainSocketAndRemoveItAtShutdown() throws Exception
    {
        final Path socket = dir.resolve("ext_proc.sock");
        final Process process = startEnvoy("--unix", socket.toString(), "--grace-ms", "200", "--drain-delay", "0s");
        try
        {
            final BufferedReader out = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            final String line = out.readLine();
            assertThat(line).as("stderr: " + Files.readString(dir.resolve("stderr.txt")))
                .isEqualTo("mf envoy: serving ext_proc (mode vsr) on unix:" + socket);
            try (SocketChannel grpc = SocketChannel.open(StandardProtocolFamily.UNIX))
            {
                assertThat(grpc.connect(UnixDomainSocketAddress.of(socket))).isTrue();
            }

            process.destroy();
            assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
            // SIGTERM: a drain, then exit 0 (as serve; not the JVM's 143).
            assertThat(process.exitValue()).isZero();
            assertThat(Files.readString(dir.resolve("stderr.txt"))).isEmpty();
            assertThat(socket).doesNotExist();
        }
        finally
        {
            process.destroyForcibly();
        }
    }

    @Test
    void shouldServeUntilSigtermThenStopGracefully() throws Exception
    {
        final Process process =
            startEnvoy("--host", "127.0.0.1", "--port", "0", "--metrics-port", "0", "--grace-ms", "200", "--drain-delay",
                "0s");
        try
        {
            final BufferedReader out = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            final String line = out.readLine();
            assertThat(line).as("stderr: " + Files.readString(dir.resolve("stderr.txt")))
                .startsWith("mf envoy: serving ext_proc (mode vsr) on 127.0.0.1:");
            final Matcher ports = Pattern.compile("127\\.0\\.0\\.1:(\\d+),.*127\\.0\\.0\\.1:(\\d+)/metrics").matcher(line);
            assertThat(ports.find()).as(line).isTrue();

            try (Socket grpc = new Socket())
            {
                grpc.connect(new InetSocketAddress("127.0.0.1", Integer.parseInt(ports.group(1))), 5_000);
            }
            final HttpResponse<String> metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + ports.group(2) + "/metrics")).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
            assertThat(metrics.statusCode()).isEqualTo(200);
            assertThat(metrics.body()).contains("mf_inflight{model=\"m\"} 0").contains("mf_envoy_streams_total");

            process.destroy();
            assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
            // SIGTERM: the shutdown hook drains, then exits 0 (as serve; not the JVM's 128 + 15).
            assertThat(process.exitValue()).isZero();
            assertThat(Files.readString(dir.resolve("stderr.txt"))).isEmpty();
        }
        finally
        {
            process.destroyForcibly();
        }
    }

    @Test
    void shouldDrainOnSigtermAcceptingForTheDrainDelayThenExitZero() throws Exception
    {
        final int port = ServeDrainTest.freePort();
        final Process process = startEnvoy("--port", Integer.toString(port), "--drain-delay", "2s", "--grace-ms",
            "5000");
        try
        {
            final String line = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8)).readLine();
            assertThat(line).as("stderr: " + Files.readString(dir.resolve("stderr.txt")))
                .isEqualTo("mf envoy: serving ext_proc (mode vsr) on 127.0.0.1:" + port);
            process.destroy();
            final long signalled = System.nanoTime();
            // Health says NOT_SERVING at once (ExtProcDrainTest), but the port accepts for the drain delay...
            assertThat(connects(port)).isTrue();
            assertThat(process.isAlive()).isTrue();
            // ...then refuses, and the process exits 0 once its streams are done (none is open).
            while (connects(port))
            {
                assertThat(System.nanoTime() - signalled).isLessThan(TimeUnit.SECONDS.toNanos(20));
                Thread.sleep(20);
            }
            assertThat(System.nanoTime() - signalled).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(1_500));
            assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(process.exitValue()).as(Files.readString(dir.resolve("stderr.txt"))).isZero();
        }
        finally
        {
            process.destroyForcibly();
        }
    }

    private static boolean connects(final int port)
    {
        try (Socket socket = new Socket())
        {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
            return true;
        }
        catch (final IOException ex)
        {
            return false;
        }
    }

    @Test
    void shouldNameOnlyTheInvalidOptionAndItsValue() throws Exception
    {
        final Path config = Files.writeString(dir.resolve("router.yaml"), CONFIG);
        final String[] grace = run("envoy", "--config", config.toString(), "--grace-ms", "-1");
        assertThat(grace[0]).isEqualTo("2");
        assertThat(grace[2]).isEqualTo("mf envoy: invalid option --grace-ms -1 (a number >= 0)" + System.lineSeparator());
        final String[] metrics = run("envoy", "--config", config.toString(), "--metrics-port", "70000");
        assertThat(metrics[2]).isEqualTo("mf envoy: invalid option --metrics-port 70000 (0..65535)" +
            System.lineSeparator());
    }

    @Test
    void shouldListenOnLoopbackByDefault() throws Exception
    {
        final Process process = startEnvoy("--port", "0");
        try
        {
            final String line = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8)).readLine();
            assertThat(line).as("stderr: " + Files.readString(dir.resolve("stderr.txt")))
                .startsWith("mf envoy: serving ext_proc (mode vsr) on 127.0.0.1:");
        }
        finally
        {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }

    // bin/mf envoy in a child process on the test's configuration, its stderr in dir/stderr.txt, its stdin closed.
    private Process startEnvoy(final String... options) throws IOException
    {
        final Path config = dir.resolve("router.yaml");
        Files.writeString(config, CONFIG);
        final List<String> command = new ArrayList<>(List.of("envoy", "--config", config.toString()));
        command.addAll(List.of(options));
        final ProcessBuilder builder = ChildMf.builder(command);
        builder.redirectError(dir.resolve("stderr.txt").toFile());
        final Process process = builder.start();
        process.getOutputStream().close();
        return process;
    }
}
