package io.multifactor.gateway;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A small OpenAI-style upstream for the gateway's tests, on a real loopback socket: it streams a fixed SSE answer chunk
 * by chunk (a timer between chunks), or answers JSON, a status, dies mid-stream, or hangs, as its mode says. It
 * remembers the bodies it was sent and counts connections closed before it finished a stream.
 */
final class TestUpstream implements AutoCloseable
{
    enum Mode
    {
        STREAM, JSON, STATUS_500, DIE_MID_STREAM, HANG, HANG_MID_STREAM,
        /** {@link #FLOOD_BYTES} of SSE as fast as the connection takes them (waiting while its write queue is full). */
        FLOOD,
        /** 429 with {@code Retry-After: 7} and a JSON error body. */
        STATUS_429,
        /** 503 to its first request, a STREAM answer to every later one. */
        FIRST_503
    }

    /** How many bytes a FLOOD answer sends before its {@code data: [DONE]}. */
    static final int FLOOD_BYTES = 64 * 1024 * 1024;

    final Vertx vertx;
    final HttpServer server;
    final ConcurrentLinkedQueue<String> bodies = new ConcurrentLinkedQueue<>();
    final AtomicInteger closedEarly = new AtomicInteger();
    final AtomicInteger requests = new AtomicInteger();
    /** The headers of every request, in arrival order. */
    final ConcurrentLinkedQueue<io.vertx.core.MultiMap> headers = new ConcurrentLinkedQueue<>();
    /** Connections the server accepted. */
    final AtomicInteger connections = new AtomicInteger();
    /** Bytes a FLOOD answer has handed to its connection so far. */
    final java.util.concurrent.atomic.AtomicLong floodWritten = new java.util.concurrent.atomic.AtomicLong();
    volatile Mode mode;
    volatile int chunks;
    volatile long chunkDelayMs;

    TestUpstream(final Vertx vertx, final Mode mode, final int chunks, final long chunkDelayMs) throws Exception
    {
        this.vertx = vertx;
        this.mode = mode;
        this.chunks = chunks;
        this.chunkDelayMs = chunkDelayMs;
        this.server = vertx.createHttpServer().requestHandler(this::handle)
            .connectionHandler(connection -> connections.incrementAndGet());
        server.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    int port()
    {
        return server.actualPort();
    }

    /** @return the SSE bytes a STREAM answer sends, in order, for {@code n} content chunks. */
    static List<String> sseEvents(final int n)
    {
        final List<String> events = new ArrayList<>();
        events.add("data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":" +
            "{\"role\":\"assistant\"}}]}\n\n");
        for (int i = 0; i < n; i++)
        {
            events.add("data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":" +
                "{\"content\":\"tok" + i + " é\"}}]}\n\n");
        }
        events.add("data: {\"id\":\"c1\",\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":" + n +
            "}}\n\n");
        events.add("data: [DONE]\n\n");
        return events;
    }

    static String sse(final int n)
    {
        return String.join("", sseEvents(n));
    }

    private void handle(final HttpServerRequest request)
    {
        requests.incrementAndGet();
        headers.add(io.vertx.core.MultiMap.caseInsensitiveMultiMap().addAll(request.headers()));
        request.body().onSuccess(body ->
        {
            bodies.add(body.toString(StandardCharsets.UTF_8));
            final Mode m = mode;
            switch (m)
            {
                case JSON:
                    // A delay, when set, holds the whole answer back (a long non-streamed generation).
                    if (chunkDelayMs > 0)
                    {
                        vertx.setTimer(chunkDelayMs, id -> json(request));
                    }
                    else
                    {
                        json(request);
                    }
                    break;
                case STATUS_429:
                    request.response().setStatusCode(429).putHeader("content-type", "application/json")
                        .putHeader("retry-after", "7").end("{\"error\":{\"message\":\"slow down\",\"code\":429}}");
                    break;
                case FIRST_503:
                    if (requests.get() == 1)
                    {
                        request.response().setStatusCode(503).putHeader("content-type", "application/json")
                            .end("{\"error\":\"warming up\"}");
                    }
                    else
                    {
                        stream(request, Mode.STREAM);
                    }
                    break;
                case STATUS_500:
                    request.response().setStatusCode(500).putHeader("content-type", "application/json")
                        .end("{\"error\":\"boom\"}");
                    break;
                case HANG:
                    break;
                case FLOOD:
                    flood(request);
                    break;
                default:
                    stream(request, m);
            }
        });
    }

    private static void json(final HttpServerRequest request)
    {
        request.response().putHeader("content-type", "application/json")
            .end("{\"id\":\"x\",\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"hi\"}}]}");
    }

    private void flood(final HttpServerRequest request)
    {
        final String event = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" + "x".repeat(90) +
            "\"}}]}\n\n";
        final Buffer chunk = Buffer.buffer();
        while (chunk.length() + event.length() <= 64 * 1024)
        {
            chunk.appendString(event);
        }
        final var response = request.response();
        response.setChunked(true).putHeader("content-type", "text/event-stream");
        final Runnable[] step = new Runnable[1];
        step[0] = () ->
        {
            while (!response.closed() && floodWritten.get() < FLOOD_BYTES)
            {
                if (response.writeQueueFull())
                {
                    response.drainHandler(v -> step[0].run());
                    return;
                }
                response.write(chunk.copy());
                floodWritten.addAndGet(chunk.length());
            }
            if (!response.closed())
            {
                response.end("data: [DONE]\n\n");
            }
        };
        step[0].run();
    }

    private void stream(final HttpServerRequest request, final Mode m)
    {
        final List<String> events = sseEvents(chunks);
        final var response = request.response();
        response.setChunked(true).putHeader("content-type", "text/event-stream");
        final boolean[] done = {false};
        response.closeHandler(v ->
        {
            if (!done[0])
            {
                closedEarly.incrementAndGet();
            }
        });
        final long delay = chunkDelayMs;
        final int[] next = {0};
        final Runnable[] step = new Runnable[1];
        step[0] = () ->
        {
            if (response.closed())
            {
                return;
            }
            final int i = next[0]++;
            if (m == Mode.DIE_MID_STREAM && i == 2)
            {
                request.connection().close();
                return;
            }
            if (m == Mode.HANG_MID_STREAM && i == 2)
            {
                return;
            }
            if (i == events.size() - 1)
            {
                done[0] = true;
                response.end(Buffer.buffer(events.get(i)));
                return;
            }
            response.write(Buffer.buffer(events.get(i)));
            if (delay <= 0)
            {
                vertx.runOnContext(x -> step[0].run());
            }
            else
            {
                vertx.setTimer(delay, id -> step[0].run());
            }
        };
        step[0].run();
    }

    @Override
    public void close() throws java.io.IOException
    {
        try
        {
            server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
        catch (final java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException ex)
        {
            throw new java.io.IOException(ex);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new java.io.IOException(ex);
        }
    }
}
