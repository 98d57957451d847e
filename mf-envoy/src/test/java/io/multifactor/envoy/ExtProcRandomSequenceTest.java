package io.multifactor.envoy;

import io.envoyproxy.envoy.service.ext_proc.v3.HttpTrailers;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingRequest;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.grpc.Status;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static io.multifactor.envoy.FakeEnvoy.requestBody;
import static io.multifactor.envoy.FakeEnvoy.requestHeaders;
import static io.multifactor.envoy.FakeEnvoy.responseBody;
import static io.multifactor.envoy.FakeEnvoy.responseHeaders;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Seeded random message sequences, in and out of Envoy's order, each ended by a half-close or a cancel: whatever the
 * sequence, every message gets at most one answer, each answer is of the kind its message asks for (or an immediate
 * response), the stream ends, nothing stays in flight, and nothing fails inside the service.
 */
@Timeout(120)
class ExtProcRandomSequenceTest
{
    static final int SEQUENCES = 300;
    static final long SEED = 22L;

    @TempDir
    Path dir;

    private static ProcessingRequest randomMessage(final SplittableRandom random)
    {
        return switch (random.nextInt(9))
        {
            case 0 -> requestHeaders(true, "x-mf-decision", random.nextBoolean() ? "quality" : "nope");
            case 1 -> requestHeaders(false, ":method", "POST");
            case 2 -> requestBody("{\"model\":\"" + (random.nextBoolean() ? "quality" : "cheap") +
                "\",\"stream\":true,\"max_tokens\":" + random.nextInt(1, 500) + "}", random.nextBoolean());
            case 3 -> requestBody(random.nextBoolean() ? "{not json" : "[]", true);
            case 4 -> responseHeaders(random.nextBoolean(), ":status", random.nextBoolean() ? "200" : "503",
                "content-type", "text/event-stream");
            case 5 -> responseBody(ExtProcResponsePathTest.contentChunk(random.nextInt(100)), random.nextBoolean());
            case 6 -> ProcessingRequest.newBuilder().setResponseTrailers(HttpTrailers.getDefaultInstance()).build();
            case 7 -> ProcessingRequest.newBuilder().setRequestTrailers(HttpTrailers.getDefaultInstance()).build();
            default -> ProcessingRequest.getDefaultInstance();
        };
    }

    private static boolean answers(final ProcessingRequest request, final ProcessingResponse response)
    {
        if (response.hasImmediateResponse())
        {
            return true;
        }
        return switch (request.getRequestCase())
        {
            case REQUEST_HEADERS -> response.hasRequestHeaders();
            case REQUEST_BODY -> response.hasRequestBody();
            case REQUEST_TRAILERS -> response.hasRequestTrailers();
            case RESPONSE_HEADERS -> response.hasResponseHeaders();
            case RESPONSE_BODY -> response.hasResponseBody();
            case RESPONSE_TRAILERS -> response.hasResponseTrailers();
            default -> false;
        };
    }

    @Test
    void shouldAnswerEachMessageAtMostOnceInOrderAndLeakNoLeaseWhateverTheSequence() throws Exception
    {
        final SplittableRandom random = new SplittableRandom(SEED);
        int refusedStreams = 0;
        int answered = 0;
        try (EnvoyFixture fixture = new EnvoyFixture(dir, EnvoyMode.VSR))
        {
            for (int s = 0; s < SEQUENCES; s++)
            {
                final List<ProcessingRequest> sent = new ArrayList<>();
                final FakeEnvoy.Stream stream = fixture.envoy.open();
                final int length = random.nextInt(1, 8);
                // Envoy's order first, at random lengths, then anything.
                if (random.nextBoolean())
                {
                    sent.add(requestHeaders(false, ":method", "POST"));
                    sent.add(requestBody("{\"model\":\"quality\",\"stream\":true}", true));
                    sent.add(responseHeaders(false, ":status", "200", "content-type", "text/event-stream"));
                }
                for (int i = 0; i < length; i++)
                {
                    sent.add(randomMessage(random));
                }
                for (final ProcessingRequest message : sent)
                {
                    stream.send(message);
                }
                final boolean cancel = random.nextInt(4) == 0;
                if (cancel)
                {
                    stream.cancel();
                }
                else
                {
                    stream.requests.onCompleted();
                }
                final Status end = stream.awaitEnd();
                if (!end.isOk())
                {
                    refusedStreams++;
                }
                final List<ProcessingResponse> got = new ArrayList<>();
                stream.answers.drainTo(got);
                assertThat(got.size()).as("answers to %s", sent).isLessThanOrEqualTo(sent.size());
                if (!cancel)
                {
                    for (int i = 0; i < got.size(); i++)
                    {
                        assertThat(answers(sent.get(i), got.get(i)))
                            .as("answer %d %s to %s", i, got.get(i), sent.get(i).getRequestCase()).isTrue();
                    }
                }
                answered += got.size();
            }
            fixture.awaitNothingInFlight();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (fixture.app.server().service().openStreams() != 0 && System.nanoTime() < deadline)
            {
                Thread.sleep(5);
            }
            assertThat(fixture.app.server().service().openStreams()).isZero();
            assertThat(fixture.app.context().internalErrors()).isZero();
            System.out.printf("%d random sequences (seed %d): %d answers, %d streams refused or cancelled, " +
                "%d routed%n", SEQUENCES, SEED, answered, refusedStreams, fixture.app.context().routed());
        }
    }
}
