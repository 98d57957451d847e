package io.multifactor.envoy;

import com.google.protobuf.ByteString;
import io.envoyproxy.envoy.config.core.v3.HeaderMap;
import io.envoyproxy.envoy.config.core.v3.HeaderValue;
import io.envoyproxy.envoy.service.ext_proc.v3.ExternalProcessorGrpc;
import io.envoyproxy.envoy.service.ext_proc.v3.HttpBody;
import io.envoyproxy.envoy.service.ext_proc.v3.HttpHeaders;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingRequest;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.StreamObserver;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Plays Envoy's side of ext_proc over a real loopback socket: opens {@code Process} streams and sends the messages
 * Envoy sends, one at a time, waiting for each answer. Not threadsafe per stream; the channel is shared.
 */
final class FakeEnvoy implements AutoCloseable
{
    static final long TIMEOUT_S = 10;

    private final ManagedChannel channel;
    private final ExternalProcessorGrpc.ExternalProcessorStub stub;

    FakeEnvoy(final int port)
    {
        this(NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext()
            .maxInboundMessageSize(ExtProcServer.MAX_MESSAGE_BYTES).build());
    }

    /** Plays Envoy over a channel of the caller's (a Unix domain socket's); {@link #close()} shuts it down. */
    FakeEnvoy(final ManagedChannel channel)
    {
        this.channel = channel;
        stub = ExternalProcessorGrpc.newStub(channel);
    }

    Stream open()
    {
        final Stream stream = new Stream();
        stream.requests = stub.process(stream);
        return stream;
    }

    ManagedChannel channel()
    {
        return channel;
    }

    @Override
    public void close()
    {
        channel.shutdownNow();
        try
        {
            channel.awaitTermination(TIMEOUT_S, TimeUnit.SECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    static ProcessingRequest requestHeaders(final boolean endOfStream, final String... namesAndValues)
    {
        return ProcessingRequest.newBuilder().setRequestHeaders(headers(endOfStream, namesAndValues)).build();
    }

    static ProcessingRequest responseHeaders(final boolean endOfStream, final String... namesAndValues)
    {
        return ProcessingRequest.newBuilder().setResponseHeaders(headers(endOfStream, namesAndValues)).build();
    }

    static HttpHeaders headers(final boolean endOfStream, final String... namesAndValues)
    {
        final HeaderMap.Builder map = HeaderMap.newBuilder();
        for (int i = 0; i < namesAndValues.length; i += 2)
        {
            map.addHeaders(HeaderValue.newBuilder().setKey(namesAndValues[i])
                .setRawValue(ByteString.copyFromUtf8(namesAndValues[i + 1])));
        }
        return HttpHeaders.newBuilder().setHeaders(map).setEndOfStream(endOfStream).build();
    }

    static ProcessingRequest requestBody(final String body, final boolean endOfStream)
    {
        return ProcessingRequest.newBuilder().setRequestBody(HttpBody.newBuilder()
            .setBody(ByteString.copyFromUtf8(body)).setEndOfStream(endOfStream)).build();
    }

    static ProcessingRequest responseBody(final String body, final boolean endOfStream)
    {
        return ProcessingRequest.newBuilder().setResponseBody(HttpBody.newBuilder()
            .setBody(ByteString.copyFromUtf8(body)).setEndOfStream(endOfStream)).build();
    }

    /** One {@code Process} stream: what Envoy sends, and the answers and the end it gets back. */
    static final class Stream implements ClientResponseObserver<ProcessingRequest, ProcessingResponse>
    {
        final BlockingQueue<ProcessingResponse> answers = new LinkedBlockingQueue<>();
        final CompletableFuture<Status> end = new CompletableFuture<>();
        private ClientCallStreamObserver<ProcessingRequest> call;
        StreamObserver<ProcessingRequest> requests;

        @Override
        public void beforeStart(final ClientCallStreamObserver<ProcessingRequest> requestStream)
        {
            call = requestStream;
        }

        @Override
        public void onNext(final ProcessingResponse value)
        {
            answers.add(value);
        }

        @Override
        public void onError(final Throwable t)
        {
            end.complete(Status.fromThrowable(t));
        }

        @Override
        public void onCompleted()
        {
            end.complete(Status.OK);
        }

        /** Sends one message and waits for its answer. */
        ProcessingResponse exchange(final ProcessingRequest request) throws InterruptedException
        {
            requests.onNext(request);
            final ProcessingResponse answer = answers.poll(TIMEOUT_S, TimeUnit.SECONDS);
            if (answer == null)
            {
                throw new AssertionError("no answer within " + TIMEOUT_S + " s to " + request.getRequestCase() +
                    (end.isDone() ? " (stream ended: " + end.getNow(null) + ")" : ""));
            }
            return answer;
        }

        void send(final ProcessingRequest request)
        {
            requests.onNext(request);
        }

        /** Half-closes, as Envoy does once the request and its response are done, and waits for the server's end. */
        Status finish() throws Exception
        {
            requests.onCompleted();
            return awaitEnd();
        }

        Status awaitEnd() throws Exception
        {
            return end.get(TIMEOUT_S, TimeUnit.SECONDS);
        }

        void cancel()
        {
            call.cancel("downstream reset", null);
        }
    }

    static String utf8(final ByteString bytes)
    {
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
