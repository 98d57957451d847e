package io.multifactor.gateway;

import io.multifactor.kernel.engine.MultiFactorEngine;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GatewayLoadTest
{
    static Vertx vertx;
    static TestUpstream quick;
    static TestUpstream slow;

    @TempDir
    Path dir;

    Gateway gateway;

    @BeforeAll
    static void startUpstreams() throws Exception
    {
        vertx = Vertx.vertx();
        quick = new TestUpstream(vertx, TestUpstream.Mode.STREAM, 3, 0);
        slow = new TestUpstream(vertx, TestUpstream.Mode.STREAM, 30, 20);
    }

    @AfterAll
    static void stopUpstreams() throws Exception
    {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @AfterEach
    void stopGateway()
    {
        if (gateway != null)
        {
            gateway.close();
        }
    }

    static String config(final String extra)
    {
        return String.join("\n",
            "models:",
            "  - name: quick-a",
            "    backend_refs: [{endpoint: 127.0.0.1:" + quick.port() + ", weight: 3}]",
            "  - name: quick-b",
            "    backend_refs: [{endpoint: 127.0.0.1:" + quick.port() + "}]",
            "  - name: slow",
            "    backend_refs: [{endpoint: 127.0.0.1:" + slow.port() + "}]",
            "decisions:",
            "  - name: quick",
            "    modelRefs: [{model: quick-a}, {model: quick-b}]",
            "    algorithm: {type: multi_factor, multi_factor: {weights: {load: 1.0}}}",
            "  - name: slow",
            "    modelRefs: [{model: slow}]",
            extra);
    }

    static void poll(final String what, final BooleanSupplier condition) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("timed out waiting for: " + what);
            }
            Thread.sleep(10);
        }
    }

    long inflight(final String model)
    {
        final MultiFactorEngine engine = gateway.engine();
        return engine.inflight(engine.modelId(model));
    }

    @Test
    void shouldLeaveNoLeaseBehindAfterTenThousandRequestsWithOneInTenCancelled() throws Exception
    {
        final Path file = dir.resolve("g.yaml");
        Files.writeString(file, config(""));
        gateway = Gateway.start(file, GatewayOptions.defaults().withPort(0), r -> { });
        final int total = 10_000;
        final int concurrency = 64;
        final Vertx clients = Vertx.vertx();
        final HttpClientAgent client = clients.createHttpClient(new HttpClientOptions().setKeepAlive(true),
            new PoolOptions().setHttp1MaxSize(concurrency));
        final Buffer body = Buffer.buffer("{\"model\":\"quick\",\"stream\":true,\"messages\":[{\"role\":\"user\"," +
            "\"content\":\"hi\"}]}");
        final String expected = TestUpstream.sse(3);
        final AtomicInteger next = new AtomicInteger();
        final AtomicInteger complete = new AtomicInteger();
        final AtomicInteger cancelled = new AtomicInteger();
        final AtomicInteger wrong = new AtomicInteger();
        final CountDownLatch done = new CountDownLatch(total);
        final long started = System.nanoTime();
        final Runnable[] issue = new Runnable[1];
        issue[0] = () ->
        {
            final int i = next.getAndIncrement();
            if (i >= total)
            {
                return;
            }
            final RequestOptions options = new RequestOptions().setMethod(HttpMethod.POST).setHost("127.0.0.1")
                .setPort(gateway.port()).setURI("/v1/chat/completions");
            client.request(options).compose(request ->
            {
                request.putHeader("content-type", "application/json");
                return request.send(body).compose(response ->
                {
                    if (i % 10 == 0)
                    {
                        // The client goes away once the stream has begun.
                        response.exceptionHandler(err -> { });
                        request.reset();
                        cancelled.incrementAndGet();
                        return io.vertx.core.Future.succeededFuture();
                    }
                    return response.body().map(b ->
                    {
                        if (response.statusCode() == 200 && b.toString().equals(expected))
                        {
                            complete.incrementAndGet();
                        }
                        else
                        {
                            wrong.incrementAndGet();
                        }
                        return null;
                    });
                });
            }).onComplete(ar ->
            {
                if (ar.failed() && i % 10 != 0)
                {
                    wrong.incrementAndGet();
                }
                done.countDown();
                issue[0].run();
            });
        };
        for (int c = 0; c < concurrency; c++)
        {
            clients.runOnContext(v -> issue[0].run());
        }
        assertThat(done.await(90, TimeUnit.SECONDS)).isTrue();
        final double seconds = (System.nanoTime() - started) / 1e9;
        clients.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        poll("every in-flight count back to 0", () -> inflight("quick-a") == 0 && inflight("quick-b") == 0);
        System.out.printf("%d requests (%d cancelled) through the gateway in %.1f s: %d complete, %d wrong%n", total,
            cancelled.get(), seconds, complete.get(), wrong.get());
        assertThat(wrong.get()).isZero();
        assertThat(cancelled.get()).isEqualTo(total / 10);
        assertThat(complete.get()).isEqualTo(total - total / 10);
        // Selections are counted per thread and published by the refresh cycle: run one before reading them.
        gateway.engine().refreshNow();
        final PrometheusText metrics = PrometheusText.parse(gateway.registry().scrape());
        assertThat(metrics.value("mf_inflight", "model", "quick-a")).isZero();
        assertThat(metrics.value("mf_selections_total", "decision", "quick", "outcome", "scored")).isEqualTo(total);
    }

    @Test
    void shouldReloadWhileStreamsAreOpenAndKeepThemWhole() throws Exception
    {
        final Path file = dir.resolve("g.yaml");
        Files.writeString(file, config(""));
        gateway = Gateway.start(file, GatewayOptions.defaults().withPort(0), r -> { });
        final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        final List<CompletableFuture<HttpResponse<String>>> streams = new ArrayList<>();
        for (int i = 0; i < 5; i++)
        {
            streams.add(http.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port() +
                    "/v1/chat/completions")).timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.ofString(
                    "{\"model\":\"slow\",\"stream\":true,\"prompt\":\"x\"}")).build(),
                HttpResponse.BodyHandlers.ofString()));
        }
        poll("five streams open", () -> inflight("slow") == 5);
        // The watcher applies a changed file while the streams run: a new decision and new weights.
        Files.writeString(file, config("  - name: added\n    modelRefs: [{model: quick-b}, {model: slow}]\n")
            .replace("weight: 3", "weight: 1"));
        poll("the watcher applied the new file", () -> gateway.engine().decisionId("added") >= 0);
        assertThat(inflight("slow")).isEqualTo(5);
        // A bad file is refused and changes nothing.
        Files.writeString(file, "models: [\n");
        poll("the bad file refused", () ->
            PrometheusText.parse(gateway.registry().scrape()).value("mf_reloads_total", "result", "refused") >= 1);
        for (final CompletableFuture<HttpResponse<String>> stream : streams)
        {
            final HttpResponse<String> response = stream.get(30, TimeUnit.SECONDS);
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.body()).isEqualTo(TestUpstream.sse(30));
        }
        poll("slow's leases ended", () -> inflight("slow") == 0);
        final HttpResponse<String> added = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" +
                gateway.port() + "/v1/completions")).header("x-mf-decision", "added")
            .POST(HttpRequest.BodyPublishers.ofString("{\"stream\":true,\"prompt\":\"x\"}")).build(),
            HttpResponse.BodyHandlers.ofString());
        assertThat(added.statusCode()).isEqualTo(200);
        assertThat(added.headers().firstValue("x-mf-decision")).hasValue("added");
        final PrometheusText metrics = PrometheusText.parse(http.send(HttpRequest.newBuilder(URI.create(
            "http://127.0.0.1:" + gateway.port() + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body());
        assertThat(metrics.value("mf_reloads_total", "result", "applied")).isEqualTo(1.0);
        assertThat(metrics.value("mf_inflight", "model", "slow")).isZero();
        assertThat(metrics.types).containsEntry("mf_inflight", "gauge").containsEntry("mf_selections_total", "counter");
        assertThat(metrics.value("http_server_requests_seconds_count", "method", "POST", "status", "2xx", "uri",
            "/v1/chat/completions")).isEqualTo(5.0);
        assertThat(metrics.value("mf_gateway_active")).isEqualTo(0.0);
    }
}
