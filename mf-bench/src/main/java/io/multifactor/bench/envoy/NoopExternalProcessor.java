package io.multifactor.bench.envoy;

import io.envoyproxy.envoy.service.ext_proc.v3.BodyResponse;
import io.envoyproxy.envoy.service.ext_proc.v3.ExternalProcessorGrpc;
import io.envoyproxy.envoy.service.ext_proc.v3.HeadersResponse;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingRequest;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.envoyproxy.envoy.service.ext_proc.v3.TrailersResponse;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;

/**
 * The transport floor of the exchange harness: an {@code ExternalProcessor} that answers each message with the
 * smallest valid answer of its phase (continue, no mutation), prebuilt, and does nothing else (no engine, no state).
 * Served by {@link io.multifactor.envoy.ExtProcServer#startProcessor} with the service's own transport settings, what
 * it costs is what grpc-java, HTTP/2 and the socket cost for the exchange; the service's figure minus this one is
 * what its own logic adds.
 * <p>
 * This class is threadsafe: it holds nothing but immutable answers.
 */
final class NoopExternalProcessor extends ExternalProcessorGrpc.ExternalProcessorImplBase
{
    private static final ProcessingResponse REQUEST_HEADERS = ProcessingResponse.newBuilder()
        .setRequestHeaders(HeadersResponse.getDefaultInstance()).build();
    private static final ProcessingResponse REQUEST_BODY = ProcessingResponse.newBuilder()
        .setRequestBody(BodyResponse.getDefaultInstance()).build();
    private static final ProcessingResponse REQUEST_TRAILERS = ProcessingResponse.newBuilder()
        .setRequestTrailers(TrailersResponse.getDefaultInstance()).build();
    private static final ProcessingResponse RESPONSE_HEADERS = ProcessingResponse.newBuilder()
        .setResponseHeaders(HeadersResponse.getDefaultInstance()).build();
    private static final ProcessingResponse RESPONSE_BODY = ProcessingResponse.newBuilder()
        .setResponseBody(BodyResponse.getDefaultInstance()).build();
    private static final ProcessingResponse RESPONSE_TRAILERS = ProcessingResponse.newBuilder()
        .setResponseTrailers(TrailersResponse.getDefaultInstance()).build();

    @Override
    public StreamObserver<ProcessingRequest> process(final StreamObserver<ProcessingResponse> responses)
    {
        return new StreamObserver<>()
        {
            @Override
            public void onNext(final ProcessingRequest request)
            {
                switch (request.getRequestCase())
                {
                    case REQUEST_HEADERS -> responses.onNext(REQUEST_HEADERS);
                    case REQUEST_BODY -> responses.onNext(REQUEST_BODY);
                    case REQUEST_TRAILERS -> responses.onNext(REQUEST_TRAILERS);
                    case RESPONSE_HEADERS -> responses.onNext(RESPONSE_HEADERS);
                    case RESPONSE_BODY -> responses.onNext(RESPONSE_BODY);
                    case RESPONSE_TRAILERS -> responses.onNext(RESPONSE_TRAILERS);
                    default -> responses.onError(Status.INVALID_ARGUMENT.withDescription("no request field set")
                        .asRuntimeException());
                }
            }

            @Override
            public void onError(final Throwable t)
            {
                // Envoy reset the stream: nothing to clean up.
            }

            @Override
            public void onCompleted()
            {
                responses.onCompleted();
            }
        };
    }
}
