package io.multifactor.envoy;

import com.google.protobuf.ByteString;
import io.envoyproxy.envoy.service.ext_proc.v3.HeaderMutation;
import io.envoyproxy.envoy.service.ext_proc.v3.HttpBody;
import io.envoyproxy.envoy.service.ext_proc.v3.HttpHeaders;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingRequest;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.multifactor.api.Handles;
import io.multifactor.api.Request;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.serving.Backend;
import io.multifactor.serving.OpenAiRequest;
import io.multifactor.serving.OpenAiRequestReader;
import io.multifactor.serving.RequestFlow;
import io.multifactor.serving.RequestLifecycle;
import io.multifactor.serving.RetryAfter;
import io.multifactor.serving.ServingError;
import io.multifactor.serving.ServingHeaders;
import io.multifactor.serving.SessionKeys;

import java.util.Arrays;
import java.util.Set;

/**
 * One {@code Process} stream, which Envoy opens for one HTTP request, as a state machine over Envoy's message order:
 * <pre>
 *   request_headers --(end_of_stream)--------------------&gt; route
 *   request_headers -&gt; request_body* --(end_of_stream)---&gt; route
 *   route -&gt; response_headers --(end_of_stream)----------&gt; lease ended
 *   route -&gt; response_headers -&gt; response_body* --(end_of_stream, or response_trailers)--&gt; lease ended
 * </pre>
 * Every message is answered once, in order. The route resolves and selects through the shared {@link RequestFlow} (one
 * attempt: Envoy forwards and retries) and answers with a header mutation and {@code clear_route_cache}; a request that
 * cannot be routed gets an {@code immediate_response} with the flow's status and error body (400 or 413 for the body
 * or the decision, 503 when the decision chose nothing). A message
 * out of that order closes the stream with a gRPC error ({@code INVALID_ARGUMENT}, or {@code FAILED_PRECONDITION} for a
 * second request on one stream, which Envoy never sends). The lease ends exactly once: at the response's end, or when
 * the stream is cancelled, reset, half-closed early or refused.
 * <p>
 * This class is not threadsafe: grpc-java delivers a call's messages, half-close and cancellation one at a time;
 * {@link #shutdown()} runs only once the server has terminated.
 */
final class ExtProcStream implements StreamObserver<ProcessingRequest>
{
    /** The longest {@code x-mf-decision} value read; a longer one is refused with 400. */
    static final int MAX_DECISION_HEADER_BYTES = 256;
    private static final int REQUEST_HEADERS = 0;
    private static final int REQUEST_BODY = 1;
    private static final int RESPONSE_HEADERS = 2;
    private static final int RESPONSE_BODY = 3;
    private static final int DONE = 4;
    private static final int CLOSED = 5;

    private static final int FIRST_CHUNK_CAPACITY = 4096;

    private final ExtProcContext context;
    private final ServerCallStreamObserver<ProcessingResponse> out;
    private final Set<ExtProcStream> open;
    private final RequestFlow flow;
    private final RequestLifecycle lifecycle;
    private final OpenAiRequest parsed;
    private StreamScratch scratch;

    private int state = REQUEST_HEADERS;
    private boolean observing;
    private String decisionHeader;
    private String sloTtftHeader;
    private String sloTpotHeader;
    private String priorityHeader;
    private boolean explain;
    private byte[] body;
    private int bodyLength;
    private byte[] chunk;
    private int modelId = Handles.NONE;
    private String modelName;
    private String routedBackendKey;
    private int status;
    private boolean answeredLocally;
    private long retryAfterMs;
    /** A message was handled and the next one is not requested yet: the answers wait for the transport. */
    private boolean readPending;

    ExtProcStream(final ExtProcContext context, final ServerCallStreamObserver<ProcessingResponse> out,
        final Set<ExtProcStream> open)
    {
        this.context = context;
        this.out = out;
        this.open = open;
        this.scratch = context.acquireScratch();
        this.flow = scratch.flow;
        this.lifecycle = flow.lifecycle();
        // The scratch's previous request has ended (its lease too): the flow starts afresh.
        flow.reset();
        this.parsed = scratch.parsed;
        this.body = scratch.body;
        this.chunk = scratch.chunk;
        context.streams.increment();
    }

