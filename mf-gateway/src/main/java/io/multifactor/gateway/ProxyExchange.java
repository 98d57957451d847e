package io.multifactor.gateway;

import io.multifactor.kernel.signal.ServerLoadTable;
import io.multifactor.serving.Backend;
import io.multifactor.serving.JsonText;
import io.multifactor.serving.OpenAiRequest;
import io.multifactor.serving.OpenAiRequestReader;
import io.multifactor.serving.RequestFlow;
import io.multifactor.serving.RequestLifecycle;
import io.multifactor.serving.RetryAfter;
import io.multifactor.serving.ServingHeaders;
import io.vertx.core.AsyncResult;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.RequestOptions;

import java.util.concurrent.TimeoutException;

/**
 * One proxied completion request, from its body to the end of its response: the Vert.x side of the shared
 * {@link RequestFlow}. It reads and checks the body, lets the flow resolve the decision and select (through its
 * {@link RequestLifecycle}), forwards the rewritten body to one backend of the chosen model, and streams the response
 * back chunk by chunk, pausing the backend while the client's write queue is full. Every exit (completion, client
 * gone, backend error, timeout) goes through the lifecycle's ending calls, whose first caller alone acts: so the lease
 * ends exactly once and only one answer is written. A connect failure, a reset before the status line, or a 5xx
 * before any byte reached the client, is retried by the flow on the decision's next choice with the failed model
 * excluded, while attempts remain.
 * <p>
 * This class is not threadsafe: every callback runs on the event loop of the client's connection.
 */
final class ProxyExchange
{
    private static final String JSON = "application/json";

    private final GatewayRoutes routes;
    private final Vertx vertx;
    private final HttpClient client;
    private final HttpServerRequest request;
    private final HttpServerResponse response;
    private final int uri;
    private final String suffix;
    private final long startNs;
    private final OpenAiRequest parsed = new OpenAiRequest();
    private final RequestFlow flow;
    private final RequestLifecycle lifecycle;
    private Buffer body;
    private byte[] bodyBytes;
    private boolean refused;
    private boolean finished;
    private boolean clientGone;
    private HttpClientRequest upstream;
    private boolean upstreamAnswered;
    private long timerId = -1;
    private long lastChunkNs;
    private final ChunkScratch scratch;
    private Backend upstreamBackend;

    ProxyExchange(final GatewayRoutes routes, final Vertx vertx, final HttpClient client, final HttpServerRequest request,
        final int uri, final String suffix, final ChunkScratch scratch)
    {
        this.scratch = scratch;
        this.routes = routes;
        this.vertx = vertx;
        this.client = client;
        this.request = request;
        this.response = request.response();
        this.uri = uri;
        this.suffix = suffix;
        this.flow = new RequestFlow(routes.engine, RequestFlow.DEFAULT_MAX_ATTEMPTS);
        this.lifecycle = flow.lifecycle();
        this.startNs = flow.nowNs();
    }

    void begin()
    {
        routes.meters.active.incrementAndGet();
        response.endHandler(v -> finished(response.getStatusCode()));
        response.closeHandler(v -> onClientGone());
        final String length = request.getHeader(HttpHeaders.CONTENT_LENGTH);
        if (length != null && tooLarge(length))
        {
            refuse(413, RequestFlow.INVALID_REQUEST, "request body is larger than 8 MiB (content-length " + length +
                ')');
            return;
        }
        body = Buffer.buffer(length == null ? 1024 : (int)Math.min(64 * 1024, parseLong(length)));
        request.handler(chunk ->
        {
            if (refused)
            {
                return;
            }
            if (body.length() + chunk.length() > OpenAiRequestReader.MAX_BODY_BYTES)
            {
                refuse(413, RequestFlow.INVALID_REQUEST, "request body is larger than 8 MiB");
                return;
            }
            body.appendBuffer(chunk);
        });
        request.endHandler(v -> onBody());
    }

