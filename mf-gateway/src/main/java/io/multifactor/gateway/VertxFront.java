package io.multifactor.gateway;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;

import java.io.IOException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * The gateway served by Vert.x core: one {@link GatewayVerticle} per event loop, each with its HTTP server on the
 * shared port and its pooled HTTP client.
 * <p>
 * This class is threadsafe: {@link #close()} may be called from any thread, more than once.
 */
final class VertxFront
{
    private final Vertx vertx;

    private VertxFront(final Vertx vertx)
    {
        this.vertx = vertx;
    }

    /**
     * @param routes what the event loops share.
     * @param registry the registry behind {@code GET /metrics}.
     * @param ready whether {@code /readyz} answers ready.
     * @param adminPort the admin port (resolved, not 0), or {@link OperatingOptions#NO_ADMIN_PORT}.
     * @return the front, listening.
     * @throws IOException when the port cannot be bound (the event loops are stopped again).
     */
    static VertxFront start(final GatewayRoutes routes, final PrometheusMeterRegistry registry,
        final BooleanSupplier ready, final int adminPort) throws IOException
    {
        final int eventLoops = routes.options.eventLoops();
        // Netty's native epoll transport where it loads (Linux on x86_64 and aarch64): fewer system calls and less
        // garbage per chunk than the JDK's selector. Elsewhere Vert.x falls back to NIO.
        final VertxOptions vertxOptions = new VertxOptions().setEventLoopPoolSize(eventLoops)
            .setPreferNativeTransport(true);
        final VertxFront front = new VertxFront(Vertx.vertx(vertxOptions));
        try
        {
            await(front.vertx.deployVerticle(() -> new GatewayVerticle(routes, registry, ready),
                new DeploymentOptions().setInstances(eventLoops)).toCompletionStage().toCompletableFuture());
            if (adminPort != OperatingOptions.NO_ADMIN_PORT)
            {
                await(front.vertx.deployVerticle(new AdminVerticle(routes.options.host(), adminPort, registry, ready))
                    .toCompletionStage().toCompletableFuture());
            }
            final TlsFiles tls = routes.operating.tlsOrNull();
            if (tls != null)
            {
                tls.watch(front.vertx);
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            front.close(0);
            throw ex;
        }
        return front;
    }

    /**
     * Stops listening and closes every connection once its request ended, within the routes' shutdown grace (0: at
     * once, in-flight requests cut); waits up to that grace and 10 s more.
     *
     * @param graceMs how long open requests may finish.
     */
    void close(final long graceMs)
    {
        try
        {
            vertx.close().toCompletionStage().toCompletableFuture().get(graceMs + 10_000, TimeUnit.MILLISECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        catch (final ExecutionException | TimeoutException ex)
        {
            // Closing anyway: the caller stops the engine next.
        }
    }

    private static void await(final java.util.concurrent.Future<?> future) throws IOException
    {
        try
        {
            future.get(30, TimeUnit.SECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while starting the gateway", ex);
        }
        catch (final ExecutionException ex)
        {
            final Throwable cause = ex.getCause() == null ? ex : ex.getCause();
            throw new IOException("cannot start the gateway: " + cause.getMessage(), cause);
        }
        catch (final TimeoutException ex)
        {
            throw new IOException("the gateway did not start within 30 s", ex);
        }
    }
}