    @Override
    public void onNext(final ProcessingRequest request)
    {
        if (state == CLOSED)
        {
            return;
        }
        try
        {
            observing = request.getObservabilityMode();
            switch (request.getRequestCase())
            {
                case REQUEST_HEADERS -> onRequestHeaders(request.getRequestHeaders());
                case REQUEST_BODY -> onRequestBody(request.getRequestBody());
                case REQUEST_TRAILERS -> onRequestTrailers();
                case RESPONSE_HEADERS -> onResponseHeaders(request.getResponseHeaders());
                case RESPONSE_BODY -> onResponseBody(request.getResponseBody());
                case RESPONSE_TRAILERS -> onResponseTrailers();
                default -> refuse(Status.INVALID_ARGUMENT, "a ProcessingRequest with none of its request fields set");
            }
        }
        catch (final RuntimeException ex)
        {
            context.internalErrors.increment();
            refuse(Status.INTERNAL, "the processor failed on this message: " + ex);
        }
        requestNext();
    }

    /** Reads the next message when the answers sent so far have gone to the transport; else on {@link #onReady()}. */
    private void requestNext()
    {
        if (state == CLOSED)
        {
            return;
        }
        if (out.isReady())
        {
            readPending = false;
            out.request(1);
        }
        else
        {
            readPending = true;
        }
    }

    /** The transport took the queued answers: read the next message if one is waiting for that. */
    void onReady()
    {
        if (readPending && state != CLOSED)
        {
            readPending = false;
            out.request(1);
        }
    }

    /** Envoy reset the stream: the request is gone. */
    @Override
    public void onError(final Throwable t)
    {
        cancelled();
    }

    /** Envoy half-closed the stream: nothing more comes for this request. */
    @Override
    public void onCompleted()
    {
        if (state == CLOSED)
        {
            return;
        }
        endAsCancelled();
        close();
        out.onCompleted();
    }

    /** The gRPC stream was cancelled (Envoy went away, a deadline passed, the server shut down). */
    void cancelled()
    {
        if (state == CLOSED)
        {
            return;
        }
        endAsCancelled();
        close();
    }

    /** Ends the lease of a stream the server left open at shutdown; only once the server has terminated. */
    void shutdown()
    {
        endAsCancelled();
        state = CLOSED;
    }

    private void onRequestHeaders(final HttpHeaders headers)
    {
        if (state != REQUEST_HEADERS)
        {
            refuse(state >= RESPONSE_HEADERS ? Status.FAILED_PRECONDITION : Status.INVALID_ARGUMENT,
                state >= RESPONSE_HEADERS ?
                "a second request_headers on one stream: Envoy opens one Process stream per HTTP request" :
                "request_headers twice for one request");
            return;
        }
        decisionHeader = ExtProcHeaders.value(headers.getHeaders(), ServingHeaders.DECISION, MAX_DECISION_HEADER_BYTES);
        if (decisionHeader == ExtProcHeaders.TOO_LONG)
        {
            badRequest(ServingError.INVALID_REQUEST, "header " + ServingHeaders.DECISION + " is longer than " + MAX_DECISION_HEADER_BYTES +
                " bytes");
            return;
        }
        explain = RequestFlow.explainAsked(ExtProcHeaders.value(headers.getHeaders(), ServingHeaders.EXPLAIN, 8));
        final String session = SessionKeys.header(
            ExtProcHeaders.value(headers.getHeaders(), ServingHeaders.SESSION_ID, SessionKeys.MAX_HEADER_BYTES),
            ExtProcHeaders.value(headers.getHeaders(), ServingHeaders.SESSION_TOKEN, SessionKeys.MAX_HEADER_BYTES));
        if (session == ExtProcHeaders.TOO_LONG)
        {
            badRequest(ServingError.INVALID_REQUEST, "header " + ServingHeaders.SESSION_ID + " (or " +
                ServingHeaders.SESSION_TOKEN + ") is longer than " + SessionKeys.MAX_HEADER_BYTES + " bytes");
            return;
        }
        if (session != null)
        {
            flow.session(SessionKeys.key(session));
        }
        sloTtftHeader = ExtProcHeaders.value(headers.getHeaders(), ServingHeaders.SLO_TTFT_MS, 32);
        sloTpotHeader = ExtProcHeaders.value(headers.getHeaders(), ServingHeaders.SLO_TPOT_MS, 32);
        priorityHeader = ExtProcHeaders.value(headers.getHeaders(), ServingHeaders.PRIORITY, 32);
        if (headers.getEndOfStream())
        {
            route(false);
            return;
        }
        state = REQUEST_BODY;
        send(ExtProcResponses.CONTINUE_REQUEST_HEADERS);
    }

