package io.multifactor.envoy;

import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.grpc.Status;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static io.multifactor.envoy.FakeEnvoy.requestHeaders;
import static io.multifactor.envoy.FakeEnvoy.responseHeaders;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The drain of {@code bin/mf envoy} on SIGTERM, over a real socket: health says {@code NOT_SERVING} at once, a new
 * stream is still served during the drain delay, then new streams are refused while the open ones finish within the
 * drain timeout, their leases ended as completed, none cut.
 */
@Timeout(60)
class ExtProcDrainTest
{
    private static final long DELAY_MS = 2_000;

    @TempDir
    Path dir;

    @Test
    void shouldFailHealthAtOnceAcceptDuringTheDelayThenLetOpenStreamsFinish() throws Exception
    {
        try (EnvoyFixture fixture = new EnvoyFixture(dir, EnvoyMode.VSR))
        {
            final FakeEnvoy.Stream before = fixture.envoy.open();
            assertRouted(before.exchange(requestHeaders(true, "x-mf-decision", "quality")));
            final int port = fixture.app.port();
            final Thread drain = new Thread(() -> fixture.app.drain(DELAY_MS), "drain");
            final long drainStartNs = System.nanoTime();
            drain.start();
            final HealthGrpc.HealthBlockingStub health = HealthGrpc.newBlockingStub(fixture.envoy.channel());
            while (health.withDeadlineAfter(FakeEnvoy.TIMEOUT_S, TimeUnit.SECONDS)
                .check(HealthCheckRequest.getDefaultInstance()).getStatus() != HealthCheckResponse.ServingStatus.NOT_SERVING)
            {
                Thread.sleep(5);
            }
            // Within the drain delay: still served (a load balancer may not have noticed yet).
            final FakeEnvoy.Stream during = fixture.envoy.open();
            assertRouted(during.exchange(requestHeaders(true, "x-mf-decision", "quality")));
            assertThat(drain.isAlive()).isTrue();
            assertThat(fixture.inflight("premium-model")).isEqualTo(2);
            // After it: a new stream is refused (the grace period, 2 s, runs meanwhile).
            Thread.sleep(Math.max(0, DELAY_MS + 200 - (System.nanoTime() - drainStartNs) / 1_000_000L));
            try (FakeEnvoy late = new FakeEnvoy(port))
            {
                final FakeEnvoy.Stream refused = late.open();
                refused.send(requestHeaders(true, "x-mf-decision", "quality"));
                assertThat(refused.awaitEnd().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
            }
            assertThat(drain.isAlive()).as("open streams keep the drain waiting").isTrue();
            // The streams opened before finish: their responses end, each lease completed.
            assertThat(before.exchange(responseHeaders(true, ":status", "200")).hasResponseHeaders()).isTrue();
            assertThat(during.exchange(responseHeaders(true, ":status", "200")).hasResponseHeaders()).isTrue();
            assertThat(before.finish().getCode()).isEqualTo(Status.Code.OK);
            assertThat(during.finish().getCode()).isEqualTo(Status.Code.OK);
            drain.join(TimeUnit.SECONDS.toMillis(FakeEnvoy.TIMEOUT_S));
            assertThat(drain.isAlive()).isFalse();
            // Both leases ended at their response's end (the drain has closed the engine since).
            assertThat(fixture.app.context().completed()).isEqualTo(2);
            assertThat(fixture.app.context().cancelled()).isZero();
        }
    }

    private static void assertRouted(final ProcessingResponse answer)
    {
        assertThat(answer.getRequestHeaders().getResponse().getHeaderMutation().getSetHeadersList())
            .anySatisfy(header -> assertThat(header.getHeader().getKey()).isEqualTo("x-selected-model"));
    }
}
