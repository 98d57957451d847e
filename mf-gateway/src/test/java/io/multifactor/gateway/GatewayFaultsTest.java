package io.multifactor.gateway;

import io.micrometer.core.instrument.Timer;
import io.multifactor.config.ConfigLoader;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A thousand requests over real sockets, each drawn at random (seeded) among healthy streams, a backend that answers
 * 500 (retried on a healthy one), one that dies mid-stream, one that refuses connections, a decision whose admission
 * sheds {@code sheddable} requests while its model is busy, and clients that hang up before or during the answer:
 * every request ends, every healthy one arrives whole, critical and standard requests are never shed, a shed one gets
 * 429 {@code overloaded} with {@code Retry-After} and no lease, the shed counts agree (engine, status meter, access
 * log), and every in-flight count is back to 0.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GatewayFaultsTest
{
    private static final String[] MODELS = {"ok", "erroring", "dying", "refusing", "guarded"};
    private static final String[] PRIORITIES = {"critical", "standard", "sheddable"};

    @TempDir
    Path dir;

    @Test
    void shouldLeaveEveryInflightCountAtZeroAfterAThousandRequestsWithRandomCancelsFailuresAndShedding()
        throws Exception
    {
        final Vertx upstreams = Vertx.vertx();
        final Vertx clients = Vertx.vertx();
        final int refusedPort;
        try (ServerSocket socket = new ServerSocket(0))
        {
            refusedPort = socket.getLocalPort();
        }
        try (TestUpstream ok = new TestUpstream(upstreams, TestUpstream.Mode.STREAM, 4, 1);
            TestUpstream erroring = new TestUpstream(upstreams, TestUpstream.Mode.STATUS_500, 0, 0);
            TestUpstream dying = new TestUpstream(upstreams, TestUpstream.Mode.DIE_MID_STREAM, 6, 1);
            TestUpstream guardedUpstream = new TestUpstream(upstreams, TestUpstream.Mode.STREAM, 4, 1);
            AccessLog log = AccessLog.append(dir.resolve("access.log"));
            Gateway gateway = Gateway.start(ConfigLoader.load("g.yaml", String.join("\n",
                "models:",
                "  - name: ok",
                "    quality_score: 0.5",
                "    backend_refs: [{endpoint: 127.0.0.1:" + ok.port() + "}]",
                "  - name: erroring",
                "    quality_score: 0.9",
                "    backend_refs: [{endpoint: 127.0.0.1:" + erroring.port() + "}]",
                "  - name: dying",
                "    backend_refs: [{endpoint: 127.0.0.1:" + dying.port() + "}]",
                "  - name: refusing",
                "    backend_refs: [{endpoint: 127.0.0.1:" + refusedPort + "}]",
                "  - name: guarded",
                "    backend_refs: [{endpoint: 127.0.0.1:" + guardedUpstream.port() + "}]",
                "decisions:",
                "  - name: healthy",
                "    modelRefs: [{model: ok}]",
                "  - name: flaky",
                "    modelRefs: [{model: erroring}, {model: ok}]",
                "    algorithm: {type: multi_factor, multi_factor: {weights: {quality: 1.0}}}",
                "  - name: dying",
                "    modelRefs: [{model: dying}]",
                "  - name: refusing",
                "    modelRefs: [{model: refusing}]",
                // A sheddable request finds room only while fewer than 2 are in flight (0.002 x 1000); the ceiling
                // itself is never reached, so critical and standard requests are always served.
                "  - name: guarded",
                "    modelRefs: [{model: guarded}]",
                "    algorithm: {type: multi_factor, multi_factor: {slo: {max_inflight: 1000}, " +
                    "admission: {sheddable_above: 0.002}}}",
                ""), null), null, null, null, GatewayOptions.defaults().withPort(0).withTimeouts(5_000, 5_000),
                new OperatingOptions(null, OperatingOptions.NO_ADMIN_PORT, null, log, 0, 0), result -> { }))
        {
            final int total = 1_000;
            final int concurrency = 32;
            final HttpClientAgent client = clients.createHttpClient(new HttpClientOptions().setKeepAlive(true),
                new PoolOptions().setHttp1MaxSize(concurrency));
            final String[] decisions = {"healthy", "flaky", "dying", "refusing", "guarded"};
            final int guarded = 4;
            final String whole = TestUpstream.sse(4);
            final SplittableRandom random = new SplittableRandom(42);
            final int[] decisionOf = new int[total];
            final int[] cancelOf = new int[total];
            final int[] priorityOf = new int[total];
            for (int i = 0; i < total; i++)
            {
                decisionOf[i] = random.nextInt(decisions.length);
                priorityOf[i] = random.nextInt(PRIORITIES.length);
                // 0: reads the answer; 1: hangs up once the request is sent; 2: once the answer has begun.
                final int draw = random.nextInt(10);
                cancelOf[i] = draw == 0 ? 1 : draw == 1 ? 2 : 0;
            }
            final AtomicInteger next = new AtomicInteger();
            final AtomicInteger healthyWhole = new AtomicInteger();
            final AtomicInteger healthyWrong = new AtomicInteger();
            final AtomicInteger shedSeen = new AtomicInteger();
            final AtomicInteger sheddableServed = new AtomicInteger();
            final AtomicInteger sheddableWrong = new AtomicInteger();
            final AtomicReference<String> firstWrong = new AtomicReference<>();
            final CountDownLatch done = new CountDownLatch(total);
            final Runnable[] issue = new Runnable[1];
            issue[0] = () ->
            {
                final int i = next.getAndIncrement();
                if (i >= total)
                {
                    return;
                }
                final boolean sheddable = decisionOf[i] == guarded && priorityOf[i] == 2;
                // Healthy, flaky (retried), and the guarded decision's critical and standard requests: never shed.
                final boolean expectWhole = cancelOf[i] == 0 && (decisionOf[i] <= 1 || decisionOf[i] == guarded &&
                    !sheddable);
                final Buffer body = Buffer.buffer("{\"model\":\"" + decisions[decisionOf[i]] + "\",\"stream\":true," +
                    "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
                client.request(new RequestOptions().setMethod(HttpMethod.POST).setHost("127.0.0.1")
                    .setPort(gateway.port()).setURI("/v1/chat/completions")).compose(request ->
                {
                    request.putHeader("content-type", "application/json");
                    request.putHeader("x-mf-priority", PRIORITIES[priorityOf[i]]);
                    final Future<io.vertx.core.http.HttpClientResponse> sent = request.send(body);
                    if (cancelOf[i] == 1)
                    {
                        request.reset();
                        return Future.succeededFuture();
                    }
                    return sent.compose(response ->
                    {
                        if (cancelOf[i] == 2)
                        {
                            response.exceptionHandler(err -> { });
                            request.reset();
                            return Future.succeededFuture();
                        }
                        return response.body().map(b ->
                        {
                            if (expectWhole)
                            {
                                final boolean right = response.statusCode() == 200 && b.toString().equals(whole);
                                (right ? healthyWhole : healthyWrong).incrementAndGet();
                                if (!right)
                                {
                                    firstWrong.compareAndSet(null, "request " + i + " (" + decisions[decisionOf[i]] +
                                        ", " + PRIORITIES[priorityOf[i]] + "): " + response.statusCode() + " " + b);
                                }
                            }
                            else if (sheddable)
                            {
                                final boolean shed = response.statusCode() == 429;
                                final boolean right = shed ? b.toString().contains("\"code\":\"overloaded\"") &&
                                    "1".equals(response.getHeader("retry-after")) &&
                                    response.getHeader("x-mf-attempts") == null :
                                    response.statusCode() == 200 && b.toString().equals(whole);
                                (right ? shed ? shedSeen : sheddableServed : sheddableWrong).incrementAndGet();
                                if (!right)
                                {
                                    firstWrong.compareAndSet(null, "sheddable request " + i + ": " +
                                        response.statusCode() + " " + response.headers() + b);
                                }
                            }
                            return null;
                        });
                    });
                }).onComplete(ar ->
                {
                    if (ar.failed() && expectWhole)
                    {
                        healthyWrong.incrementAndGet();
                        firstWrong.compareAndSet(null, "request " + i + " (" + decisions[decisionOf[i]] + "): " +
                            ar.cause());
                    }
                    done.countDown();
                    issue[0].run();
                });
            };
            for (int c = 0; c < concurrency; c++)
            {
                clients.runOnContext(v -> issue[0].run());
            }
            assertThat(done.await(100, TimeUnit.SECONDS)).isTrue();
            final MultiFactorEngine engine = gateway.engine();
            for (final String model : MODELS)
            {
                GatewayProxyTest.poll("in-flight of " + model + " back to 0",
                    () -> engine.inflight(engine.modelId(model)) == 0);
            }
            int expectedWhole = 0;
            int sheddableRead = 0;
            for (int i = 0; i < total; i++)
            {
                final boolean sheddable = decisionOf[i] == guarded && priorityOf[i] == 2;
                expectedWhole += cancelOf[i] == 0 && (decisionOf[i] <= 1 || decisionOf[i] == guarded && !sheddable) ?
                    1 : 0;
                sheddableRead += cancelOf[i] == 0 && sheddable ? 1 : 0;
            }
            assertThat(healthyWrong.get()).as(firstWrong.get()).isZero();
            assertThat(healthyWhole.get()).isEqualTo(expectedWhole).isGreaterThan(300);
            assertThat(erroring.requests.get()).isPositive();
            assertThat(dying.requests.get()).isPositive();
            // Every sheddable request read to its end was served whole or shed as such, and some were shed.
            assertThat(sheddableWrong.get()).as(firstWrong.get()).isZero();
            assertThat(shedSeen.get() + sheddableServed.get()).isEqualTo(sheddableRead);
            assertThat(shedSeen.get()).isPositive();
            assertShedCountsAgree(gateway, log, shedSeen.get());
            System.out.println(total + " requests with faults, cancels and priorities: " + healthyWhole.get() +
                " never-shed answers whole, " + shedSeen.get() + " sheddable shed (429) and " + sheddableServed.get() +
                " served, read to the end");
        }
        finally
        {
            clients.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            upstreams.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    /**
     * The gateway's own records of the run: every shed selection the engine counted is one 429 in the status meter and
     * one access-log line (decision guarded, outcome shed, no attempt, so no lease, no model, no backend), at least as
     * many as the clients that read their 429 to the end; no line was dropped.
     */
    private void assertShedCountsAgree(final Gateway gateway, final AccessLog log, final int shedSeen) throws Exception
    {
        GatewayProxyTest.poll("no request being served", () -> gateway.registry().get("mf.gateway.active").gauge()
            .value() == 0);
        final long answered = finished(gateway);
        GatewayProxyTest.poll("every finished request logged", () -> log.written() == answered);
        assertThat(log.dropped()).isZero();
        final long status4xx = gateway.registry().get("http.server.requests").tag("uri", GatewayMeters.CHAT)
            .tag("status", "4xx").timer().count();
        final List<String> lines = Files.readAllLines(dir.resolve("access.log"));
        assertThat(lines).hasSize((int)answered);
        int shedLines = 0;
        for (final String line : lines)
        {
            final JsonObject entry = new JsonObject(line);
            if (entry.getInteger("status") == 429)
            {
                shedLines++;
                assertThat(entry.getString("decision")).as(line).isEqualTo("guarded");
                assertThat(entry.getString("outcome")).as(line).isEqualTo("shed");
                assertThat(entry.getInteger("attempts")).as(line).isZero();
                assertThat(entry.getString("model")).as(line).isNull();
                assertThat(entry.getString("backend")).as(line).isNull();
            }
            else if ("shed".equals(entry.getString("outcome")))
            {
                throw new AssertionError("a shed request answered other than 429: " + line);
            }
        }
        assertThat(shedLines).isEqualTo((int)status4xx).isGreaterThanOrEqualTo(shedSeen);
        // The engine's counters reach the registry through its refresh agent: within a refresh period.
        final int logged = shedLines;
        GatewayProxyTest.poll("the engine's shed count equal to the log's " + logged, () -> gateway.registry()
            .get("mf.selections").tag("decision", "guarded").tag("outcome", "shed").functionCounter().count() == logged);
    }

    /** @return the chat requests the status meter counted, every status class. */
    private static long finished(final Gateway gateway)
    {
        long count = 0;
        for (final Timer timer : gateway.registry().get("http.server.requests").tag("uri", GatewayMeters.CHAT).timers())
        {
            count += timer.count();
        }
        return count;
    }
}
