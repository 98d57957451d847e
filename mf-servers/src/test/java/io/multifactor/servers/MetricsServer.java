package io.multifactor.servers;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A real HTTP server on a loopback port that answers every path with what its current {@link Answer} writes, and
 * records the paths asked and the bytes written. Threadsafe: the answer may be swapped while it serves.
 */
final class MetricsServer implements AutoCloseable
{
    /** What the server does with one exchange. */
    @FunctionalInterface
    interface Answer
    {
        void answer(HttpExchange exchange, int requestNumber) throws IOException, InterruptedException;
    }

    private final HttpServer server;
    private final ExecutorService executor = Executors.newFixedThreadPool(4, r ->
    {
        final Thread t = new Thread(r, "test-metrics-server");
        t.setDaemon(true);
        return t;
    });
    private final List<String> paths = new CopyOnWriteArrayList<>();
    private final AtomicInteger requests = new AtomicInteger();
    private final AtomicLong bytesWritten = new AtomicLong();
    private volatile Answer answer;

    MetricsServer(final Answer answer) throws IOException
    {
        this.answer = answer;
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        server.setExecutor(executor);
        server.createContext("/", exchange ->
        {
            paths.add(exchange.getRequestURI().getPath());
            try (exchange)
            {
                this.answer.answer(exchange, requests.incrementAndGet());
            }
            catch (final IOException | InterruptedException ex)
            {
                // the client went away (a cut body, a timeout): nothing to do
            }
        });
        server.start();
    }

    static Answer body(final byte[] body)
    {
        return (exchange, n) ->
        {
            exchange.getResponseHeaders().add("Content-Type", "text/plain; version=0.0.4");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
        };
    }

    static Answer status(final int status)
    {
        return (exchange, n) -> exchange.sendResponseHeaders(status, -1);
    }

    /** A chunked body of {@code total} bytes produced by repeating {@code line}, counted as it is written. */
    Answer streamed(final byte[] line, final long total)
    {
        return (exchange, n) ->
        {
            exchange.sendResponseHeaders(200, 0);
            final byte[] chunk = new byte[(64 << 10) / line.length * line.length];
            for (int i = 0; i + line.length <= chunk.length; i += line.length)
            {
                System.arraycopy(line, 0, chunk, i, line.length);
            }
            final OutputStream out = exchange.getResponseBody();
            long written = 0;
            while (written < total)
            {
                out.write(chunk);
                written += chunk.length;
                bytesWritten.addAndGet(chunk.length);
            }
        };
    }

    void answer(final Answer next)
    {
        answer = next;
    }

    int port()
    {
        return server.getAddress().getPort();
    }

    List<String> paths()
    {
        return paths;
    }

    int requests()
    {
        return requests.get();
    }

    long bytesWritten()
    {
        return bytesWritten.get();
    }

    @Override
    public void close()
    {
        server.stop(0);
        executor.shutdownNow();
    }
}
