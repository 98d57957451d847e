package io.multifactor.envoy;

import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.grpc.Status;
import io.micrometer.core.instrument.FunctionCounter;
import io.multifactor.serving.BackendPrefix;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static io.multifactor.envoy.FakeEnvoy.requestBody;
import static io.multifactor.envoy.FakeEnvoy.requestHeaders;
import static io.multifactor.envoy.FakeEnvoy.responseHeaders;
import static org.assertj.core.api.Assertions.assertThat;

/** The ext_proc service in {@code endpoint} mode names the backend that holds the prompt's prefix. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ExtProcPrefixAffinityTest
{
    private static final String CONFIG = String.join("\n",
        "models:",
        "  - name: m",
        "    backend_refs:",
        "      - endpoint: 127.0.0.1:9101",
        "      - endpoint: 127.0.0.1:9102",
        "      - endpoint: 127.0.0.1:9103",
        "    prefix_affinity: {block_bytes: 16}",
        "decisions:",
        "  - name: chat",
        "    modelRefs: [{model: m}]",
        "");
    private static final String SHARED = "Answer in the voice of a ship's log, with dates. ".repeat(8);

    @TempDir
    Path dir;

    private EnvoyFixture fixture;

    @AfterEach
    void close()
    {
        if (fixture != null)
        {
            fixture.close();
        }
    }

    private String route(final int n, final boolean answer) throws Exception
    {
        final FakeEnvoy.Stream stream = fixture.envoy.open();
        stream.exchange(requestHeaders(false, ":method", "POST"));
        final ProcessingResponse routed = stream.exchange(requestBody("{\"model\":\"chat\",\"messages\":[" +
            "{\"role\":\"system\",\"content\":\"" + SHARED + "\"},{\"role\":\"user\",\"content\":\"turn " + n + "\"}]}",
            true));
        final String endpoint =
            ExtProcRequestPathTest.headers(routed.getRequestBody().getResponse()).get("x-gateway-destination-endpoint");
        if (answer)
        {
            stream.exchange(responseHeaders(true, ":status", "200", "content-type", "application/json"));
        }
        else
        {
            stream.exchange(responseHeaders(true, ":status", "503"));
        }
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(FakeEnvoy.TIMEOUT_S);
        while (fixture.inflight("m") != 0)
        {
            assertThat(System.nanoTime() - deadline).as("lease of request " + n + " ended").isNegative();
            Thread.sleep(5);
        }
        assertThat(stream.finish()).isEqualTo(Status.OK);
        return endpoint;
    }

    @Test
    void shouldNameTheWarmBackendOnceOneHasAnsweredThePrefix() throws Exception
    {
        fixture = new EnvoyFixture(dir, EnvoyMode.ENDPOINT, CONFIG);
        // A failed attempt enters nothing: the next request is still cold.
        route(0, false);
        final String first = route(1, true);
        for (int n = 2; n < 8; n++)
        {
            assertThat(route(n, true)).as("request " + n).isEqualTo(first);
        }
        final BackendPrefix warm = fixture.app.context().prefixBackends().backend("http://" + first);
        assertThat(warm.warm()).isEqualTo(6);
        assertThat(warm.pendingTokens()).isZero();
        long cold = 0;
        for (final BackendPrefix b : fixture.app.context().prefixBackends().backends())
        {
            cold += b.cold();
        }
        assertThat(cold).isEqualTo(2);
        final FunctionCounter meter = fixture.registry.find("mf.prefix.choices")
            .tags("backend", "http://" + first, "result", "warm").functionCounter();
        assertThat(meter).isNotNull();
        assertThat(meter.count()).isEqualTo(6.0);
        assertThat(fixture.registry.find("mf.prefix.blocks").tags("backend", "http://" + first, "kind", "matched")
            .functionCounter().count()).isPositive();
    }
}