    private void onBody()
    {
        if (refused || clientGone)
        {
            return;
        }
        final byte[] bytes = body.getBytes();
        final int code = routes.reader.read(bytes, bytes.length, parsed);
        if (code != OpenAiRequestReader.OK)
        {
            refuse(code == OpenAiRequestReader.TOO_LARGE ? 413 : 400, RequestFlow.INVALID_REQUEST, parsed.error());
            return;
        }
        if (!flow.resolve(request.getHeader(ServingHeaders.DECISION), parsed.model()))
        {
            refused = true;
            refuse(flow.errorStatus(), flow.errorBody());
            return;
        }
        body = null;
        bodyBytes = bytes;
        if (!flow.limits(parsed.needs(), request.getHeader(ServingHeaders.SLO_TTFT_MS),
            request.getHeader(ServingHeaders.SLO_TPOT_MS), request.getHeader(ServingHeaders.PRIORITY)))
        {
            refused = true;
            refuse(flow.errorStatus(), flow.errorBody());
            return;
        }
        // The prompt estimate prices the request only with an output bound (the lifecycle's rule); without one it is
        // still checked against context windows.
        if (flow.start(parsed.promptTokens(), parsed.maxOutputTokens()))
        {
            send();
        }
        else
        {
            answerFlowError();
        }
    }

    /** Sends the flow's current attempt to a backend of the model it chose. */
    private void send()
    {
        final int modelId = lifecycle.modelId();
        final Backend backend = routes.chooser().choose(modelId);
        if (backend == null)
        {
            lifecycle.fail(0, 0);
            routes.meters.connectErrors.increment();
            retryOrAnswer("model " + modelName(modelId) + " has no backend_refs");
            return;
        }
        final byte[] rewritten = OpenAiRequestReader.rewriteModel(
            bodyBytes, bodyBytes.length, parsed, backend.providerModelId());
        final RequestOptions options = new RequestOptions()
            .setMethod(HttpMethod.POST)
            .setHost(backend.host())
            .setPort(backend.port())
            .setSsl(backend.https())
            .setURI(backend.basePath() + suffix)
            .setConnectTimeout(routes.options.firstByteTimeoutMs());
        final RequestLifecycle current = lifecycle;
        upstreamBackend = backend;
        client.request(options).onComplete(ar -> onConnected(ar, current, backend, Buffer.buffer(rewritten)));
    }

    private void onConnected(final AsyncResult<HttpClientRequest> ar, final RequestLifecycle current,
        final Backend backend, final Buffer rewritten)
    {
        if (current.endKind() != RequestLifecycle.OPEN)
        {
            if (ar.succeeded())
            {
                ar.result().reset();
            }
            return;
        }
        if (ar.failed())
        {
            if (current.fail(0, 0))
            {
                routes.meters.connectErrors.increment();
                retryOrAnswer("could not connect to backend " + backend.name() + " of model " +
                    modelName(current.modelId()) + ": " + message(ar.cause()));
            }
            return;
        }
        final HttpClientRequest up = ar.result();
        upstream = up;
        upstreamAnswered = false;
        up.putHeader(HttpHeaders.CONTENT_TYPE, JSON);
        final String accept = request.getHeader(HttpHeaders.ACCEPT);
        if (accept != null)
        {
            up.putHeader(HttpHeaders.ACCEPT, accept);
        }
        if (backend.authorization() != null)
        {
            up.putHeader(HttpHeaders.AUTHORIZATION, backend.authorization());
        }
        else
        {
            final String authorization = request.getHeader(HttpHeaders.AUTHORIZATION);
            if (authorization != null)
            {
                up.putHeader(HttpHeaders.AUTHORIZATION, authorization);
            }
        }
        if (routes.engine.serverSignals().table().modelIndex(modelName(current.modelId())) != ServerLoadTable.NOT_FOUND)
        {
            // Its server is scraped: ask for the load report on the response too (it counts as a scrape).
            up.putHeader(ServingHeaders.LOAD_REPORT_FORMAT, ServingHeaders.LOAD_REPORT_FORMAT_TEXT);
        }
        up.exceptionHandler(err -> onUpstreamError(current, up, err));
        timerId = vertx.setTimer(routes.options.firstByteTimeoutMs(), id -> onFirstByteTimeout(current, up));
        current.onRequestSent(flow.nowNs());
        up.send(rewritten).onComplete(res ->
        {
            if (res.succeeded())
            {
                onUpstreamResponse(current, up, res.result());
            }
            else
            {
                onUpstreamError(current, up, res.cause());
            }
        });
    }