    private void onRequestBody(final HttpBody message)
    {
        if (state != REQUEST_BODY)
        {
            refuse(Status.INVALID_ARGUMENT, state == REQUEST_HEADERS ? "request_body before request_headers" :
                answeredLocally ? "request_body after an immediate_response" : "request_body after the request's end");
            return;
        }
        final ByteString bytes = message.getBody();
        final int size = bytes.size();
        if (size > OpenAiRequestReader.MAX_BODY_BYTES - bodyLength)
        {
            badRequest(ServingError.REQUEST_TOO_LARGE, "request body is larger than 8 MiB");
            return;
        }
        if (bodyLength + size > body.length)
        {
            body = Arrays.copyOf(body, Math.max(bodyLength + size, Math.min(OpenAiRequestReader.MAX_BODY_BYTES,
                body.length * 2)));
        }
        bytes.copyTo(body, bodyLength);
        bodyLength += size;
        if (!message.getEndOfStream())
        {
            send(ExtProcResponses.CONTINUE_REQUEST_BODY);
            return;
        }
        route(true);
    }

    private void onRequestTrailers()
    {
        if (state == REQUEST_BODY)
        {
            badRequest(ServingError.INVALID_REQUEST, "request trailers are not supported: the request is routed on its buffered body " +
                "(request_trailer_mode: SKIP)");
            return;
        }
        refuse(Status.INVALID_ARGUMENT, "request_trailers out of order");
    }

    /**
     * Selects for the request and answers the message that completed it: {@code request_headers} when it had no body,
     * else its last {@code request_body}.
     */
    private void route(final boolean hasBody)
    {
        final Plans plans = context.engine().plans();
        String bodyModel = null;
        if (hasBody)
        {
            final int read = context.reader().read(body, bodyLength,
                parsed.capturePrompt(context.mode() == EnvoyMode.ENDPOINT && context.routing().followsPrefixes()));
            if (read != OpenAiRequestReader.OK)
            {
                badRequest(read == OpenAiRequestReader.TOO_LARGE ? ServingError.REQUEST_TOO_LARGE : ServingError.INVALID_JSON,
                    parsed.error());
                return;
            }
            bodyModel = parsed.model();
        }
        if (!flow.resolve(decisionHeader, bodyModel))
        {
            badRequest(flow.error(), flow.errorMessage());
            return;
        }
        // A header too long to be a valid value (ExtProcHeaders.TOO_LONG) is refused as the value it stands for.
        if (!flow.limits(hasBody ? parsed.needs() : 0, sloTtftHeader, sloTpotHeader, priorityHeader))
        {
            answerFlowError("mf_bad_request");
            return;
        }
        final long maxOutputTokens = hasBody ? parsed.maxOutputTokens() : Request.NO_TOKENS;
        final long promptTokens = hasBody ? parsed.promptTokens() : Request.NO_TOKENS;
        if (hasBody && context.mode() == EnvoyMode.ENDPOINT && context.routing().followsPrefixes())
        {
            flow.prefix(context.routing().chooser(), parsed.prompt());
        }
        if (!flow.start(promptTokens, maxOutputTokens))
        {
            if (flow.errorStatus() == 503)
            {
                unavailable(flow.errorBody(), "mf_outcome_failed", true);
            }
            else if (flow.error() == ServingError.OVERLOADED || flow.error() == ServingError.NO_ELIGIBLE_MODEL)
            {
                answerFlowError(flow.errorStatus() == 429 ? "mf_outcome_shed" : "mf_outcome_ineligible");
            }
            else
            {
                badRequest(flow.error(), flow.errorMessage());
            }
            return;
        }
        modelId = lifecycle.modelId();
        modelName = plans.modelName(modelId);
        final RoutingTable routing = context.routing();
        final HeaderMutation.Builder mutation = HeaderMutation.newBuilder();
        String endpoint = null;
        if (context.mode() == EnvoyMode.VSR)
        {
            // The same for every request routed to this model: built once per plans snapshot.
            mutation.addSetHeaders(context.responseHeaderAnswers(plans).selectedModelHeader(modelId, modelName));
        }
        else
        {
            final Backend backend = routing.backend(modelId, parsed, lifecycle.prefixTicket());
            if (backend == null)
            {
                endAsCancelled();
                unavailable(ServingError.UPSTREAM_UNAVAILABLE.body("model " + modelName + " of decision " + flow.decisionName() +
                    " has no backend_refs"), "mf_no_backend", false);
                return;
            }
            endpoint = backend.host() + ':' + backend.port();
            routedBackendKey = RequestLifecycle.backendKey(backend);
            mutation.addSetHeaders(ExtProcResponses.set(ServingHeaders.DESTINATION_ENDPOINT, endpoint));
            if (backend.authorization() != null)
            {
                mutation.addSetHeaders(ExtProcResponses.set("authorization", backend.authorization()));
            }
        }
        byte[] rewritten = null;
        if (hasBody)
        {
            final String providerModelId = routing.providerModelId(modelId, modelName);
            if (!providerModelId.equals(parsed.model()))
            {
                rewritten = OpenAiRequestReader.rewriteModel(body, bodyLength, parsed, providerModelId);
            }
        }
        state = RESPONSE_HEADERS;
        context.routed.increment();
        // Envoy forwards the request as soon as it has this answer: TTFT counts from here.
        lifecycle.onRequestSent(flow.nowNs());
        send(ExtProcResponses.route(hasBody, mutation, rewritten, endpoint));
    }

