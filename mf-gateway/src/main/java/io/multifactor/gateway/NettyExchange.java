package io.multifactor.gateway;

import io.multifactor.api.Exclusions;
import io.multifactor.api.Handles;
import io.multifactor.api.Request;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.signal.ServerLoadTable;
import io.multifactor.serving.Backend;
import io.multifactor.serving.DecisionResolver;
import io.multifactor.serving.ExplainJson;
import io.multifactor.serving.JsonText;
import io.multifactor.serving.OpenAiRequestReader;
import io.multifactor.serving.OpenAiRequest;
import io.multifactor.serving.RequestLifecycle;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One proxied completion request on the Netty gateway, the counterpart of {@link ProxyExchange} with the same
 * behaviour: reads the body (at most {@link OpenAiRequestReader#MAX_BODY_BYTES}), resolves the decision, selects
 * through a {@link RequestLifecycle}, sends the rewritten body on a pooled connection of its event loop
 * ({@link NettyLoop}), and passes the response back part by part as the codec hands it on, flushed at the end of every
 * read from the backend; the backend's socket is not read while the client's is not writable. Every exit (completion,
 * client gone, backend error, timeout) goes through the lifecycle's ending calls, whose first caller alone acts. A
 * connect failure, a reset before the status line, or a 5xx before any byte reached the client is retried once on the
 * decision's next choice with the failed model excluded.
 * <p>
 * This class is not threadsafe: every call comes from the event loop of the client's connection.
 */
final class NettyExchange
{
    // How long a connection whose request was refused before its body was read keeps dropping what the client sends.
    private static final long DRAIN_MS = 2_000;

    private static final String JSON = "application/json";

    private final GatewayRoutes routes;
    private final NettyLoop loop;
    private final NettyConnection connection;
    private final Channel client;
    private final HttpHeaders requestHeaders;
    private final boolean keepAlive;
    private final int uri;
    private final String suffix;
    private final long startNs;
    private final OpenAiRequest parsed = new OpenAiRequest();
    private byte[] body;
    private int bodyLength;
    private boolean bodyDone;
    private boolean refused;
    private boolean finished;
    private boolean clientGone;
    /** The response's last byte was written (or an answer of the gateway's own). */
    private boolean responseDone;
    private int decisionId = Handles.NONE;
    private String decisionName;
    private RequestLifecycle lifecycle;
    private Exclusions exclusions;
    private int attempt;
    private String firstFailure;
    private byte[] rewritten;
    private Backend upstreamBackend;
    private UpstreamConnection upstream;
    private boolean upstreamAnswered;
    private boolean upstreamKeepAlive;
    private int status;
    private long retryAfterMs;
    private boolean eventStream;
    /** The response head, written with the first part of the body (so a failure before it can still be answered). */
    private HttpResponse pendingHead;
    private boolean headWritten;
    private ScheduledFuture<?> timer;
    private long lastChunkNs;

    NettyExchange(final GatewayRoutes routes, final NettyLoop loop, final NettyConnection connection,
        final Channel client, final HttpHeaders requestHeaders, final boolean keepAlive, final int uri,
        final String suffix)
    {
        this.routes = routes;
        this.loop = loop;
        this.connection = connection;
        this.client = client;
        this.requestHeaders = requestHeaders;
        this.keepAlive = keepAlive;
        this.uri = uri;
        this.suffix = suffix;
        this.startNs = System.nanoTime();
    }

    /** @return whether the request's body is still being read (its parts go to {@link #onBodyContent}). */
    boolean readsBody()
    {
        return !bodyDone;
    }

    void begin()
    {
        routes.meters.active.incrementAndGet();
        final String length = requestHeaders.get(HttpHeaderNames.CONTENT_LENGTH);
        final long announced = length == null ? -1 : parseLong(length);
        if (announced > OpenAiRequestReader.MAX_BODY_BYTES)
        {
            refuse(413, "request body is larger than 8 MiB (content-length " + length + ')');
            return;
        }
        body = new byte[announced < 0 ? 1024 : (int)Math.max(16, Math.min(64 * 1024, announced))];
    }

    /** @param content the next part of the request's body; released here. */
    void onBodyContent(final HttpContent content)
    {
        try
        {
            if (refused || bodyDone)
            {
                return;
            }
            if (content.decoderResult().isFailure())
            {
                refuse(400, "request body could not be read: " + message(content.decoderResult().cause()));
                return;
            }
            final ByteBuf data = content.content();
            final int n = data.readableBytes();
            if ((long)bodyLength + n > OpenAiRequestReader.MAX_BODY_BYTES)
            {
                refuse(413, "request body is larger than 8 MiB");
                return;
            }
            if (bodyLength + n > body.length)
            {
                final byte[] grown = new byte[Math.min(OpenAiRequestReader.MAX_BODY_BYTES,
                    Math.max(bodyLength + n, body.length * 2))];
                System.arraycopy(body, 0, grown, 0, bodyLength);
                body = grown;
            }
            data.getBytes(data.readerIndex(), body, bodyLength, n);
            bodyLength += n;
            if (content instanceof LastHttpContent)
            {
                bodyDone = true;
                onBody();
            }
        }
        finally
        {
            content.release();
        }
    }

    private void onBody()
    {
        if (clientGone)
        {
            return;
        }
        final int code = routes.reader.read(body, bodyLength, parsed);
        if (code != OpenAiRequestReader.OK)
        {
            refuse(code == OpenAiRequestReader.TOO_LARGE ? 413 : 400, parsed.error());
            return;
        }
        final Plans plans = routes.engine.plans();
        final String header = requestHeaders.get(DecisionResolver.HEADER);
        decisionId = DecisionResolver.resolve(plans, header, parsed.model());
        final DecisionPlan plan = plans.decision(decisionId);
        if (plan == null)
        {
            refuse(400, DecisionResolver.problem(plans, header, parsed.model()));
            return;
        }
        decisionName = plan.name();
        attempt();
    }

    private void attempt()
    {
        if (lifecycle == null)
        {
            lifecycle = new RequestLifecycle(routes.engine);
        }
        final long promptTokens = parsed.hasTokenCounts() ? parsed.promptTokens() : Request.NO_TOKENS;
        final int started = lifecycle.start(decisionId, exclusions, promptTokens, parsed.maxOutputTokens());
        if (started != RequestLifecycle.STARTED)
        {
            if (firstFailure != null)
            {
                answerError(502, "upstream_error", firstFailure + "; no other candidate to retry on");
            }
            else if (started == RequestLifecycle.NO_MODEL)
            {
                answerError(503, "no_candidates", "decision " + decisionName + " found no candidate (outcome failed)");
            }
            else
            {
                answerError(400, "invalid_request_error", DecisionResolver.problem(routes.engine.plans(),
                    requestHeaders.get(DecisionResolver.HEADER), parsed.model()));
            }
            return;
        }
        final int modelId = lifecycle.modelId();
        final Backend backend = routes.chooser().choose(modelId);
        if (backend == null || backend.https())
        {
            lifecycle.fail(0, 0);
            routes.meters.connectErrors.increment();
            retryOrAnswer(backend == null ? "model " + modelName(modelId) + " has no backend_refs"
                : "backend " + backend.name() + " of model " + modelName(modelId) +
                " is https, which --server netty does not speak (use --server vertx)");
            return;
        }
        rewritten = OpenAiRequestReader.rewriteModel(body, bodyLength, parsed, backend.providerModelId());
        upstreamBackend = backend;
        final int thisAttempt = attempt;
        if (loop.acquire(backend, this, thisAttempt))
        {
            // Every connection to the backend is busy: the first-byte timeout covers the wait too.
            timer = loop.loop.schedule(() -> onFirstByteTimeout(thisAttempt), routes.options.firstByteTimeoutMs(),
                TimeUnit.MILLISECONDS);
        }
    }

    /**
     * @param attemptNumber the attempt that asked.
     * @return whether that attempt still waits for a connection.
     */
    boolean wantsConnection(final int attemptNumber)
    {
        return attemptNumber == attempt && !clientGone && upstream == null && !upstreamAnswered &&
            lifecycle != null && lifecycle.endKind() == RequestLifecycle.OPEN;
    }

    /**
     * The pool's answer to {@link NettyLoop#acquire}.
     *
     * @param attemptNumber the attempt that asked.
     * @param connection the connection, or {@code null} when it could not be opened.
     * @param cause why not, or {@code null}.
     */
    void onConnected(final int attemptNumber, final UpstreamConnection connection, final Throwable cause)
    {
        if (!wantsConnection(attemptNumber))
        {
            if (connection != null)
            {
                loop.release(connection);
            }
            return;
        }
        cancelTimer();
        final Backend backend = upstreamBackend;
        if (connection == null)
        {
            if (lifecycle.fail(0, 0))
            {
                routes.meters.connectErrors.increment();
                retryOrAnswer("could not connect to backend " + backend.name() + " of model " +
                    modelName(lifecycle.modelId()) + ": " + message(cause));
            }
            return;
        }
        upstream = connection;
        connection.exchange = this;
        final Channel channel = connection.channel;
        channel.config().setAutoRead(client.isWritable());
        final FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST,
            backend.basePath() + suffix, Unpooled.wrappedBuffer(rewritten));
        final HttpHeaders headers = request.headers();
        headers.set(HttpHeaderNames.HOST, backend.host().indexOf(':') >= 0
            ? "[" + backend.host() + "]:" + backend.port() : backend.host() + ':' + backend.port());
        headers.set(HttpHeaderNames.CONTENT_TYPE, JSON);
        headers.setInt(HttpHeaderNames.CONTENT_LENGTH, rewritten.length);
        final String accept = requestHeaders.get(HttpHeaderNames.ACCEPT);
        if (accept != null)
        {
            headers.set(HttpHeaderNames.ACCEPT, accept);
        }
        final String authorization = backend.authorization() != null
            ? backend.authorization() : requestHeaders.get(HttpHeaderNames.AUTHORIZATION);
        if (authorization != null)
        {
            headers.set(HttpHeaderNames.AUTHORIZATION, authorization);
        }
        if (routes.engine.serverSignals().table().modelIndex(modelName(lifecycle.modelId())) !=
            ServerLoadTable.NOT_FOUND)
        {
            // Its server is scraped: ask for the load report on the response too (it counts as a scrape).
            headers.set(RequestLifecycle.LOAD_REPORT_FORMAT_HEADER, "TEXT");
        }
        final int thisAttempt = attempt;
        timer = loop.loop.schedule(() -> onFirstByteTimeout(thisAttempt), routes.options.firstByteTimeoutMs(),
            TimeUnit.MILLISECONDS);
        lifecycle.onRequestSent(System.nanoTime());
        // A failed write reaches UpstreamConnection.exceptionCaught, then onUpstreamError.
        channel.writeAndFlush(request, channel.voidPromise());
    }

    /**
     * A part of the backend's response: its head, a piece of its body, or both.
     *
     * @param from the connection it came on.
     * @param msg the part; released or passed on here.
     */
    void onUpstreamMessage(final UpstreamConnection from, final Object msg)
    {
        if (from != upstream)
        {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof HttpObject && ((HttpObject)msg).decoderResult().isFailure())
        {
            final Throwable cause = ((HttpObject)msg).decoderResult().cause();
            ReferenceCountUtil.release(msg);
            onUpstreamError(from, cause);
            return;
        }
        if (msg instanceof HttpResponse && !onUpstreamHead((HttpResponse)msg))
        {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof HttpContent)
        {
            onUpstreamContent((HttpContent)msg);
        }
    }

    /** @return whether the response is passed on (false: it is dropped, and retried or ignored). */
    private boolean onUpstreamHead(final HttpResponse head)
    {
        cancelTimer();
        upstreamAnswered = true;
        final HttpHeaders headers = head.headers();
        status = head.status().code();
        retryAfterMs = ProxyExchange.retryAfterMs(headers.get(HttpHeaderNames.RETRY_AFTER));
        if (status >= 500 && attempt == 0)
        {
            if (lifecycle.fail(status, retryAfterMs))
            {
                routes.meters.statusErrors.increment();
                dropUpstream();
                retryOrAnswer("backend of model " + modelName(lifecycle.modelId()) + " answered " + status);
            }
            return false;
        }
        final String contentType = headers.get(HttpHeaderNames.CONTENT_TYPE);
        eventStream = contentType != null && contentType.startsWith("text/event-stream");
        final String loadReport = headers.get(RequestLifecycle.LOAD_REPORT_HEADER);
        if (loadReport == null)
        {
            lifecycle.onResponseStatus(status, eventStream);
        }
        else
        {
            lifecycle.onResponseStatus(status, eventStream, loadReport, RequestLifecycle.backendKey(upstreamBackend));
        }
        upstreamKeepAlive = HttpUtil.isKeepAlive(head);
        final HttpResponse out = new DefaultHttpResponse(HttpVersion.HTTP_1_1, head.status());
        final HttpHeaders outHeaders = out.headers();
        copy(headers, outHeaders, HttpHeaderNames.CONTENT_TYPE);
        copy(headers, outHeaders, HttpHeaderNames.CACHE_CONTROL);
        copy(headers, outHeaders, HttpHeaderNames.RETRY_AFTER);
        selectionHeaders(outHeaders);
        final String contentLength = headers.get(HttpHeaderNames.CONTENT_LENGTH);
        if (contentLength != null && !eventStream)
        {
            outHeaders.set(HttpHeaderNames.CONTENT_LENGTH, contentLength);
        }
        else
        {
            outHeaders.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
        }
        if (!keepAlive)
        {
            outHeaders.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        }
        pendingHead = out;
        lastChunkNs = System.nanoTime();
        armIdleTimer(attempt, routes.options.idleTimeoutMs());
        return true;
    }

    private void onUpstreamContent(final HttpContent content)
    {
        if (lifecycle.endKind() != RequestLifecycle.OPEN || clientGone)
        {
            content.release();
            return;
        }
        lastChunkNs = System.nanoTime();
        final ByteBuf data = content.content();
        final int n = data.readableBytes();
        if (eventStream && n > 0)
        {
            final byte[] bytes = loop.scratch.atLeast(n);
            data.getBytes(data.readerIndex(), bytes, 0, n);
            lifecycle.onResponseBytes(bytes, 0, n, System.nanoTime());
        }
        writeHead();
        if (content instanceof LastHttpContent)
        {
            cancelTimer();
            final boolean ended = status < 400 ? lifecycle.complete(status) : lifecycle.fail(status, retryAfterMs);
            releaseUpstream();
            if (!ended)
            {
                content.release();
                return;
            }
            // A whole response (head and body in one message) is passed on as its body's last part.
            final Object last = content instanceof HttpResponse
                ? new DefaultLastHttpContent(data.retain()) : content;
            if (last != content)
            {
                content.release();
            }
            writeFinal(client.writeAndFlush(last), status, !keepAlive);
            return;
        }
        client.write(content instanceof HttpResponse
            ? new DefaultHttpContent(dataAndRelease(content)) : content,
            client.voidPromise());
        if (!client.isWritable())
        {
            // Backpressure: stop reading the backend until the client has taken what is queued.
            upstream.channel.config().setAutoRead(false);
        }
    }

    private static ByteBuf dataAndRelease(final HttpContent content)
    {
        final ByteBuf data = content.content().retain();
        content.release();
        return data;
    }

    private void writeHead()
    {
        if (pendingHead != null)
        {
            client.write(pendingHead, client.voidPromise());
            pendingHead = null;
            headWritten = true;
        }
    }

    /** The backend's socket has no more to read now: what was written goes out in one flush. */
    void onUpstreamReadComplete()
    {
        if (headWritten && !responseDone)
        {
            client.flush();
        }
    }

    /** @param writable whether the client's connection takes more without queueing. */
    void onClientWritability(final boolean writable)
    {
        if (upstream != null)
        {
            upstream.channel.config().setAutoRead(writable);
        }
    }

    /**
     * The backend's connection failed, closed, or went silent.
     *
     * @param from the connection.
     * @param err what happened.
     */
    void onUpstreamError(final UpstreamConnection from, final Throwable err)
    {
        if (from != upstream)
        {
            return;
        }
        cancelTimer();
        dropUpstream();
        if (!lifecycle.fail(0, 0))
        {
            return;
        }
        final boolean timeout = err instanceof TimeoutException;
        (timeout ? routes.meters.timeouts : routes.meters.resets).increment();
        if (headWritten)
        {
            // Bytes already reached the client: the only honest end is to cut the response short.
            client.close();
            return;
        }
        if (!upstreamAnswered && !timeout)
        {
            retryOrAnswer("backend of model " + modelName(lifecycle.modelId()) + " failed before answering: " +
                message(err));
            return;
        }
        answerError(timeout ? 504 : 502, "upstream_error", "backend of model " + modelName(lifecycle.modelId()) +
            (timeout ? " went silent for longer than " + routes.options.idleTimeoutMs() + " ms" : " failed: " +
            message(err)));
    }

    private void onFirstByteTimeout(final int attemptNumber)
    {
        timer = null;
        if (attemptNumber != attempt || upstreamAnswered || lifecycle.endKind() != RequestLifecycle.OPEN ||
            !lifecycle.fail(0, 0))
        {
            return;
        }
        routes.meters.timeouts.increment();
        dropUpstream();
        answerError(504, "upstream_timeout", "backend of model " + modelName(lifecycle.modelId()) +
            " sent no response within " + routes.options.firstByteTimeoutMs() + " ms");
    }

    /** One timer per idle period, not per chunk: when it fires early it is armed again for the time left. */
    private void armIdleTimer(final int attemptNumber, final long delayMs)
    {
        timer = loop.loop.schedule(() -> onIdleTimer(attemptNumber), Math.max(1, delayMs), TimeUnit.MILLISECONDS);
    }

    private void onIdleTimer(final int attemptNumber)
    {
        timer = null;
        if (attemptNumber != attempt || lifecycle.endKind() != RequestLifecycle.OPEN || upstream == null)
        {
            return;
        }
        final long idleMs = routes.options.idleTimeoutMs();
        final long silentMs = (System.nanoTime() - lastChunkNs) / 1_000_000L;
        if (silentMs < idleMs)
        {
            armIdleTimer(attemptNumber, idleMs - silentMs);
            return;
        }
        onUpstreamError(upstream, new TimeoutException("no chunk for " + silentMs + " ms"));
    }

    /** The client's connection closed. */
    void onClientGone()
    {
        if (clientGone)
        {
            return;
        }
        clientGone = true;
        cancelTimer();
        if (lifecycle != null && lifecycle.cancel())
        {
            dropUpstream();
        }
        // After a complete response the close of the connection changes nothing (finished guards).
        finished(0);
    }

    private void retryOrAnswer(final String failure)
    {
        if (attempt == 0 && !clientGone)
        {
            attempt = 1;
            firstFailure = failure;
            if (exclusions == null)
            {
                exclusions = new Exclusions();
            }
            exclusions.add(lifecycle.modelId());
            upstreamAnswered = false;
            pendingHead = null;
            routes.meters.retries.increment();
            attempt();
            return;
        }
        answerError(502, "upstream_error", firstFailure == null || firstFailure.equals(failure)
            ? failure : firstFailure + "; retry: " + failure);
    }

    private void selectionHeaders(final HttpHeaders headers)
    {
        headers.set(DecisionResolver.HEADER, decisionName);
        headers.set("x-selected-model", modelName(lifecycle.modelId()));
        if ("1".equals(requestHeaders.get("x-mf-explain")))
        {
            final String explain = ExplainJson.compact(routes.engine.plans(), lifecycle.selection());
            if (explain != null)
            {
                headers.set("x-mf-explain", explain);
            }
        }
    }

    private void answerError(final int answerStatus, final String type, final String message)
    {
        if (clientGone || responseDone || headWritten)
        {
            return;
        }
        final FullHttpResponse response = NettyConnection.full(client.alloc(), answerStatus, JSON,
            JsonText.error(type, message));
        if (decisionName != null)
        {
            response.headers().set(DecisionResolver.HEADER, decisionName);
        }
        if (lifecycle != null && lifecycle.modelId() != Handles.NONE && answerStatus != 503)
        {
            response.headers().set("x-selected-model", modelName(lifecycle.modelId()));
        }
        if (!keepAlive)
        {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        }
        writeFinal(client.writeAndFlush(response), answerStatus, !keepAlive);
    }

    private void refuse(final int answerStatus, final String message)
    {
        refused = true;
        if (responseDone || clientGone)
        {
            return;
        }
        final FullHttpResponse response = NettyConnection.full(client.alloc(), answerStatus, JSON,
            JsonText.error("invalid_request_error", message));
        // A body not read to its end leaves the connection unable to carry another request.
        final boolean close = !keepAlive || !bodyDone;
        if (close)
        {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        }
        writeFinal(client.writeAndFlush(response), answerStatus, close);
    }

    /** The response's last write is out: count it, then close the connection or serve its next request. */
    private void writeFinal(final ChannelFuture written, final int answerStatus, final boolean close)
    {
        responseDone = true;
        finished(answerStatus);
        if (close)
        {
            connection.closing();
            if (bodyDone)
            {
                written.addListener(ChannelFutureListener.CLOSE);
            }
            else
            {
                written.addListener((ChannelFutureListener)NettyExchange::drainThenClose);
            }
        }
        else
        {
            connection.exchangeDone(this);
        }
    }

    // An answer written before the request's body was read whole (a 413, a 400): the client may still be sending the
    // body, and closing now would make the kernel answer its next bytes with a reset, which can destroy the answer
    // before the client reads it. So: half-close (a FIN after the answer), go on reading and dropping what arrives (the
    // connection drops every part once closing), and close when the client does, or after DRAIN_MS at the latest.
    private static void drainThenClose(final ChannelFuture written)
    {
        final Channel channel = written.channel();
        if (!written.isSuccess() || !(channel instanceof DuplexChannel))
        {
            channel.close();
            return;
        }
        ((DuplexChannel)channel).shutdownOutput();
        channel.eventLoop().schedule(() -> channel.close(), DRAIN_MS, TimeUnit.MILLISECONDS);
    }

    /** Lets go of the backend's connection and closes it (a cancelled or failed response cannot be reused). */
    private void dropUpstream()
    {
        final UpstreamConnection connection = upstream;
        if (connection != null)
        {
            upstream = null;
            connection.exchange = null;
            connection.channel.close();
        }
    }

    /** Gives the backend's connection back to the pool after a complete response, or closes it if it ends there. */
    private void releaseUpstream()
    {
        final UpstreamConnection connection = upstream;
        if (connection == null)
        {
            return;
        }
        upstream = null;
        connection.exchange = null;
        if (upstreamKeepAlive)
        {
            connection.channel.config().setAutoRead(true);
            loop.release(connection);
        }
        else
        {
            connection.channel.close();
        }
    }

    private void finished(final int answerStatus)
    {
        if (finished)
        {
            return;
        }
        finished = true;
        routes.meters.active.decrementAndGet();
        routes.meters.record(uri, answerStatus, System.nanoTime() - startNs);
    }

    private void cancelTimer()
    {
        if (timer != null)
        {
            timer.cancel(false);
            timer = null;
        }
    }

    private static void copy(final HttpHeaders from, final HttpHeaders to, final CharSequence name)
    {
        final String value = from.get(name);
        if (value != null)
        {
            to.set(name, value);
        }
    }

    private String modelName(final int modelId)
    {
        final String name = routes.engine.plans().modelName(modelId);
        return name == null ? "#" + modelId : name;
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
        if (err == null)
        {
            return "unknown failure";
        }
        return err.getMessage() == null ? err.getClass().getSimpleName() : err.getMessage();
    }
}