    private void onUpstreamResponse(final RequestLifecycle current, final HttpClientRequest up,
        final HttpClientResponse answer)
    {
        cancelTimer();
        if (current.endKind() != RequestLifecycle.OPEN)
        {
            answer.exceptionHandler(err -> { });
            up.reset();
            return;
        }
        upstreamAnswered = true;
        final int status = answer.statusCode();
        final long retryAfterMs = RetryAfter.delayMs(answer.getHeader(ServingHeaders.RETRY_AFTER));
        if (status >= 500 && flow.mayRetry())
        {
            if (current.fail(status, retryAfterMs))
            {
                routes.meters.statusErrors.increment();
                answer.exceptionHandler(err -> { });
                up.reset();
                retryOrAnswer("backend of model " + modelName(current.modelId()) + " answered " + status);
            }
            return;
        }
        final String contentType = answer.getHeader(HttpHeaders.CONTENT_TYPE);
        final boolean eventStream = RequestLifecycle.isEventStream(contentType);
        final String loadReport = answer.getHeader(ServingHeaders.LOAD_REPORT);
        if (loadReport == null)
        {
            current.onResponseStatus(status, eventStream);
        }
        else
        {
            current.onResponseStatus(status, eventStream, loadReport, RequestLifecycle.backendKey(upstreamBackend));
        }
        response.setStatusCode(status);
        copyHeader(answer, HttpHeaders.CONTENT_TYPE);
        copyHeader(answer, HttpHeaders.CACHE_CONTROL);
        copyHeader(answer, HttpHeaders.RETRY_AFTER);
        selectionHeaders(current);
        final String contentLength = answer.getHeader(HttpHeaders.CONTENT_LENGTH);
        if (contentLength != null && !eventStream)
        {
            response.putHeader(HttpHeaders.CONTENT_LENGTH, contentLength);
        }
        else
        {
            response.setChunked(true);
        }
        answer.handler(chunk ->
        {
            if (current.endKind() != RequestLifecycle.OPEN)
            {
                return;
            }
            final long nowNs = flow.nowNs();
            lastChunkNs = nowNs;
            if (eventStream)
            {
                final int n = chunk.length();
                final byte[] bytes = scratch.atLeast(n);
                chunk.getBytes(0, n, bytes, 0);
                current.onResponseBytes(bytes, 0, n, nowNs);
            }
            response.write(chunk);
            if (response.writeQueueFull())
            {
                // Backpressure: stop reading the backend until the client has taken what is queued.
                answer.pause();
                response.drainHandler(v -> answer.resume());
            }
        });
        answer.exceptionHandler(err -> onUpstreamError(current, up, err));
        lastChunkNs = flow.nowNs();
        armIdleTimer(current, up, routes.options.idleTimeoutMs());
        answer.endHandler(v ->
        {
            cancelTimer();
            final boolean ended = current.finish(status, retryAfterMs);
            if (ended && !response.ended())
            {
                response.end();
            }
        });
    }

    private void onUpstreamError(final RequestLifecycle current, final HttpClientRequest up, final Throwable err)
    {
        cancelTimer();
        if (!current.fail(0, 0))
        {
            return;
        }
        final boolean timeout = err instanceof TimeoutException;
        (timeout ? routes.meters.timeouts : routes.meters.resets).increment();
        up.reset();
        if (response.headWritten())
        {
            // Bytes already reached the client: the only honest end is to cut the response short.
            response.reset();
            return;
        }
        if (!upstreamAnswered && !timeout)
        {
            retryOrAnswer("backend of model " + modelName(current.modelId()) + " failed before answering: " +
                message(err));
            return;
        }
        answerError(timeout ? 504 : 502, RequestFlow.UPSTREAM_ERROR, "backend of model " + modelName(current.modelId()) +
            (timeout ? " went silent for longer than " + routes.options.idleTimeoutMs() + " ms" : " failed: " +
            message(err)));
    }

    private void onFirstByteTimeout(final RequestLifecycle current, final HttpClientRequest up)
    {
        timerId = -1;
        if (upstreamAnswered || !current.fail(0, 0))
        {
            return;
        }
        routes.meters.timeouts.increment();
        up.reset();
        answerError(504, RequestFlow.UPSTREAM_TIMEOUT, "backend of model " + modelName(current.modelId()) +
            " sent no response within " + routes.options.firstByteTimeoutMs() + " ms");
    }

