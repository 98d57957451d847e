package io.multifactor.tools;

import io.multifactor.fakes.BackendsProfile;
import io.multifactor.fakes.FakeBackends;
import io.multifactor.fakes.FakeModelProfile;
import io.multifactor.gateway.Gateway;
import io.multifactor.gateway.GatewayOptions;
import io.multifactor.serving.BackendPrefix;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * {@code bin/mf stat} with prefix-cache affinity: a gateway in front of two fake model servers of one model serves
 * prompts that share a long system prompt; its counters file then shows, per backend, the same choices and blocks as
 * the gateway's own state and its {@code /metrics} (one count, read three ways), and a hit rate.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StatPrefixTest
{
    private static final String SYSTEM_PROMPT = "You are a careful assistant. ".repeat(40);
    private static final int REQUESTS = 12;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    Path dir;

    @Test
    void shouldShowEachBackendsPrefixChoicesBlocksAndHitRateAsTheGatewayCountedThem() throws Exception
    {
        final Path counters = dir.resolve("gateway.counters");
        try (FakeBackends backends = FakeBackends.start(new BackendsProfile(1, List.of(
            FakeModelProfile.steady("f1", 2, 1, 64, 2), FakeModelProfile.steady("f2", 2, 1, 64, 2)))))
        {
            final Path file = dir.resolve("gateway.yaml");
            Files.writeString(file, String.join("\n",
                "signals:",
                "  counters_file: " + counters,
                "  latency_refresh: 50ms",
                "models:",
                "  - name: m",
                "    backend_refs:",
                "      - {endpoint: '127.0.0.1:" + backends.port("f1") + "'}",
                "      - {endpoint: '127.0.0.1:" + backends.port("f2") + "'}",
                "    prefix_affinity: {block_bytes: 64}",
                "decisions:",
                "  - name: chat",
                "    modelRefs: [{model: m}]",
                ""));
            final Gateway gateway = Gateway.start(file, GatewayOptions.defaults().withPort(0), result -> { });
            try
            {
                for (int i = 0; i < REQUESTS; i++)
                {
                    assertThat(post(gateway, i).statusCode()).isEqualTo(200);
                }
                final List<BackendPrefix> states = gateway.prefixBackends().backends();
                assertThat(states).hasSize(2);
                long warm = 0;
                long cold = 0;
                for (final BackendPrefix state : states)
                {
                    warm += state.warm();
                    cold += state.cold();
                }
                // The first request found no backend warm; every later one found the first one's prefix.
                assertThat(cold).isEqualTo(1);
                assertThat(warm).isEqualTo(REQUESTS - 1);

                // The refresh agent copies the counters to the file every 50 ms: read until the last counts are there.
                CliRun run = CliRun.of("stat", "--counters-file", counters.toString());
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (!shows(run.out(), states.get(0)) || !shows(run.out(), states.get(1)))
                {
                    assertThat(System.nanoTime() - deadline).as("stat shows the counts:\n" + run.out()).isNegative();
                    Thread.sleep(20);
                    run = CliRun.of("stat", "--counters-file", counters.toString());
                }
                assertThat(run.exit()).as(run.err()).isZero();
                assertThat(run.out()).containsPattern(
                    "\nPREFIX_BACKEND +WARM +COLD +RELEASE +BLOCKS_LOOKED_UP +BLOCKS_MATCHED +HIT_RATE\n");
                final String metrics = http.send(HttpRequest.newBuilder(URI.create(
                    "http://127.0.0.1:" + gateway.port() + "/metrics")).GET().build(),
                    HttpResponse.BodyHandlers.ofString()).body();
                for (final BackendPrefix state : states)
                {
                    final String tag = "backend=\"" + state.key() + "\"";
                    assertThat(metrics).contains(
                        "mf_prefix_choices_total{" + tag + ",result=\"warm\"} " + state.warm() + ".0",
                        "mf_prefix_choices_total{" + tag + ",result=\"cold\"} " + state.cold() + ".0",
                        "mf_prefix_choices_total{" + tag + ",result=\"release\"} " + state.release() + ".0",
                        "mf_prefix_blocks_total{" + tag + ",kind=\"looked_up\"} " + state.blocksLookedUp() + ".0",
                        "mf_prefix_blocks_total{" + tag + ",kind=\"matched\"} " + state.blocksMatched() + ".0");
                }
                // The warm backend matched the shared system prompt's blocks (not the questions') after the first.
                final BackendPrefix hot = states.get(0).warm() > 0 ? states.get(0) : states.get(1);
                assertThat(hot.blocksMatched()).isPositive().isLessThan(hot.blocksLookedUp());
                final Matcher hotRow = row(run.out(), hot);
                assertThat(hotRow.find()).isTrue();
                assertThat(Double.parseDouble(hotRow.group(6)))
                    .isCloseTo((double)hot.blocksMatched() / hot.blocksLookedUp(), within(0.0005));
            }
            finally
            {
                gateway.close();
            }
        }
    }

    // Whether stat's table has the backend's row with exactly its counts and their hit rate.
    private static boolean shows(final String out, final BackendPrefix state)
    {
        final Matcher row = row(out, state);
        if (!row.find())
        {
            return false;
        }
        final long lookedUp = state.blocksLookedUp();
        return Long.parseLong(row.group(1)) == state.warm() && Long.parseLong(row.group(2)) == state.cold() &&
            Long.parseLong(row.group(3)) == state.release() && Long.parseLong(row.group(4)) == lookedUp &&
            Long.parseLong(row.group(5)) == state.blocksMatched() && row.group(6).equals(lookedUp == 0 ? "-" :
                String.format(Locale.ROOT, "%.3f", (double)state.blocksMatched() / lookedUp));
    }

    private static Matcher row(final String out, final BackendPrefix state)
    {
        return Pattern.compile("\n" + Pattern.quote(state.key()) +
            " +(\\d+) +(\\d+) +(\\d+) +(\\d+) +(\\d+) +(-|\\d\\.\\d{3})\n").matcher(out);
    }

    private HttpResponse<String> post(final Gateway gateway, final int n) throws Exception
    {
        final String user = String.format(Locale.ROOT, "question %03d: ", n) + "x".repeat(100);
        return http.send(HttpRequest.newBuilder(URI.create(
            "http://127.0.0.1:" + gateway.port() + "/v1/chat/completions"))
            .timeout(Duration.ofSeconds(20))
            .header("content-type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"chat\",\"messages\":[{\"role\":\"system\"," +
                "\"content\":\"" + SYSTEM_PROMPT + "\"},{\"role\":\"user\",\"content\":\"" + user + "\"}]}"))
            .build(), HttpResponse.BodyHandlers.ofString());
    }
}
