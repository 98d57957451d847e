package io.multifactor.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code bin/mf compare --suite DIR --through-gateway}, in-process: the bundled failing-model scenario in the simulator,
 * then through the real gateway and fake model servers on loopback sockets, two policies, a few seconds each.
 */
class CompareThroughGatewayTest
{
    private static final Path EXAMPLES = Path.of("..", "examples", "compare");
    private static final String SCENARIO = "5-failing-model";
    private static final Pattern STARTED = Pattern.compile(
        "gateway: " + SCENARIO + ": (\\w+): gateway 127\\.0\\.0\\.1:(\\d+), servers 127\\.0\\.0\\.1:([0-9,]+), ");
    private static final Pattern ENDED = Pattern.compile("gateway: " + SCENARIO + ": (\\w+): (\\d+) requests sent " +
        "\\((\\d+) complete 200s, (\\d+) errors, (\\d+) without an answer; the servers completed (\\d+)\\), (\\d+) " +
        "measured, SLO attainment ([0-9.]+)%, in flight after the drain (\\d+) ");

    private static Path oneScenario(final Path dir) throws Exception
    {
        final Path suite = Files.createDirectories(dir.resolve("suite"));
        for (final String suffix : new String[] {".yaml", ".profile.yaml", ".recommended.yaml"})
        {
            Files.copy(EXAMPLES.resolve(SCENARIO + suffix), suite.resolve(SCENARIO + suffix));
        }
        return suite;
    }

    // The bundled scenario with answers of 30 tokens instead of 100, so that a run drains in about a second.
    private static Path shortAnswers(final Path dir) throws Exception
    {
        final Path suite = oneScenario(dir);
        final Path profile = suite.resolve(SCENARIO + ".profile.yaml");
        final String text = Files.readString(profile);
        assertThat(text).contains("output_tokens: {mean: 100,");
        Files.writeString(profile, text.replace("output_tokens: {mean: 100,", "output_tokens: {mean: 30,"));
        return suite;
    }