    /** One timer per idle period, not per chunk: when it fires early it is armed again for the time left. */
    private void armIdleTimer(final RequestLifecycle current, final HttpClientRequest up, final long delayMs)
    {
        timerId = vertx.setTimer(Math.max(1, delayMs), id ->
        {
            timerId = -1;
            if (current.endKind() != RequestLifecycle.OPEN)
            {
                return;
            }
            final long idleMs = routes.options.idleTimeoutMs();
            final long silentMs = (flow.nowNs() - lastChunkNs) / 1_000_000L;
            if (silentMs < idleMs)
            {
                armIdleTimer(current, up, idleMs - silentMs);
                return;
            }
            onUpstreamError(current, up, new TimeoutException("no chunk for " + silentMs + " ms"));
        });
    }

    private void onClientGone()
    {
        if (clientGone)
        {
            return;
        }
        clientGone = true;
        cancelTimer();
        if (lifecycle.cancel() && upstream != null)
        {
            upstream.reset();
        }
        // After a complete response the close of a kept-alive connection changes nothing (finished guards).
        finished(0);
    }

    /** After a failed attempt: the flow's next attempt, or its answer when none remains or no candidate is left. */
    private void retryOrAnswer(final String failure)
    {
        if (clientGone)
        {
            return;
        }
        if (flow.mayRetry())
        {
            upstream = null;
            routes.meters.retries.increment();
        }
        if (flow.retry(failure))
        {
            send();
            return;
        }
        answerFlowError();
    }

    private void selectionHeaders(final RequestLifecycle current)
    {
        response.putHeader(ServingHeaders.DECISION, flow.decisionName());
        response.putHeader(ServingHeaders.SELECTED_MODEL, modelName(current.modelId()));
        if (RequestFlow.explainAsked(request.getHeader(ServingHeaders.EXPLAIN)))
        {
            final String explain = flow.explainJson();
            if (explain != null)
            {
                response.putHeader(ServingHeaders.EXPLAIN, explain);
            }
        }
    }

    private void answerError(final int status, final String type, final String message)
    {
        flow.error(status, type, message);
        answerFlowError();
    }

    /** Answers the flow's error, with the decision and (but for a 503) the model that was tried. */
    private void answerFlowError()
    {
        if (clientGone || response.ended() || response.headWritten())
        {
            return;
        }
        final int status = flow.errorStatus();
        if (flow.decisionName() != null)
        {
            response.putHeader(ServingHeaders.DECISION, flow.decisionName());
        }
        final String model = flow.selectedModelName();
        if (model != null && status != 503)
        {
            response.putHeader(ServingHeaders.SELECTED_MODEL, model);
        }
        if (flow.errorRetryAfterSeconds() > 0)
        {
            response.putHeader(ServingHeaders.RETRY_AFTER, Integer.toString(flow.errorRetryAfterSeconds()));
        }
        response.setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, JSON).end(flow.errorBody());
    }

    private void refuse(final int status, final String type, final String message)
    {
        refused = true;
        refuse(status, JsonText.error(type, message));
    }

    private void refuse(final int status, final String json)
    {
        if (!response.ended() && !clientGone)
        {
            if (status == 413)
            {
                // The rest of the body is not read: the connection cannot carry another request.
                response.putHeader(HttpHeaders.CONNECTION, "close");
            }
            response.setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, JSON).end(json);
        }
    }

    private void finished(final int status)
    {
        if (finished)
        {
            return;
        }
        finished = true;
        routes.meters.active.decrementAndGet();
        routes.meters.record(uri, status, flow.nowNs() - startNs);
    }

    private void cancelTimer()
    {
        if (timerId >= 0)
        {
            vertx.cancelTimer(timerId);
            timerId = -1;
        }
    }

    private void copyHeader(final HttpClientResponse answer, final CharSequence name)
    {
        final String value = answer.getHeader(name);
        if (value != null)
        {
            response.putHeader(name, value);
        }
    }

    private String modelName(final int modelId)
    {
        final String name = routes.engine.plans().modelName(modelId);
        return name == null ? "#" + modelId : name;
    }

    private static boolean tooLarge(final String contentLength)
    {
        return parseLong(contentLength) > OpenAiRequestReader.MAX_BODY_BYTES;
    }

    private static long parseLong(final String text)
    {
        try
        {
            return Math.max(0, Long.parseLong(text.trim()));
        }
        catch (final NumberFormatException ex)
        {
            return 0;
        }
    }

    private static String message(final Throwable err)
    {
        return err.getMessage() == null ? err.getClass().getSimpleName() : err.getMessage();
    }
}
