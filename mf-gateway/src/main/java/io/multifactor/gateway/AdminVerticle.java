package io.multifactor.gateway;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.multifactor.serving.ServingError;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;

import java.util.function.BooleanSupplier;

/**
 * The admin port ({@code --admin-port}): {@link AdminEndpoints} alone, plain HTTP, no client keys, on the main
 * port's address; every other path is a 404.
 * <p>
 * This class is not threadsafe: Vert.x calls it on its own event loop only.
 */
final class AdminVerticle extends VerticleBase
{
    private final String host;
    private final int port;
    private final PrometheusMeterRegistry registry;
    private final BooleanSupplier ready;
    private HttpServer server;

    AdminVerticle(final String host, final int port, final PrometheusMeterRegistry registry,
        final BooleanSupplier ready)
    {
        this.host = host;
        this.port = port;
        this.registry = registry;
        this.ready = ready;
    }

    @Override
    public Future<?> start()
    {
        server = vertx.createHttpServer(new HttpServerOptions().setHost(host).setPort(port).setTcpNoDelay(true)
            .setHttp2ClearTextEnabled(false)); // HTTP/1.1 only, as the main port without TLS (GatewayVerticle says why)
        server.requestHandler(request ->
        {
            if (AdminEndpoints.isAdminPath(request.path()))
            {
                AdminEndpoints.serve(request, registry, ready);
            }
            else
            {
                AdminEndpoints.json(request, 404, ServingError.NOT_FOUND.body(
                    "the admin port serves GET /metrics, /healthz and /readyz only"));
            }
        });
        return server.listen();
    }

    @Override
    public Future<?> stop()
    {
        return server.close();
    }
}