    @Test
    void shouldRunEveryPolicyThroughTheGatewayAndAccountForEveryRequest(@TempDir final Path dir) throws Exception
    {
        final CliRun run = CliRun.of("compare", "--suite", shortAnswers(dir).toString(), "--seeds", "1",
            "--policies", "multi_factor,round_robin", "--seconds", "10", "--warmup-seconds", "2", "--out",
            dir.resolve("charts").toString(), "--through-gateway", "--gateway-seconds", "3", "--gateway-rate", "20",
            "--warmup", "0");
        assertThat(run.exit()).as(run.err()).isZero();

        // The simulator's table first, then the one through the gateway, in the same shape.
        final int simulated = run.out().indexOf(SCENARIO + ": knee ");
        final int gateway = run.out().indexOf(SCENARIO + " through the gateway: ");
        assertThat(simulated).isNotNegative();
        assertThat(gateway).isGreaterThan(simulated);
        final Matcher heading = Pattern.compile(SCENARIO + " through the gateway: 20\\.0 requests/s \\(--gateway-rate; " +
            "the simulator's knee ([0-9.]+)\\), seed 1, 3 s of load \\(the first ([0-9.]+) s not measured\\)")
            .matcher(run.out());
        assertThat(heading.find()).as(run.out()).isTrue();
        final double ratePerS = 20.0;
        assertThat(run.out()).contains(SCENARIO + ": knee " + heading.group(1) + " requests/s");
        final String table = run.out().substring(gateway);
        for (final String policy : new String[] {"multi_factor", "round_robin"})
        {
            final Matcher row = Pattern.compile("\n" + policy + " +(\\S+) +(\\S+) +(\\S+) +(\\S+) +(\\S+) +(\\S+) +(\\S+) +" +
                "(\\S+)\n").matcher(table);
            assertThat(row.find()).as(table).isTrue();
            final double attainment = Double.parseDouble(row.group(1).replace("*", "").replace("%", ""));
            assertThat(attainment).isBetween(0.0, 100.0);
            final double p50 = Double.parseDouble(row.group(2).replace("*", ""));
            final double p99 = Double.parseDouble(row.group(4).replace("*", ""));
            // TTFT: at least the fastest model's mean x 0.3 (lognormal draws), and the percentiles in order.
            assertThat(p50).isGreaterThan(50.0);
            assertThat(p99).isGreaterThanOrEqualTo(p50);
            assertThat(Long.parseLong(row.group(6).replace("*", ""))).isNotNegative();
            // Input tokens/s: 500-token prompts at 20 requests/s, at most every request's.
            assertThat(Double.parseDouble(row.group(7).replace("*", ""))).isGreaterThan(0.0)
                .isLessThanOrEqualTo(500.0 * ratePerS * 3.0);
            // The servers of this scenario have no prefix cache.
            assertThat(row.group(8)).isEqualTo("-");
            assertThat(table).containsPattern("; " + policy + " [0-9.]+% \\([0-9.]+%(-[0-9.]+%)?\\)|: " + policy +
                " [0-9.]+% \\([0-9.]+%(-[0-9.]+%)?\\)");
        }
        assertThat(table).containsPattern("each run: \\d+ requests sent, \\d+ measured; the gateway's in flight after " +
            "each run's drain: 0\n");

        // Every request accounted for, by the client and by the servers, and no lease left at the gateway.
        final Matcher ended = ENDED.matcher(run.err());
        final List<Integer> sent = new ArrayList<>();
        while (ended.find())
        {
            final int count = Integer.parseInt(ended.group(2));
            final int ok = Integer.parseInt(ended.group(3));
            final int errors = Integer.parseInt(ended.group(4));
            final int unanswered = Integer.parseInt(ended.group(5));
            final long completed = Long.parseLong(ended.group(6));
            assertThat(ok + errors + unanswered).isEqualTo(count);
            assertThat(completed).isBetween((long)ok, (long)ok + unanswered);
            assertThat(Integer.parseInt(ended.group(7))).isPositive().isLessThanOrEqualTo(count);
            assertThat(Double.parseDouble(ended.group(8))).isBetween(0.0, 100.0);
            assertThat(ended.group(9)).isEqualTo("0");
            sent.add(count);
        }
        assertThat(sent).hasSize(2);
        // The same seeded arrivals for both policies: about rate x 3 s of them (Poisson, within 5 standard deviations).
        assertThat(sent.get(1)).isEqualTo(sent.get(0));
        final double expected = ratePerS * 3.0;
        assertThat((double)sent.get(0)).isBetween(expected - 5.0 * Math.sqrt(expected), expected + 5.0 *
            Math.sqrt(expected));

        // Every port the runs listened on is free again.
        final Matcher started = STARTED.matcher(run.err());
        int runs = 0;
        while (started.find())
        {
            runs++;
            final List<Integer> ports = new ArrayList<>();
            ports.add(Integer.parseInt(started.group(2)));
            for (final String port : started.group(3).split(","))
            {
                ports.add(Integer.parseInt(port));
            }
            assertThat(ports).hasSize(4);
            for (final int port : ports)
            {
                try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress()))
                {
                    assertThat(socket.getLocalPort()).isEqualTo(port);
                }
            }
        }
        assertThat(runs).isEqualTo(2);
        assertThat(run.out()).contains("1 scenarios x their policies (2 runs) through the gateway, seed 1, 3 s of load");
    }

    @Test
    void shouldRefuseAScenarioTheGatewayCannotRun(@TempDir final Path dir) throws Exception
    {
        final Path suite = oneScenario(dir);
        for (final String suffix : new String[] {".yaml", ".profile.yaml", ".recommended.yaml"})
        {
            Files.copy(EXAMPLES.resolve("4-bursts" + suffix), suite.resolve("4-bursts" + suffix));
        }
        final CliRun bursts = CliRun.of("compare", "--suite", suite.toString(), "--through-gateway",
            "--gateway-scenarios", "4-bursts");
        assertThat(bursts.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
        assertThat(bursts.err()).contains("scenario 4-bursts cannot run through the gateway").contains("bursts");
        assertThat(bursts.out()).isEmpty();
        final CliRun missing = CliRun.of("compare", "--suite", suite.toString(), "--through-gateway",
            "--gateway-scenarios", "9-nowhere");
        assertThat(missing.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
        assertThat(missing.err()).contains("no scenario \"9-nowhere\"").contains("4-bursts, " + SCENARIO);
        final CliRun seconds = CliRun.of("compare", "--suite", suite.toString(), "--through-gateway",
            "--gateway-seconds", "0");
        assertThat(seconds.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
        assertThat(seconds.err()).contains("--gateway-seconds");
    }
}
