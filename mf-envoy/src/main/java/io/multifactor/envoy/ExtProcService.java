package io.multifactor.envoy;

import io.envoyproxy.envoy.service.ext_proc.v3.ExternalProcessorGrpc;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingRequest;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code envoy.service.ext_proc.v3.ExternalProcessor}: each {@code Process} stream (Envoy opens one per HTTP request)
 * gets its own {@link ExtProcStream}, which selects on the request path and follows the response to its end. Each
 * stream is read one message at a time, the next one only when its answers are not queued beyond the transport's
 * ready threshold, so what one stream holds in memory stays bounded whatever its peer does.
 * <p>
 * This class is threadsafe: streams share only the {@link ExtProcContext} and the set of open streams.
 */
public final class ExtProcService extends ExternalProcessorGrpc.ExternalProcessorImplBase
{
    private final ExtProcContext context;
    private final Set<ExtProcStream> open = ConcurrentHashMap.newKeySet();

    /**
     * @param context what every stream shares: the engine, the mode, the counters.
     */
    public ExtProcService(final ExtProcContext context)
    {
        this.context = context;
    }

    @Override
    public StreamObserver<ProcessingRequest> process(final StreamObserver<ProcessingResponse> responses)
    {
        final ServerCallStreamObserver<ProcessingResponse> out =
            (ServerCallStreamObserver<ProcessingResponse>)responses;
        // Manual flow control: the next message is read only once the answers sent so far have left (a client that
        // never reads its answers stops being read, instead of having them pile up in memory).
        out.disableAutoRequest();
        final ExtProcStream stream = new ExtProcStream(context, out, open);
        open.add(stream);
        out.setOnCancelHandler(stream::cancelled);
        out.setOnReadyHandler(stream::onReady);
        out.request(1);
        return stream;
    }

    /** @return the context every stream shares. */
    public ExtProcContext context()
    {
        return context;
    }

    /** @return how many streams are open now (begun, not yet completed, failed or cancelled). */
    public int openStreams()
    {
        return open.size();
    }

    /**
     * Ends the lease of every stream still open, as a cancellation. For shutdown, once the server has terminated (no
     * callback of those streams runs any more).
     */
    void endOpenStreams()
    {
        for (final ExtProcStream stream : open)
        {
            stream.shutdown();
        }
        open.clear();
    }
}