    private void onResponseHeaders(final HttpHeaders headers)
    {
        if (state != RESPONSE_HEADERS)
        {
            refuse(Status.INVALID_ARGUMENT, answeredLocally ? "response_headers after an immediate_response" :
                state < RESPONSE_HEADERS ? "response_headers before the request was routed" :
                "response_headers twice for one request");
            return;
        }
        status = ExtProcHeaders.status(headers.getHeaders());
        // Only an error status ends the lease with its Retry-After (read by the engine for a 429 or 503).
        retryAfterMs = status >= 400 ?
            RetryAfter.delayMs(ExtProcHeaders.value(headers.getHeaders(), ServingHeaders.RETRY_AFTER, 16)) : 0;
        final boolean eventStream =
            RequestLifecycle.isEventStream(ExtProcHeaders.value(headers.getHeaders(), "content-type", 256));
        // In endpoint mode the backend is known: its ORCA load report, when the response has one, counts as a scrape.
        final String loadReport = routedBackendKey == null ? null :
            ExtProcHeaders.value(headers.getHeaders(), ServingHeaders.LOAD_REPORT, 1024);
        if (loadReport == null)
        {
            lifecycle.onResponseStatus(status, eventStream);
        }
        else
        {
            lifecycle.onResponseStatus(status, eventStream, loadReport, routedBackendKey);
        }
        final Plans plans = context.engine().plans();
        final ProcessingResponse answer;
        if (explain)
        {
            answer = ExtProcResponses.responseHeaders(HeaderMutation.newBuilder()
                .addSetHeaders(ExtProcResponses.set(ServingHeaders.DECISION, plans.decision(flow.decisionId()) == null ?
                    "" : plans.decision(flow.decisionId()).name()))
                .addSetHeaders(ExtProcResponses.set(ServingHeaders.SELECTED_MODEL, modelName))
                .addSetHeaders(ExtProcResponses.set(ServingHeaders.EXPLAIN, flow.explainJson())));
        }
        else
        {
            // The same for every request of this decision and model: built once per plans snapshot.
            answer = context.responseHeaderAnswers(plans).answer(flow.decisionId(), modelId, modelName);
        }
        if (headers.getEndOfStream())
        {
            endResponse();
        }
        else
        {
            state = RESPONSE_BODY;
        }
        send(answer);
    }

