package io.multifactor.tools;

import io.multifactor.config.ConfigLoader;
import io.multifactor.config.LoadedConfig;
import io.multifactor.fakes.BackendsProfile;
import io.multifactor.fakes.FakeBackends;
import io.multifactor.fakes.FakeModelProfile;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.redis.RedisServer;
import io.multifactor.serving.EngineHost;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code bin/mf serve} with a {@code fleet:} section joins the fleet through a real Redis: a request held open on the
 * gateway is counted in flight by another replica of the cluster (an engine of this test joined the same way), and
 * forgotten once it has ended.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ServeFleetTest
{
    // The fake server answers its first token this late: long enough for the other replica to see the request.
    private static final int HELD_MS = 15_000;

    @TempDir
    Path dir;

    @Test
    void shouldShareTheInflightCountOfARequestHeldOpenOnServeWithAnotherReplicaThroughRedis() throws Exception
    {
        try (RedisServer redis = new RedisServer(null).start();
            FakeBackends backends = FakeBackends.start(new BackendsProfile(1,
                List.of(FakeModelProfile.steady("m", HELD_MS, 5, 64, 4)))))
        {
            final Path file = dir.resolve("fleet.yaml");
            Files.writeString(file, "models:\n  - name: m\n    backend_refs: [{endpoint: 127.0.0.1:" + backends.port("m") +
                "}]\ndecisions:\n  - name: d\n    modelRefs: [{model: m}]\n" +
                "fleet:\n  redis: " + redis.url() + "\n  cluster: serve-test\n  exchange_every: 50ms\n");
            final LoadedConfig loaded = ConfigLoader.load(file);
            final int model = loaded.plans().modelId("m");
            final FleetJoin otherJoin = FleetJoin.ofOrNull(loaded.config().fleet());
            assertThat(FleetJoin.joined(otherJoin)).startsWith("; joined fleet serve-test at " + redis.url() +
                " as replica ");
            try (EngineHost otherHost = EngineHost.start(loaded, null, null, FleetJoin.exchangeOrNull(otherJoin)))
            {
                final MultiFactorEngine other = otherHost.engine();
                final ServeRun serve = ServeRun.start("--config", file.toString());
                final int port = serve.port();
                int exit = -1;
                try
                {
                    final HttpClient http = HttpClient.newHttpClient();
                    assertThat(serve.awaitHealth(http).statusCode()).isEqualTo(200);
                    assertThat(other.inflight(model)).isZero();
                    final CompletableFuture<HttpResponse<String>> held = http.sendAsync(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + "/v1/chat/completions")).POST(
                        HttpRequest.BodyPublishers.ofString("{\"model\":\"d\",\"stream\":true,\"messages\":" +
                            "[{\"role\":\"user\",\"content\":\"hello\"}]}")).build(), HttpResponse.BodyHandlers.ofString());
                    // The gateway's lease reaches the other replica through Redis while the backend holds the request.
                    awaitCount(() -> other.inflight(model), 1L, held);
                    assertThat(held.get(60, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
                    awaitCount(() -> other.inflight(model), 0L, null);
                    assertThat(serve.out()).contains("mf serve: listening on http://127.0.0.1:" + port)
                        .contains("; joined fleet serve-test at " + redis.url() + " as replica ");
                }
                finally
                {
                    exit = serve.stop();
                }
                assertThat(exit).isEqualTo(ExitCodes.OK);
            }
        }
    }

    // Waits for an exchange to bring the count (polling: the exchange runs on its own thread, every 50 ms).
    private static void awaitCount(final LongSupplier count, final long expected, final CompletableFuture<?> heldOrNull)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (count.getAsLong() != expected)
        {
            assertThat(heldOrNull == null || !heldOrNull.isDone())
                .as("the request ended before the other replica counted it").isTrue();
            assertThat(System.nanoTime()).as("in flight seen by the other replica: %d, expected %d",
                count.getAsLong(), expected).isLessThan(deadline);
            Thread.sleep(20);
        }
    }
}
