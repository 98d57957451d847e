package io.multifactor.envoy;

import io.envoyproxy.envoy.service.ext_proc.v3.ExternalProcessorGrpc;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.grpc.Status;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.serving.EngineHost;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static io.multifactor.envoy.FakeEnvoy.requestBody;
import static io.multifactor.envoy.FakeEnvoy.requestHeaders;
import static io.multifactor.envoy.FakeEnvoy.responseHeaders;
import static io.multifactor.envoy.FakeEnvoy.utf8;
import static org.assertj.core.api.Assertions.assertThat;

/** Health, meters, hot reload and the graceful shutdown that ends the leases still open. */
@Timeout(60)
class ExtProcOperationsTest
{
    @TempDir
    Path dir;

    @Test
    void shouldAnswerTheStandardHealthServiceForTheWholeServerAndTheProcessor() throws Exception
    {
        try (EnvoyFixture fixture = new EnvoyFixture(dir, EnvoyMode.VSR))
        {
            final HealthGrpc.HealthBlockingStub health = HealthGrpc.newBlockingStub(fixture.envoy.channel())
                .withDeadlineAfter(FakeEnvoy.TIMEOUT_S, TimeUnit.SECONDS);
            assertThat(health.check(HealthCheckRequest.getDefaultInstance()).getStatus())
                .isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
            assertThat(health.check(HealthCheckRequest.newBuilder()
                .setService(ExternalProcessorGrpc.SERVICE_NAME).build()).getStatus())
                .isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
        }
    }

    @Test
    void shouldExposeTheEnginesAndTheServicesMeters() throws Exception
    {
        try (EnvoyFixture fixture = new EnvoyFixture(dir, EnvoyMode.VSR))
        {
            final FakeEnvoy.Stream stream = fixture.envoy.open();
            stream.exchange(requestHeaders(true, "x-mf-decision", "quality"));
            assertThat(fixture.registry.get("mf.inflight").tag("model", "premium-model").gauge().value()).isEqualTo(1.0);
            assertThat(fixture.registry.get("mf.envoy.streams.open").gauge().value()).isEqualTo(1.0);
            stream.exchange(responseHeaders(true, ":status", "200"));
            assertThat(stream.finish()).isEqualTo(Status.OK);

            final SimpleMeterRegistry registry = fixture.registry;
            assertThat(registry.get("mf.inflight").tag("model", "premium-model").gauge().value()).isZero();
            // Selections are counted per thread and published by the refresh cycle: run one before reading them.
            fixture.engine().refreshNow();
            assertThat(registry.get("mf.selections").tag("decision", "quality").tag("outcome", "scored")
                .functionCounter().count()).isEqualTo(1.0);
            assertThat(registry.get("mf.envoy.requests").tag("result", "routed").functionCounter().count())
                .isEqualTo(1.0);
            assertThat(registry.get("mf.envoy.leases").tag("result", "completed").functionCounter().count())
                .isEqualTo(1.0);
            assertThat(registry.get("mf.envoy.streams").functionCounter().count()).isEqualTo(1.0);
        }
    }

