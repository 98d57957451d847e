package io.multifactor.envoy;

import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.grpc.Status;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.multifactor.envoy.FakeEnvoy.requestBody;
import static io.multifactor.envoy.FakeEnvoy.requestHeaders;
import static io.multifactor.envoy.FakeEnvoy.responseBody;
import static io.multifactor.envoy.FakeEnvoy.responseHeaders;
import static org.assertj.core.api.Assertions.assertThat;

/** 1,000 streams open at once, every one holding a lease at the same time; all of them end and nothing stays in flight. */
@Timeout(120)
class ExtProcConcurrentStreamsTest
{
    static final int STREAMS = 1000;

    @TempDir
    Path dir;

    private static void awaitAnswers(final List<FakeEnvoy.Stream> streams, final int each) throws InterruptedException
    {
        for (final FakeEnvoy.Stream stream : streams)
        {
            for (int i = 0; i < each; i++)
            {
                final ProcessingResponse answer = stream.answers.poll(FakeEnvoy.TIMEOUT_S * 3, TimeUnit.SECONDS);
                assertThat(answer).as("an answer within the deadline").isNotNull();
            }
        }
    }

    @Test
    void shouldLeaveEveryInFlightCountAtZeroAfterAThousandConcurrentStreams() throws Exception
    {
        try (EnvoyFixture fixture = new EnvoyFixture(dir, EnvoyMode.VSR))
        {
            final long startNs = System.nanoTime();
            final List<FakeEnvoy.Stream> streams = new ArrayList<>(STREAMS);
            for (int i = 0; i < STREAMS; i++)
            {
                final FakeEnvoy.Stream stream = fixture.envoy.open();
                streams.add(stream);
                if (i % 2 == 0)
                {
                    stream.send(requestHeaders(true, "x-mf-decision", i % 4 == 0 ? "quality" : "cheap"));
                }
                else
                {
                    stream.send(requestHeaders(false, ":method", "POST"));
                    stream.send(requestBody("{\"model\":\"" + (i % 4 == 1 ? "quality" : "cheap") +
                        "\",\"stream\":true,\"max_tokens\":10,\"messages\":[{\"role\":\"user\",\"content\":\"q" + i +
                        "\"}]}", true));
                }
            }
            for (int i = 0; i < STREAMS; i++)
            {
                awaitAnswers(streams.subList(i, i + 1), i % 2 == 0 ? 1 : 2);
            }
            // Every request routed and not yet answered by its backend: all leases are held at once.
            assertThat(fixture.inflight("premium-model") + fixture.inflight("economy-model")).isEqualTo(STREAMS);
            assertThat(fixture.inflight("premium-model")).isEqualTo(STREAMS / 2);

            for (int i = 0; i < STREAMS; i++)
            {
                final FakeEnvoy.Stream stream = streams.get(i);
                switch (i % 3)
                {
                    case 0 -> stream.send(responseHeaders(true, ":status", "200"));
                    case 1 -> {
                        stream.send(responseHeaders(false, ":status", "200", "content-type", "text/event-stream"));
                        stream.send(responseBody(ExtProcResponsePathTest.contentChunk(1), false));
                        stream.send(responseBody(ExtProcResponsePathTest.contentChunk(2), true));
                    }
                    default -> stream.cancel();
                }
            }
            for (int i = 0; i < STREAMS; i++)
            {
                switch (i % 3)
                {
                    case 0 -> awaitAnswers(streams.subList(i, i + 1), 1);
                    case 1 -> awaitAnswers(streams.subList(i, i + 1), 3);
                    default -> { }
                }
            }
            for (int i = 0; i < STREAMS; i++)
            {
                final FakeEnvoy.Stream stream = streams.get(i);
                if (i % 3 != 2)
                {
                    assertThat(stream.finish()).isEqualTo(Status.OK);
                }
                else
                {
                    assertThat(stream.awaitEnd().getCode()).isEqualTo(Status.Code.CANCELLED);
                }
            }
            fixture.awaitNothingInFlight();
            final long deadline = System.nanoTime() + 10_000_000_000L;
            while (fixture.app.server().service().openStreams() != 0 && System.nanoTime() < deadline)
            {
                Thread.sleep(5);
            }
            assertThat(fixture.app.server().service().openStreams()).isZero();
            final ExtProcContext context = fixture.app.context();
            assertThat(context.routed()).isEqualTo(STREAMS);
            assertThat(context.completed() + context.cancelled()).isEqualTo(STREAMS);
            assertThat(context.cancelled()).isEqualTo(STREAMS / 3);
            assertThat(context.protocolErrors() + context.internalErrors()).isZero();
            System.out.printf("%d concurrent streams: %d ms, %d completed, %d cancelled%n", STREAMS,
                (System.nanoTime() - startNs) / 1_000_000L, context.completed(), context.cancelled());
        }
    }
}
