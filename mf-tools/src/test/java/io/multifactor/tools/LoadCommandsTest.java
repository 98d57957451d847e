package io.multifactor.tools;

import io.multifactor.fakes.BackendsProfile;
import io.multifactor.fakes.FakeBackends;
import io.multifactor.fakes.FakeModelProfile;
import io.multifactor.tools.report.LoadCsvReport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code bin/mf backends}, {@code load} and {@code compare}, run in-process against real loopback servers: what they
 * print, the files they write, and the located errors and exit codes of bad input.
 */
@Timeout(180)
class LoadCommandsTest
{
    @TempDir
    Path dir;

    private Path write(final String name, final String text) throws IOException
    {
        final Path file = dir.resolve(name);
        Files.writeString(file, text);
        return file;
    }

    private static int freePort() throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0))
        {
            return socket.getLocalPort();
        }
    }

    @Test
    void shouldRunTheBackendsForAWhileAndSayWhatTheyServed() throws Exception
    {
        final Path profile = write("b.yaml", "models:\n  m:\n    ttft_ms: 5\n    tpot_ms: 1\n");
        final CliRun run = CliRun.of("backends", "--profile", profile.toString(), "--for", "0.5");
        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(run.out()).containsPattern("m +http://127\\.0\\.0\\.1:\\d+/v1  metrics http://127\\.0\\.0\\.1:\\d+/metrics")
            .contains("requests 0, completed 0");
        assertThat(run.err()).contains("backends: running for 0.5 s");
    }

    @Test
    void shouldRefuseABadBackendsProfileWithLocatedProblems() throws Exception
    {
        final Path profile = write("b.yaml", "models:\n  m:\n    ttft_ms: -5\n    tpot: 1\n");
        final CliRun run = CliRun.of("backends", "--profile", profile.toString(), "--for", "0.5");
        assertThat(run.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).contains("b.yaml:3:14: models.m.ttft_ms:").contains("b.yaml:4:5: models.m.tpot:")
            .contains("b.yaml:3:5: models.m.tpot_ms: missing required key \"tpot_ms\"").contains("b.yaml: refused, 3 problems");
    }

    @Test
    void shouldLoadAServerAndWriteCsvAndChart() throws Exception
    {
        try (FakeBackends backends = FakeBackends.start(new BackendsProfile(1,
            List.of(FakeModelProfile.steady("m", 20, 2, 64, 4)))))
        {
            final Path profile = write("l.yaml", "seed: 3\narrivals_per_s: 100\nduration_s: 5\nmax_requests: 12\n" +
                "drain_s: 10\nmodel: m\nmax_tokens: 4\nslo: {max_ttft_ms: 60000}\n");
            final Path csv = dir.resolve("load.csv");
            final Path png = dir.resolve("load.png");
            final CliRun run = CliRun.of("load", "--target", "http://127.0.0.1:" + backends.port("m"), "--profile",
                profile.toString(), "--csv", csv.toString(), "--plot", png.toString());
            assertThat(run.exit()).as(run.err()).isZero();
            assertThat(run.out()).containsPattern("m +12 +0 +100\\.0%").contains("(all)")
                .contains("SLO: max_ttft_ms 60000, max_tpot_ms none");
            assertThat(run.err()).contains("load:").contains("sent 12/12 done 12 in flight 0 errors 0");
            final List<String> rows = Files.readAllLines(csv);
            assertThat(rows).hasSize(13);
            assertThat(rows.get(0)).isEqualTo(LoadCsvReport.HEADER);
            assertThat(rows.get(1)).matches("0,[0-9.]+,200,m,[0-9.]+,[0-9.]+,4,true,true");
            assertThat(Files.size(png)).isGreaterThan(1000);
        }
    }

    @Test
    void shouldStartTheBackendsOfAProfileForTheLengthOfTheLoad() throws Exception
    {
        final int port = freePort();
        final Path backends = write("b.yaml", "models:\n  m:\n    port: " + port + "\n    ttft_ms: 5\n    tpot_ms: 1\n" +
            "    output_tokens: 2\n");
        final Path profile = write("l.yaml", "arrivals_per_s: 100\nduration_s: 5\nmax_requests: 5\nmodel: m\n");
        final CliRun run = CliRun.of("load", "--target", "http://127.0.0.1:" + port, "--profile", profile.toString(),
            "--backends", backends.toString());
        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(run.out()).containsPattern("m +5 +0 +100\\.0%")
            .contains("prefix cache: the servers report no vllm:prefix_cache_queries_total");
        // Stopped at the end: the port is free again.
        try (ServerSocket again = new ServerSocket(port))
        {
            assertThat(again.getLocalPort()).isEqualTo(port);
        }
    }

    @Test
    void shouldRefuseABadTargetAndAnUnknownDecision() throws Exception
    {
        final Path profile = write("l.yaml", "decision: nope\nmax_requests: 1\n");
        final CliRun badUrl = CliRun.of("load", "--target", "ftp://x", "--profile", profile.toString());
        assertThat(badUrl.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
        assertThat(badUrl.err()).contains("--target: target must be an http URL");
        final Path config = write("c.yaml", "models:\n  - name: a\ndecisions:\n  - name: d\n    modelRefs: [{model: a}]\n");
        final CliRun unknown = CliRun.of("load", "--target", "http://127.0.0.1:1", "--profile", profile.toString(),
            "--config", config.toString());
        assertThat(unknown.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
        assertThat(unknown.err()).contains("the profile's decision \"nope\" is not a decision of");
        final Path bad = write("bad.yaml", "arrivals_per_s: 0\napi: grpc\n");
        final CliRun refused = CliRun.of("load", "--target", "http://127.0.0.1:1", "--profile", bad.toString());
        assertThat(refused.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
        assertThat(refused.err()).contains("bad.yaml:1:17: arrivals_per_s: must be > 0, got 0")
            .contains("bad.yaml:2:6: api: unknown api \"grpc\" (expected chat or completions)");
    }

    @Test
    void shouldCompareTwoPoliciesUnderTheSameLoadThroughTheGateway() throws Exception
    {
        final int a = freePort();
        final int b = freePort();
        final Path backends = write("b.yaml", "seed: 5\nmodels:\n" +
            "  a:\n    port: " + a + "\n    ttft_ms: 20\n    tpot_ms: 2\n    output_tokens: 4\n" +
            "  b:\n    port: " + b + "\n    ttft_ms: 40\n    tpot_ms: 2\n    output_tokens: 4\n");
        final Path config = write("g.yaml", "models:\n" +
            "  - name: a\n    backend_refs: [{endpoint: 127.0.0.1:" + a + "}]\n" +
            "  - name: b\n    backend_refs: [{endpoint: 127.0.0.1:" + b + "}]\n" +
            "decisions:\n  - name: d\n    modelRefs: [{model: a}, {model: b}]\n" +
            "    algorithm:\n      type: multi_factor\n      multi_factor:\n        slo: {max_ttft_ms: 60000}\n");
        final Path load = write("l.yaml", "seed: 9\narrivals_per_s: 40\nduration_s: 2\nmax_requests: 20\n" +
            "drain_s: 10\ndecision: d\nmax_tokens: 4\n");
        final Path png = dir.resolve("compare.png");
        final CliRun run = CliRun.of("compare", "--config", config.toString(), "--backends", backends.toString(),
            "--profile", load.toString(), "--policies", "multi_factor,round_robin", "--warmup", "0.5", "--plot", png.toString());
        assertThat(run.exit()).as(run.err()).isZero();
        // Same seed: the same 20 requests for both; round robin alternates between the two models.
        assertThat(run.out()).containsPattern("multi_factor +20 +0 +0 +100\\.0%")
            .containsPattern("round_robin +20 +0 +0 +100\\.0% .* a 50%, b 50%")
            .contains("SLO: max_ttft_ms 60000, max_tpot_ms none; seed 9; 20 requests per policy at 40/s")
            .contains("multi_factor attainment 100.0% is at least every baseline's (best baseline: round_robin 100.0%)");
        assertThat(run.err()).contains("warm-up         load:").contains("round_robin     load:");
        assertThat(Files.size(png)).isGreaterThan(1000);
    }

    @Test
    void shouldRefuseAnUnknownPolicy()
    {
        final CliRun run = CliRun.of("compare", "--policies", "multi_factor,fastest");
        assertThat(run.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
        assertThat(run.err()).contains("--policies: unknown policy \"fastest\" (expected multi_factor, round_robin, " +
            "random, least_inflight, lowest_latency, litellm_simple_shuffle, litellm_least_busy, aibrix_least_request, " +
            "litellm_latency, prodstack_session, llmd_weighted, llmd_sticky)");
    }

    @Test
    void shouldReportTheServersHitRateAfterALoadWithSessions() throws Exception
    {
        final int port = freePort();
        final Path backends = write("b.yaml", "models:\n  m:\n    port: " + port + "\n    ttft_ms: 5\n    tpot_ms: 1\n" +
            "    output_tokens: 2\n    batch: 64\n    prefix_cache: {gpu_blocks: 100000, prefill_tokens_per_s: 1000000}\n");
        final Path profile = write("l.yaml", "arrivals_per_s: 20\nduration_s: 3\nmodel: m\n" +
            "prompts: {system_prompts: 1, system_tokens: 400, turns: 3, think_time_s: 0.5, message_tokens: 40, " +
            "answer_tokens: 40}\n");
        final CliRun run = CliRun.of("load", "--target", "http://127.0.0.1:" + port, "--profile", profile.toString(),
            "--backends", backends.toString());
        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(run.out()).containsPattern("input tokens/s: \\d+\\.\\d\\n");
        final Matcher rate = Pattern.compile("prefix cache hit rate: (\\d+\\.\\d)% \\((\\d+) of (\\d+) prompt tokens, " +
            "1 server\\)").matcher(run.out());
        assertThat(rate.find()).as(run.out()).isTrue();
        assertThat(Double.parseDouble(rate.group(1))).isGreaterThan(60.0).isLessThan(100.0);
    }
}