    @Test
    void shouldServePrometheusMetricsOverHttp() throws Exception
    {
        final Path config = dir.resolve("router.yaml");
        Files.writeString(config, EnvoyFixture.CONFIG, StandardCharsets.UTF_8);
        final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (ExtProcApp app = ExtProcApp.start(config, EnvoyMode.VSR, new InetSocketAddress("127.0.0.1", 0), 1_000,
                registry, null);
            MetricsEndpoint metrics = MetricsEndpoint.start(registry, new InetSocketAddress("127.0.0.1", 0));
            FakeEnvoy envoy = new FakeEnvoy(app.port()))
        {
            final FakeEnvoy.Stream stream = envoy.open();
            stream.exchange(requestHeaders(true, "x-mf-decision", "quality"));
            final HttpClient http = HttpClient.newHttpClient();
            final HttpResponse<String> scrape = http.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + metrics.port() + "/metrics")).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
            assertThat(scrape.statusCode()).isEqualTo(200);
            assertThat(scrape.headers().firstValue("content-type").orElse("")).startsWith("text/plain");
            assertThat(scrape.body()).contains("mf_inflight{model=\"premium-model\"} 1")
                .contains("mf_envoy_requests_total{result=\"routed\"} 1");
            final HttpResponse<String> other = http.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + metrics.port() + "/")).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
            assertThat(other.statusCode()).isEqualTo(404);
            stream.exchange(responseHeaders(true, ":status", "200"));
            assertThat(stream.finish()).isEqualTo(Status.OK);
        }
    }

    @Test
    void shouldHotReloadTheProviderModelIdAndKeepTheRunningPlansOnABadFile() throws Exception
    {
        try (EnvoyFixture fixture = new EnvoyFixture(dir, EnvoyMode.VSR))
        {
            assertThat(routedModelId(fixture)).isEqualTo("acme/premium-v2");

            Files.writeString(fixture.config, EnvoyFixture.CONFIG.replace("acme/premium-v2", "acme/premium-v3"),
                StandardCharsets.UTF_8);
            final long deadline = System.nanoTime() + 10_000_000_000L;
            String modelId = routedModelId(fixture);
            while (!modelId.equals("acme/premium-v3") && System.nanoTime() < deadline)
            {
                Thread.sleep(50);
                modelId = routedModelId(fixture);
            }
            assertThat(modelId).isEqualTo("acme/premium-v3");
            final long applied = fixture.engine().reloadsApplied();

            Files.writeString(fixture.config, "models: [oops", StandardCharsets.UTF_8);
            final long refusedDeadline = System.nanoTime() + 10_000_000_000L;
            while (fixture.engine().reloadsRefused() == 0 && System.nanoTime() < refusedDeadline)
            {
                Thread.sleep(50);
            }
            assertThat(fixture.engine().reloadsRefused()).isEqualTo(1);
            assertThat(fixture.engine().reloadsApplied()).isEqualTo(applied);
            assertThat(routedModelId(fixture)).isEqualTo("acme/premium-v3");
        }
    }

    private static String routedModelId(final EnvoyFixture fixture) throws Exception
    {
        final FakeEnvoy.Stream stream = fixture.envoy.open();
        stream.exchange(requestHeaders(false, ":method", "POST"));
        final ProcessingResponse routed = stream.exchange(requestBody("{\"model\":\"quality\",\"prompt\":\"x\"}", true));
        stream.exchange(responseHeaders(true, ":status", "200"));
        assertThat(stream.finish()).isEqualTo(Status.OK);
        return Json.text(utf8(routed.getRequestBody().getResponse().getBodyMutation().getBody()), "model");
    }

    @Test
    void shouldEndEveryOpenLeaseOnGracefulShutdown() throws Exception
    {
        final Path config = dir.resolve("router.yaml");
        Files.writeString(config, EnvoyFixture.CONFIG, StandardCharsets.UTF_8);
        try (EngineHost host = EngineHost.start(config, null))
        {
            final MultiFactorEngine engine = host.engine();
            final ExtProcContext context = new ExtProcContext(engine, EnvoyMode.VSR, host.loaded());
            final ExtProcServer server = ExtProcServer.start(new ExtProcService(context),
                new InetSocketAddress("127.0.0.1", 0), 200);
            try (FakeEnvoy envoy = new FakeEnvoy(server.port()))
            {
                final FakeEnvoy.Stream[] streams = new FakeEnvoy.Stream[5];
                for (int i = 0; i < streams.length; i++)
                {
                    streams[i] = envoy.open();
                    streams[i].exchange(requestHeaders(true, "x-mf-decision", "quality"));
                }
                assertThat(engine.inflight(engine.requireModelId("premium-model"))).isEqualTo(streams.length);

                final long startNs = System.nanoTime();
                server.close();

                System.out.printf("graceful shutdown with %d open streams: %d ms%n", streams.length,
                    (System.nanoTime() - startNs) / 1_000_000L);
                assertThat(engine.inflight(engine.requireModelId("premium-model"))).isZero();
                assertThat(context.cancelled()).isEqualTo(streams.length);
                assertThat(server.service().openStreams()).isZero();
                for (final FakeEnvoy.Stream stream : streams)
                {
                    assertThat(stream.awaitEnd().getCode()).isNotEqualTo(Status.Code.OK);
                }
            }
            finally
            {
                server.close();
            }
        }
    }
}
