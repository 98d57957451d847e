package io.multifactor.gateway;

import io.multifactor.api.Outcome;
import io.multifactor.kernel.signal.ServerLoadTable;
import io.multifactor.serving.Backend;
import io.multifactor.serving.OpenAiRequest;
import io.multifactor.serving.OpenAiRequestReader;
import io.multifactor.serving.RequestFlow;
import io.multifactor.serving.RequestLifecycle;
import io.multifactor.serving.RetryAfter;
import io.multifactor.serving.ServingError;
import io.multifactor.serving.ServingHeaders;
import io.multifactor.serving.SessionKeys;
import io.vertx.core.AsyncResult;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpClosedException;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.RequestOptions;

import java.nio.channels.ClosedChannelException;
import java.util.concurrent.TimeoutException;

/**
 * One proxied request (chat or text completion, Responses, embeddings), from its body to the end of its response: the
 * Vert.x side of the shared {@link RequestFlow}. It reads and checks the body, lets the flow resolve the decision (or
 * the model named directly) and select (through its {@link RequestLifecycle}), forwards the rewritten body to one
 * backend of the chosen model, and streams the response back chunk by chunk, pausing the backend while the client's
 * write queue is full. Every exit (completion, client gone, backend error, timeout) goes through the lifecycle's ending
 * calls, whose first caller alone acts: so each attempt's lease ends exactly once and only one answer is written.
 * <p>
 * Fallback with a budget: a connect failure, a reset before the status line, a 5xx or a 429 before any byte reached
 * the client moves the request to the decision's next choice (the models tried excluded; a model named directly: to
 * another of its backends) while attempts remain and the request's deadline holds (streamed: the first-byte timeout;
 * non-streamed: the request timeout, both from the request's arrival). When none remains, the client gets the last
 * attempt's answer as the backend sent it (a 429 with its {@code Retry-After}), or 502 {@code upstream_unavailable}
 * when the last attempt got none. After the first byte nothing is retried: a stream cut mid-way ends with an SSE
 * event {@code data: {"error": ...}} and no {@code [DONE]}. Responses carry {@code x-mf-attempts}.
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
    private long deadlineTimerId = -1;
    private long lastChunkNs;
    private final ChunkScratch scratch;
    private Backend upstreamBackend;
    /** Whether this attempt already asked for a fresh connection after the pool handed it one that had closed. */
    private boolean freshConnectionAsked;
    /** The client key's index in the running {@link ApiKeys}, {@link ApiKeys#NO_KEY} without keys. */
    private int key = ApiKeys.NO_KEY;
    private String requestId;
    private long startMs;
    private boolean streamedAnswer;

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
        this.flow = new RequestFlow(routes.engine, routes.options.maxAttempts());
        this.lifecycle = flow.lifecycle();
        this.startNs = flow.nowNs();
    }

    /** @param clientKey the index of the key the request carries, {@link ApiKeys#NO_KEY} without keys. */
    void begin(final int clientKey)
    {
        key = clientKey;
        startMs = System.currentTimeMillis();
        requestId = AccessLog.requestId(request.getHeader(ServingHeaders.REQUEST_ID));
        response.putHeader(ServingHeaders.REQUEST_ID, requestId);
        routes.meters.active.incrementAndGet();
        // Vert.x also calls the end handler when the connection closes before the response ended: that is an abort.
        response.endHandler(v -> finished(response.ended() ? response.getStatusCode() : 0));
        response.closeHandler(v -> onClientGone());
        final String length = request.getHeader(HttpHeaders.CONTENT_LENGTH);
        if (length != null && tooLarge(length))
        {
            refuse(ServingError.REQUEST_TOO_LARGE, "request body is larger than 8 MiB (content-length " + length + ')');
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
                refuse(ServingError.REQUEST_TOO_LARGE, "request body is larger than 8 MiB");
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
        final int code = routes.reader.read(bytes, bytes.length, parsed.capturePrompt(routes.chooser().followsPrefixes()));
        if (code != OpenAiRequestReader.OK)
        {
            refuse(code == OpenAiRequestReader.TOO_LARGE ? ServingError.REQUEST_TOO_LARGE : ServingError.INVALID_JSON,
                parsed.error());
            return;
        }
        if (!flow.resolve(request.getHeader(ServingHeaders.DECISION), parsed.model()))
        {
            refuse(flow.error(), flow.errorMessage());
            return;
        }
        final ApiKeys keys = routes.operating.apiKeysOrNull();
        if (keys != null && !keys.allows(key, flow.decisionName()))
        {
            refused = true;
            routes.meters.forbidden.increment();
            refuse(ServingError.DECISION_NOT_ALLOWED, "this API key may not use decision " + flow.decisionName());
            return;
        }
        flow.deadlineNs(startNs + 1_000_000L * deadlineMs());
        body = null;
        bodyBytes = bytes;
        if (!flow.limits(parsed.needs(), request.getHeader(ServingHeaders.SLO_TTFT_MS),
            request.getHeader(ServingHeaders.SLO_TPOT_MS), request.getHeader(ServingHeaders.PRIORITY)))
        {
            refuse(flow.error(), flow.errorMessage());
            return;
        }
        final String session = SessionKeys.header(
            request.getHeader(ServingHeaders.SESSION_ID), request.getHeader(ServingHeaders.SESSION_TOKEN));
        if (session != null)
        {
            flow.session(SessionKeys.key(session));
        }
        if (routes.chooser().followsPrefixes())
        {
            flow.prefix(routes.chooser(), parsed.prompt());
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
        final Backend backend = flow.direct() && upstreamBackend != null ?
            otherBackend(modelId, upstreamBackend) :
            routes.chooser().choose(modelId, parsed.prompt(), parsed.promptTokens(), lifecycle.prefixTicket());
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
            .setConnectTimeout(Math.max(1, msLeft()));
        final RequestLifecycle current = lifecycle;
        upstreamBackend = backend;
        freshConnectionAsked = false;
        connect(options, current, backend, Buffer.buffer(rewritten));
    }

    private void connect(final RequestOptions options, final RequestLifecycle current, final Backend backend,
        final Buffer rewritten)
    {
        client.request(options).onComplete(ar -> onConnected(ar, options, current, backend, rewritten));
    }

    private void onConnected(final AsyncResult<HttpClientRequest> ar, final RequestOptions options,
        final RequestLifecycle current, final Backend backend, final Buffer rewritten)
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
            if (!freshConnectionAsked && closedBeforeUse(ar.cause()))
            {
                // A kept-alive connection closed (by the backend or a hang-up's reset) as the pool handed it out:
                // nothing was sent, so the same backend is asked once more, on a connection of its own.
                freshConnectionAsked = true;
                connect(options, current, backend, rewritten);
                return;
            }
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
        // The client's own Authorization (its key to this gateway) never goes upstream: the backend's key or none.
        if (backend.authorization() != null)
        {
            up.putHeader(HttpHeaders.AUTHORIZATION, backend.authorization());
        }
        up.putHeader(ServingHeaders.REQUEST_ID, requestId);
        if (routes.engine.serverSignals().table().modelIndex(modelName(current.modelId())) != ServerLoadTable.NOT_FOUND)
        {
            // Its server is scraped: ask for the load report on the response too (it counts as a scrape).
            up.putHeader(ServingHeaders.LOAD_REPORT_FORMAT, ServingHeaders.LOAD_REPORT_FORMAT_TEXT);
        }
        up.exceptionHandler(err -> onUpstreamError(current, up, err));
        deadlineTimerId = vertx.setTimer(Math.max(1, msLeft()), id -> onDeadline(current, up));
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
        if (current.endKind() != RequestLifecycle.OPEN)
        {
            answer.exceptionHandler(err -> { });
            up.reset();
            return;
        }
        upstreamAnswered = true;
        final int status = answer.statusCode();
        final long retryAfterMs = RetryAfter.delayMs(answer.getHeader(ServingHeaders.RETRY_AFTER));
        final String contentType = answer.getHeader(HttpHeaders.CONTENT_TYPE);
        final boolean eventStream = RequestLifecycle.isEventStream(contentType);
        if (parsed.stream())
        {
            // A streamed request's deadline was its first byte; a non-streamed one's covers the whole answer.
            cancelDeadline();
        }
        if (status >= 500 || status == 429)
        {
            // Before any byte reached the client: the attempt failed, and the request may move on.
            answer.pause();
            if (current.fail(status, retryAfterMs))
            {
                cancelDeadline();
                (status == 429 ? routes.meters.rateLimited : routes.meters.statusErrors).increment();
                final String model = modelName(current.modelId());
                if (retryAttempt("backend of model " + model + " answered " + status))
                {
                    answer.exceptionHandler(err -> { });
                    up.reset();
                    return;
                }
                passFailedAnswer(up, answer, model);
            }
            return;
        }
        final String loadReport = answer.getHeader(ServingHeaders.LOAD_REPORT);
        if (loadReport == null)
        {
            current.onResponseStatus(status, eventStream);
        }
        else
        {
            current.onResponseStatus(status, eventStream, loadReport, RequestLifecycle.backendKey(upstreamBackend));
        }
        streamedAnswer = eventStream;
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
        // A non-streamed JSON answer's usage, for the access log only: read as it passes, up to the meter's bound.
        final boolean jsonUsage = !eventStream && routes.operating.accessLogOrNull() != null &&
            RequestLifecycle.isJson(contentType);
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
            else if (jsonUsage)
            {
                final int n = chunk.length();
                final byte[] bytes = scratch.atLeast(n);
                chunk.getBytes(0, n, bytes, 0);
                current.meter().onJsonBodyBytes(bytes, 0, n);
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
            cancelDeadline();
            if (jsonUsage)
            {
                current.meter().onJsonBodyEnd();
            }
            final boolean ended = current.finish(status, retryAfterMs);
            if (ended && !response.ended())
            {
                response.end();
            }
        });
    }

    /**
     * The last attempt's answer, a 5xx or a 429 whose lease has ended with its status, passed to the client as the
     * backend sent it (with its {@code Retry-After}), the failed model named.
     */
    private void passFailedAnswer(final HttpClientRequest up, final HttpClientResponse answer, final String model)
    {
        if (clientGone || response.ended() || response.headWritten())
        {
            answer.exceptionHandler(err -> { });
            up.reset();
            return;
        }
        upstream = up;
        response.setStatusCode(answer.statusCode());
        copyHeader(answer, HttpHeaders.CONTENT_TYPE);
        copyHeader(answer, HttpHeaders.RETRY_AFTER);
        if (flow.decisionName() != null)
        {
            response.putHeader(ServingHeaders.DECISION, flow.decisionName());
        }
        response.putHeader(ServingHeaders.SELECTED_MODEL, model);
        response.putHeader(ServingHeaders.ATTEMPTS, Integer.toString(flow.attempts()));
        response.setChunked(true);
        answer.handler(chunk ->
        {
            response.write(chunk);
            if (response.writeQueueFull())
            {
                answer.pause();
                response.drainHandler(v -> answer.resume());
            }
        });
        answer.exceptionHandler(err ->
        {
            if (!response.ended())
            {
                response.reset();
            }
        });
        answer.endHandler(v ->
        {
            if (!response.ended())
            {
                response.end();
            }
        });
        answer.resume();
    }

    private void onUpstreamError(final RequestLifecycle current, final HttpClientRequest up, final Throwable err)
    {
        cancelTimer();
        cancelDeadline();
        if (!current.fail(0, 0))
        {
            return;
        }
        final boolean timeout = err instanceof TimeoutException;
        (timeout ? routes.meters.timeouts : routes.meters.resets).increment();
        up.reset();
        final String model = modelName(current.modelId());
        if (response.headWritten())
        {
            // Bytes already reached the client: nothing is retried, the response is cut short.
            cutStarted(timeout ? ServingError.UPSTREAM_TIMEOUT : ServingError.UPSTREAM_UNAVAILABLE, "backend of model " +
                model + (timeout ? " went silent for longer than " + routes.options.idleTimeoutMs() + " ms" :
                " failed mid-answer: " + message(err)));
            return;
        }
        if (!upstreamAnswered && !timeout)
        {
            retryOrAnswer("backend of model " + model + " failed before answering: " + message(err));
            return;
        }
        answerError(timeout ? ServingError.UPSTREAM_TIMEOUT : ServingError.UPSTREAM_UNAVAILABLE, "backend of model " +
            model + (timeout ? " went silent for longer than " + routes.options.idleTimeoutMs() + " ms" :
            " failed: " + message(err)));
    }

    /**
     * Ends a response whose head the client has: a stream with an SSE error event and no {@code [DONE]}, anything else
     * by a reset of the stream or connection.
     */
    private void cutStarted(final ServingError error, final String message)
    {
        if (clientGone || response.ended())
        {
            return;
        }
        if (streamedAnswer)
        {
            response.end("data: " + error.body(message) + "\n\n");
        }
        else
        {
            response.reset();
        }
    }

    /** The request's deadline passed during this attempt: before the answer's head, a 504; after it, a cut. */
    private void onDeadline(final RequestLifecycle current, final HttpClientRequest up)
    {
        deadlineTimerId = -1;
        if (!current.fail(0, 0))
        {
            return;
        }
        cancelTimer();
        routes.meters.timeouts.increment();
        up.reset();
        final String message = "backend of model " + modelName(current.modelId()) + (parsed.stream() ?
            " sent no response within " + routes.options.firstByteTimeoutMs() + " ms (first-byte timeout)" :
            " did not answer within " + routes.options.requestTimeoutMs() + " ms (request timeout)");
        if (response.headWritten())
        {
            cutStarted(ServingError.UPSTREAM_TIMEOUT, message);
            return;
        }
        answerError(ServingError.UPSTREAM_TIMEOUT, message);
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
        cancelDeadline();
        if (lifecycle.cancel() && upstream != null)
        {
            upstream.reset();
        }
        else if (upstream != null && lifecycle.endKind() != RequestLifecycle.OPEN && !response.ended())
        {
            // A failed answer being passed through: its lease has ended already.
            upstream.reset();
        }
        // After a complete response the close of a kept-alive connection changes nothing (finished guards).
        finished(0);
    }

    /** After an attempt that got no answer: the flow's next attempt, or 502 when none remains or none is left. */
    private void retryOrAnswer(final String failure)
    {
        if (retryAttempt(failure))
        {
            return;
        }
        answerFlowError();
    }

    /**
     * After a failed attempt (its lease ended): starts the next one when attempts remain, the deadline holds and a
     * candidate (or, for a model named directly, another backend) is left.
     *
     * @return whether another attempt was sent; if not, the flow's error says why.
     */
    private boolean retryAttempt(final String failure)
    {
        if (clientGone)
        {
            return true;
        }
        if (flow.direct() && routes.chooser().backends(lifecycle.modelId()).size() < 2)
        {
            flow.error(ServingError.UPSTREAM_UNAVAILABLE, failure + "; model " + modelName(lifecycle.modelId()) +
                " has no other backend");
            return false;
        }
        upstream = null;
        if (!flow.retry(failure))
        {
            return false;
        }
        routes.meters.retries.increment();
        send();
        return true;
    }

    /** @return another backend of the model than {@code tried}, or {@code tried} when the model has no other. */
    private Backend otherBackend(final int modelId, final Backend tried)
    {
        final Backend next = routes.chooser().choose(modelId);
        if (next == null || !next.equals(tried))
        {
            return next;
        }
        for (final Backend backend : routes.chooser().backends(modelId))
        {
            if (!backend.equals(tried))
            {
                return backend;
            }
        }
        return tried;
    }

    private void selectionHeaders(final RequestLifecycle current)
    {
        if (flow.decisionName() != null)
        {
            response.putHeader(ServingHeaders.DECISION, flow.decisionName());
        }
        response.putHeader(ServingHeaders.SELECTED_MODEL, modelName(current.modelId()));
        response.putHeader(ServingHeaders.ATTEMPTS, Integer.toString(flow.attempts()));
        if (!flow.direct() && RequestFlow.explainAsked(request.getHeader(ServingHeaders.EXPLAIN)))
        {
            final String explain = flow.explainJson();
            if (explain != null)
            {
                response.putHeader(ServingHeaders.EXPLAIN, explain);
            }
        }
    }

    private void answerError(final ServingError error, final String message)
    {
        flow.error(error, message);
        answerFlowError();
    }

    /** Answers the flow's error, with the decision, the attempts made and (but for a 503) the model that was tried. */
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
        if (flow.attempts() > 0)
        {
            response.putHeader(ServingHeaders.ATTEMPTS, Integer.toString(flow.attempts()));
        }
        if (flow.errorRetryAfterMs() > 0)
        {
            response.putHeader(HttpHeaders.RETRY_AFTER, Long.toString((flow.errorRetryAfterMs() + 999) / 1000));
        }
        response.setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, JSON).end(flow.errorBody());
    }

    private void refuse(final ServingError error, final String message)
    {
        refused = true;
        if (!response.ended() && !clientGone)
        {
            if (error == ServingError.REQUEST_TOO_LARGE)
            {
                // The rest of the body is not read: the connection cannot carry another request.
                response.putHeader(HttpHeaders.CONNECTION, "close");
            }
            response.setStatusCode(error.status()).putHeader(HttpHeaders.CONTENT_TYPE, JSON).end(error.body(message));
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
        final AccessLog log = routes.operating.accessLogOrNull();
        if (log != null)
        {
            log.offer(accessLogEntry(status));
        }
    }

    private AccessLog.Entry accessLogEntry(final int status)
    {
        final AccessLog.Entry entry = new AccessLog.Entry();
        entry.timeMs = startMs;
        entry.requestId = requestId;
        entry.decision = flow.decisionName();
        entry.status = status;
        entry.attempts = flow.attempts();
        if (entry.attempts > 0)
        {
            entry.model = flow.selectedModelName();
            entry.backend = upstreamBackend == null ? null : upstreamBackend.name();
            entry.outcome = Outcome.label(lifecycle.selection().outcome());
            entry.ttftMicros = lifecycle.ttftMicros();
            entry.tpotMicros = lifecycle.tpotMicros();
            entry.promptTokens = lifecycle.meter().usagePromptTokens();
            entry.completionTokens = lifecycle.meter().usageCompletionTokens();
        }
        else if (!flow.direct() && selectedWithoutLease(flow.error()))
        {
            // A decision's selection that took no lease: shed, ineligible or failed, as its outcome says.
            entry.outcome = Outcome.label(lifecycle.selection().outcome());
        }
        final ApiKeys keys = routes.operating.apiKeysOrNull();
        entry.keyId = keys == null || key == ApiKeys.NO_KEY ? null : keys.id(key);
        return entry;
    }

    /** @return whether a flow error comes from a selection that chose no model (so no lease was taken). */
    private static boolean selectedWithoutLease(final ServingError errorOrNull)
    {
        return errorOrNull == ServingError.OVERLOADED || errorOrNull == ServingError.NO_ELIGIBLE_MODEL ||
            errorOrNull == ServingError.NO_CANDIDATE;
    }

    private void cancelDeadline()
    {
        if (deadlineTimerId >= 0)
        {
            vertx.cancelTimer(deadlineTimerId);
            deadlineTimerId = -1;
        }
    }

    /** @return the request's deadline: the first-byte timeout when streamed, the request timeout when not. */
    private long deadlineMs()
    {
        return parsed.stream() ? routes.options.firstByteTimeoutMs() : routes.options.requestTimeoutMs();
    }

    /** @return milliseconds left before the request's deadline, 0 when it has passed. */
    private long msLeft()
    {
        return Math.max(0, (flow.deadlineNs() - flow.nowNs()) / 1_000_000L);
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

    /** Whether a connection failed as it was handed out, having closed while idle in the pool: nothing was sent. */
    private static boolean closedBeforeUse(final Throwable cause)
    {
        return cause instanceof ClosedChannelException || cause instanceof HttpClosedException;
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