    private void onResponseBody(final HttpBody message)
    {
        if (state != RESPONSE_BODY)
        {
            refuse(Status.INVALID_ARGUMENT, answeredLocally ? "response_body after an immediate_response" :
                state < RESPONSE_HEADERS ? "response_body before the request was routed" :
                state == RESPONSE_HEADERS ? "response_body before response_headers" :
                "response_body after the response's end");
            return;
        }
        final long nowNs = flow.nowNs();
        final ByteString bytes = message.getBody();
        final int size = bytes.size();
        if (size > chunk.length)
        {
            chunk = new byte[Math.max(size, Math.max(FIRST_CHUNK_CAPACITY, chunk.length * 2))];
        }
        bytes.copyTo(chunk, 0);
        lifecycle.onResponseBytes(chunk, 0, size, nowNs);
        if (message.getEndOfStream())
        {
            endResponse();
        }
        send(ExtProcResponses.CONTINUE_RESPONSE_BODY);
    }

    private void onResponseTrailers()
    {
        if (state != RESPONSE_BODY && state != RESPONSE_HEADERS)
        {
            refuse(Status.INVALID_ARGUMENT, "response_trailers out of order");
            return;
        }
        endResponse();
        send(ExtProcResponses.CONTINUE_RESPONSE_TRAILERS);
    }

    /** The response reached its end: the lease ends with its status (an error status as a failure). */
    private void endResponse()
    {
        state = DONE;
        final boolean ended = lifecycle.finish(status, retryAfterMs);
        if (ended)
        {
            context.completed.increment();
        }
        open.remove(this);
    }

    private void endAsCancelled()
    {
        if (lifecycle.cancel())
        {
            context.cancelled.increment();
        }
        open.remove(this);
    }

    private void badRequest(final ServingError error, final String message)
    {
        context.badRequests.increment();
        state = DONE;
        answeredLocally = true;
        send(ExtProcResponses.immediate(error.status(), error.body(message),
            error.status() == 413 ? "mf_body_too_large" : "mf_bad_request"));
    }

    // The flow's error as the immediate response, its body and Retry-After as the gateway answers them (a 429 shed
    // request counts as shed, a 400 with the bad requests).
    private void answerFlowError(final String details)
    {
        if (flow.errorStatus() == 429)
        {
            context.shed.increment();
        }
        else
        {
            context.badRequests.increment();
        }
        state = DONE;
        answeredLocally = true;
        ProcessingResponse response = ExtProcResponses.immediate(flow.errorStatus(), flow.errorBody(), details);
        if (flow.errorRetryAfterMs() > 0)
        {
            response = response.toBuilder().setImmediateResponse(response.getImmediateResponse().toBuilder()
                .setHeaders(response.getImmediateResponse().getHeaders().toBuilder().addSetHeaders(
                    ExtProcResponses.set(ServingHeaders.RETRY_AFTER, Long.toString((flow.errorRetryAfterMs() + 999) / 1000)))))
                .build();
        }
        send(response);
    }

    private void unavailable(final String json, final String details, final boolean withExplain)
    {
        context.unavailable.increment();
        state = DONE;
        answeredLocally = true;
        ProcessingResponse response = ExtProcResponses.immediate(503, json, details);
        if (explain && withExplain)
        {
            response = response.toBuilder().setImmediateResponse(response.getImmediateResponse().toBuilder()
                .setHeaders(response.getImmediateResponse().getHeaders().toBuilder().addSetHeaders(
                    ExtProcResponses.set(ServingHeaders.EXPLAIN, flow.explainJson()))))
                .build();
        }
        send(response);
    }

    /** Closes the stream with a gRPC error; the lease, if one is open, ends as a cancellation. */
    private void refuse(final Status code, final String message)
    {
        endAsCancelled();
        context.protocolErrors.increment();
        close();
        try
        {
            out.onError(code.withDescription(message).asRuntimeException());
        }
        catch (final RuntimeException ex)
        {
            // The call was already closed (an answer failed on a closed call): nothing left to tell Envoy.
            context.internalErrors.increment();
        }
    }

    /** The stream is over (its lease ended before): no callback touches it any more, its scratch goes back. */
    private void close()
    {
        state = CLOSED;
        open.remove(this);
        final StreamScratch released = scratch;
        if (released != null)
        {
            scratch = null;
            released.body = body;
            released.chunk = chunk;
            context.releaseScratch(released);
        }
    }

    private void send(final ProcessingResponse response)
    {
        // In observability mode Envoy ignores answers and expects none.
        if (!observing && !out.isCancelled())
        {
            out.onNext(response);
        }
    }
}
