package io.multifactor.gateway;

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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.ServerSocket;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A thousand requests over real sockets, each drawn at random (seeded) among healthy streams, a backend that answers
 * 500 (retried on a healthy one), one that dies mid-stream, one that refuses connections, and clients that hang up
 * before or during the answer: every request ends, every healthy one arrives whole, and every in-flight count is back
 * to 0. (Sheddable priorities join the mix once {@code x-mf-priority} exists.)
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GatewayFaultsTest
{
    private static final String[] MODELS = {"ok", "erroring", "dying", "refusing"};

    @Test
    void shouldLeaveEveryInflightCountAtZeroAfterAThousandRequestsWithRandomCancelsAndFailures() throws Exception
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
                ""), null), GatewayOptions.defaults().withPort(0).withTimeouts(5_000, 5_000)))
        {
            final int total = 1_000;
            final int concurrency = 32;
            final HttpClientAgent client = clients.createHttpClient(new HttpClientOptions().setKeepAlive(true),
                new PoolOptions().setHttp1MaxSize(concurrency));
            final String[] decisions = {"healthy", "flaky", "dying", "refusing"};
            final String whole = TestUpstream.sse(4);
            final SplittableRandom random = new SplittableRandom(42);
            final int[] decisionOf = new int[total];
            final int[] cancelOf = new int[total];
            for (int i = 0; i < total; i++)
            {
                decisionOf[i] = random.nextInt(decisions.length);
                // 0: reads the answer; 1: hangs up once the request is sent; 2: once the answer has begun.
                final int draw = random.nextInt(10);
                cancelOf[i] = draw == 0 ? 1 : draw == 1 ? 2 : 0;
            }
            final AtomicInteger next = new AtomicInteger();
            final AtomicInteger healthyWhole = new AtomicInteger();
            final AtomicInteger healthyWrong = new AtomicInteger();
            final CountDownLatch done = new CountDownLatch(total);
            final Runnable[] issue = new Runnable[1];
            issue[0] = () ->
            {
                final int i = next.getAndIncrement();
                if (i >= total)
                {
                    return;
                }
                final boolean expectWhole = cancelOf[i] == 0 && decisionOf[i] <= 1;
                final Buffer body = Buffer.buffer("{\"model\":\"" + decisions[decisionOf[i]] + "\",\"stream\":true," +
                    "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
                client.request(new RequestOptions().setMethod(HttpMethod.POST).setHost("127.0.0.1")
                    .setPort(gateway.port()).setURI("/v1/chat/completions")).compose(request ->
                {
                    request.putHeader("content-type", "application/json");
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
                                (response.statusCode() == 200 && b.toString().equals(whole) ? healthyWhole :
                                    healthyWrong).incrementAndGet();
                            }
                            return null;
                        });
                    });
                }).onComplete(ar ->
                {
                    if (ar.failed() && expectWhole)
                    {
                        healthyWrong.incrementAndGet();
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
            for (int i = 0; i < total; i++)
            {
                expectedWhole += cancelOf[i] == 0 && decisionOf[i] <= 1 ? 1 : 0;
            }
            assertThat(healthyWrong.get()).isZero();
            assertThat(healthyWhole.get()).isEqualTo(expectedWhole).isGreaterThan(300);
            assertThat(erroring.requests.get()).isPositive();
            assertThat(dying.requests.get()).isPositive();
        }
        finally
        {
            clients.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            upstreams.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }
}
