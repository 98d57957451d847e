package io.multifactor.envoy;

import io.envoyproxy.envoy.service.ext_proc.v3.ExternalProcessorGrpc;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingRequest;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static io.multifactor.envoy.FakeEnvoy.requestHeaders;
import static io.multifactor.envoy.FakeEnvoy.responseBody;
import static io.multifactor.envoy.FakeEnvoy.responseHeaders;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A peer that sends and never reads the answers: the service stops reading its stream once the unread answers fill
 * the transport (instead of queuing answers without bound), the stream's lease ends when it is cancelled, and the
 * service goes on serving.
 */
@Timeout(120)
class ExtProcBackpressureTest
{
    /** Far more messages than the windows and buffers on the way can hold: reaching it means nothing pushed back. */
    private static final int MAX_MESSAGES = 300_000;
    /** How long the sender must stay blocked to count as pushed back (the server's windows are long full by then). */
    private static final long BLOCKED_MS = 3_000;

    @Test
    void aPeerThatNeverReadsShouldBeStoppedNotBuffered(@TempDir final Path dir) throws Exception
    {
        // Cancelling a stream whose answers are still queued makes grpc-java log a warning about the answers dropped:
        // capture it instead of printing it.
        final Logger logger = Logger.getLogger("io.grpc.netty.shaded.io.grpc.netty.NettyServerHandler");
        final List<LogRecord> records = new CopyOnWriteArrayList<>();
        final Handler capture = new Handler()
        {
            @Override
            public void publish(final LogRecord record)
            {
                records.add(record);
            }

            @Override
            public void flush()
            {
            }

            @Override
            public void close()
            {
            }
        };
        final boolean parents = logger.getUseParentHandlers();
        logger.setUseParentHandlers(false);
        logger.addHandler(capture);
        try (EnvoyFixture fixture = new EnvoyFixture(dir, EnvoyMode.VSR))
        {
            final ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", fixture.app.port())
                .usePlaintext().flowControlWindow(64 * 1024).build();
            try
            {
                final ClientCall<ProcessingRequest, ProcessingResponse> call =
                    channel.newCall(ExternalProcessorGrpc.getProcessMethod(), CallOptions.DEFAULT);
                // The listener asks for no answer: none is ever read from the transport.
                call.start(new ClientCall.Listener<>()
                {
                }, new Metadata());
                call.sendMessage(requestHeaders(true, "x-mf-decision", "quality"));
                call.sendMessage(responseHeaders(false, ":status", "200", "content-type", "text/event-stream"));
                final ProcessingRequest chunk = responseBody(
                    "data: {\"choices\":[{\"delta\":{\"content\":\"" + "x".repeat(64) + "\"}}]}\n\n", false);
                int sent = 0;
                boolean blocked = false;
                while (sent < MAX_MESSAGES && !blocked)
                {
                    if (call.isReady())
                    {
                        call.sendMessage(chunk);
                        sent++;
                        continue;
                    }
                    final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(BLOCKED_MS);
                    while (!call.isReady() && System.nanoTime() < deadline)
                    {
                        Thread.sleep(10);
                    }
                    blocked = !call.isReady();
                }
                System.out.printf("a peer that never reads: %d chunks (%d KiB) sent, then %s%n", sent,
                    (long)sent * chunk.getSerializedSize() / 1024, blocked ? "pushed back" : "never pushed back");
                assertThat(blocked).as("the sender was pushed back before %d chunks", MAX_MESSAGES).isTrue();
                assertThat(fixture.inflight("premium-model") + fixture.inflight("economy-model")).isEqualTo(1);

                call.cancel("the peer went away", null);
                fixture.awaitNothingInFlight();
            }
            finally
            {
                channel.shutdownNow();
                channel.awaitTermination(10, TimeUnit.SECONDS);
            }
            // Still serving, on another connection.
            final FakeEnvoy.Stream stream = fixture.envoy.open();
            stream.exchange(requestHeaders(true, "x-mf-decision", "quality"));
            stream.exchange(responseHeaders(true, ":status", "200"));
            assertThat(stream.finish()).isEqualTo(Status.OK);
            fixture.awaitNothingInFlight();
        }
        finally
        {
            logger.removeHandler(capture);
            logger.setUseParentHandlers(parents);
        }
        assertThat(records).allSatisfy(record -> assertThat(record.getThrown()).hasMessageContaining(
            "Stream closed before write could take place"));
    }
}
