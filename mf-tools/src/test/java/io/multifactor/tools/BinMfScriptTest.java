package io.multifactor.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the real {@code bin/mf} script in a child process. The build step is skipped through {@code MF_CLASSPATH} (this
 * test runs inside the Maven build that compiled the classes); what is checked is the script's JVM flags, stdout/stderr
 * separation and exit codes.
 */
class BinMfScriptTest
{
    @TempDir
    Path dir;

    @Test
    void shouldRunExplainAndPassExitCodesThrough() throws Exception
    {
        final Path config = Files.writeString(dir.resolve("router.yaml"), """
            models: [{name: a, pricing: {prompt_per_1m: 1.0}}, {name: b}]
            decisions:
              - name: d
                modelRefs: [{model: a}, {model: b}]
                algorithm: {type: multi_factor, multi_factor: {slo: {max_inflight: 1}, on_no_candidates: fail}}
            """);
        final Path scenario = Files.writeString(dir.resolve("scenario.yaml"), "decision: d\nmodels: {b: {inflight: 2}}\n");
        final Path failing = Files.writeString(dir.resolve("failing.yaml"),
            "decision: d\nmodels: {a: {inflight: 2}, b: {inflight: 2}}\n");
        final Path bad = Files.writeString(dir.resolve("bad.yaml"), "decision: 5\n");

        final Result ok = mf("explain", "--config", config.toString(), "--scenario", scenario.toString(), "--json");
        assertThat(ok.exit).as(ok.err).isEqualTo(0);
        assertThat(ok.out).startsWith("{\"decision\": \"d\",\n \"outcome\": \"scored\",\n \"selected\": \"a\",\n");
        assertThat(ok.out).contains("{\"model\": \"b\", \"dropped\": \"inflight=2>1\", \"score\": null,");

        final Result failed = mf("explain", "--config", config.toString(), "--scenario", failing.toString(), "--json");
        assertThat(failed.exit).isEqualTo(3);
        assertThat(failed.out).contains("\"selected\": null,");

        final Result invalid = mf("explain", "--config", config.toString(), "--scenario", bad.toString(), "--json");
        assertThat(invalid.exit).isEqualTo(2);
        assertThat(invalid.out).isEmpty();
        assertThat(invalid.err).startsWith(bad + ":1:11: decision: expected a string, got 5\n");

        final Result valid = mf("validate", config.toString());
        assertThat(valid.exit).isEqualTo(0);
        assertThat(valid.out).startsWith(config + ": valid\n");
    }

    @Test
    void shouldPrintTheProjectVersionAndTheCommitItWasBuiltFrom() throws Exception
    {
        final Result version = mf("--version");

        assertThat(version.exit).as(version.err).isZero();
        assertThat(version.out).matches("mf \\S+ \\(commit ([0-9a-f]{12}|unknown)(, modified)?\\)\n");
        assertThat(version.out).startsWith("mf " + System.getProperty("mf.expected.version") + " (commit ");
        final Process git = new ProcessBuilder("git", "rev-parse", "--short=12", "HEAD")
            .directory(Path.of("..").toFile()).redirectErrorStream(true).start();
        final String head = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (git.waitFor() == 0)
        {
            assertThat(version.out).contains("(commit " + head);
        }
    }

    private static Result mf(final String... args) throws IOException, InterruptedException
    {
        final Path script = Path.of("..", "bin", "mf").toAbsolutePath().normalize();
        final List<String> command = new java.util.ArrayList<>(List.of("bash", script.toString()));
        command.addAll(List.of(args));
        final ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().put("MF_CLASSPATH", System.getProperty("java.class.path"));
        final Process process = builder.start();
        process.getOutputStream().close();
        final byte[] out = process.getInputStream().readAllBytes();
        final byte[] err = process.getErrorStream().readAllBytes();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Result(process.exitValue(), new String(out, StandardCharsets.UTF_8),
            new String(err, StandardCharsets.UTF_8));
    }

    private record Result(int exit, String out, String err)
    {
    }
}
