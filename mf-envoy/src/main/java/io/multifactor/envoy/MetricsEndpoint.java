package io.multifactor.envoy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * {@code GET /metrics} in Prometheus' text format, from a {@link PrometheusMeterRegistry}, on the JDK's own HTTP
 * server (one daemon thread): the ext_proc service has no HTTP stack of its own. Anything but {@code GET /metrics}
 * gets 404 or 405.
 * <p>
 * This class is threadsafe.
 */
public final class MetricsEndpoint implements AutoCloseable
{
    private final HttpServer server;
    private final ExecutorService executor;

    private MetricsEndpoint(final HttpServer server, final ExecutorService executor)
    {
        this.server = server;
        this.executor = executor;
    }

    /**
     * @param registry the registry scraped on each request.
     * @param address where to listen.
     * @return the started endpoint.
     * @throws IOException when the address cannot be bound.
     */
    public static MetricsEndpoint start(final PrometheusMeterRegistry registry, final InetSocketAddress address)
        throws IOException
    {
        final HttpServer server = HttpServer.create(address, 16);
        server.createContext("/", exchange -> answer(exchange, registry));
        final ExecutorService executor = Executors.newSingleThreadExecutor(runnable ->
        {
            final Thread thread = new Thread(runnable, "mf-envoy-metrics");
            thread.setDaemon(true);
            return thread;
        });
        server.setExecutor(executor);
        server.start();
        return new MetricsEndpoint(server, executor);
    }

    private static void answer(final HttpExchange exchange, final PrometheusMeterRegistry registry) throws IOException
    {
        try (exchange)
        {
            final int status;
            final byte[] body;
            if (!"/metrics".equals(exchange.getRequestURI().getPath()))
            {
                status = 404;
                body = "not found: try /metrics\n".getBytes(StandardCharsets.UTF_8);
            }
            else if (!"GET".equals(exchange.getRequestMethod()))
            {
                status = 405;
                body = "method not allowed\n".getBytes(StandardCharsets.UTF_8);
            }
            else
            {
                status = 200;
                body = registry.scrape().getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
            }
            exchange.sendResponseHeaders(status, body.length);
            try (OutputStream out = exchange.getResponseBody())
            {
                out.write(body);
            }
        }
    }

    /** @return the port the endpoint listens on. */
    public int port()
    {
        return server.getAddress().getPort();
    }

    @Override
    public void close()
    {
        server.stop(0);
        executor.shutdownNow();
    }
}
