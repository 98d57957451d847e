package io.multifactor.gateway;

import io.multifactor.serving.DecisionResolver;
import io.multifactor.serving.ServingError;
import io.multifactor.serving.ServingHeaders;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.PoolOptions;

import java.security.MessageDigest;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * One event loop's share of the gateway: an HTTP server on the shared port and an HTTP client to the backends, both on
 * this verticle's event loop, so a request and its upstream exchange never change threads.
 * <p>
 * This class is not threadsafe: Vert.x calls it on its own event loop only.
 */
final class GatewayVerticle extends VerticleBase
{
    private final GatewayRoutes routes;
    private final PrometheusMeterRegistry registry;
    private final BooleanSupplier ready;
    private HttpClient client;
    private HttpServer server;
    /** This verticle's event loop's copy buffer for the SSE meter. */
    private final ChunkScratch scratch = new ChunkScratch();
    /** This verticle's event loop's digest for the client keys. */
    private final MessageDigest sha256 = ApiKeys.sha256();

    GatewayVerticle(final GatewayRoutes routes, final PrometheusMeterRegistry registry, final BooleanSupplier ready)
    {
        this.routes = routes;
        this.registry = registry;
        this.ready = ready;
    }

    @Override
    public Future<?> start()
    {
        client = vertx.createHttpClient(
            new HttpClientOptions().setKeepAlive(true).setTcpNoDelay(true).setVerifyHost(true),
            new PoolOptions().setHttp1MaxSize(routes.options.maxConnectionsPerBackend()).setMaxWaitQueueSize(-1));
        final HttpServerOptions serverOptions = new HttpServerOptions()
            .setHost(routes.options.host())
            .setPort(routes.options.port())
            .setTcpNoDelay(true)
            // curl and others send "Expect: 100-continue" before a large body: answer at once instead of stalling.
            .setHandle100ContinueAutomatically(true)
            // HTTP/2 only by ALPN over TLS: the JDK's HttpClient (HTTP/2 by default) asks plain connections to upgrade
            // (h2c) and, on JDK 17, drops what arrives with the 101 past its first 16 KiB read, so a /metrics page
            // or a long answer on a new connection never completes. Refused upgrades leave such clients on HTTP/1.1.
            .setHttp2ClearTextEnabled(false)
            .setCompressionSupported(false)
            // No WebSockets here: without either compression the server leaves Netty's WebSocket extension handler out
            // of every connection's pipeline, one handler less for each chunk written.
            .setPerMessageWebSocketCompressionSupported(false)
            .setPerFrameWebSocketCompressionSupported(false);
        final TlsFiles tls = routes.operating.tlsOrNull();
        if (tls != null)
        {
            serverOptions.setSsl(true).setUseAlpn(true).setKeyCertOptions(tls.current());
        }
        server = vertx.createHttpServer(serverOptions);
        server.requestHandler(this::handle);
        return server.listen().onSuccess(s ->
        {
            if (tls != null)
            {
                tls.follow(server);
            }
        });
    }

    @Override
    public Future<?> stop()
    {
        final TlsFiles tls = routes.operating.tlsOrNull();
        if (tls != null)
        {
            tls.unfollow(server);
        }
        // A drain lets open requests finish within its grace, refusing new connections; a plain close cuts them.
        return server.shutdown(routes.shutdownGraceMs, TimeUnit.MILLISECONDS).eventually(() -> client.close());
    }

    private void handle(final HttpServerRequest request)
    {
        final String path = request.path();
        if (AdminEndpoints.isAdminPath(path) && !routes.operating.separateAdminPort())
        {
            AdminEndpoints.serve(request, registry, ready);
            return;
        }
        final ApiKeys keys = routes.operating.apiKeysOrNull();
        int key = ApiKeys.NO_KEY;
        if (keys != null)
        {
            key = keys.find(request.getHeader(HttpHeaders.AUTHORIZATION), sha256);
            if (key == ApiKeys.NO_KEY)
            {
                routes.meters.unauthorized.increment();
                unauthorized(request);
                return;
            }
        }
        final int route = proxiedRoute(path);
        if (route >= 0)
        {
            if (request.method() != HttpMethod.POST)
            {
                plain(request, ServingError.METHOD_NOT_ALLOWED, "use POST for " + path);
                return;
            }
            new ProxyExchange(routes, vertx, client, request, route,
                GatewayMeters.PROXIED[route].substring(GatewayMeters.PROXIED[route].indexOf('/', 1)), scratch).begin(key);
            return;
        }
        switch (path)
        {
            case GatewayMeters.MODELS:
                final int modelsKey = key;
                request.response().putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                    .end(DecisionResolver.modelsList(routes.engine.plans(),
                        keys == null ? null : decision -> keys.allows(modelsKey, decision)));
                return;
            default:
                plain(request, ServingError.NOT_FOUND, "no route for " + request.method() + ' ' + path +
                    ": POST /v1/chat/completions, /v1/completions, /v1/responses or /v1/embeddings, GET /v1/models, " +
                    "/metrics, /healthz, /readyz");
        }
    }

    /** A 401, with its request id echoed and its access-log line (no decision, no attempt, no key). */
    private void unauthorized(final HttpServerRequest request)
    {
        final String requestId = AccessLog.requestId(request.getHeader(ServingHeaders.REQUEST_ID));
        request.response().putHeader(ServingHeaders.REQUEST_ID, requestId);
        plain(request, 401, ServingError.INVALID_API_KEY.body(
            "a valid API key is required: Authorization: Bearer KEY"));
        final AccessLog log = routes.operating.accessLogOrNull();
        if (log != null)
        {
            final AccessLog.Entry entry = new AccessLog.Entry();
            entry.timeMs = System.currentTimeMillis();
            entry.requestId = requestId;
            entry.status = 401;
            log.offer(entry);
        }
    }

    /** @return the index of a proxied route ({@link GatewayMeters#PROXIED}), -1 for another path. */
    private static int proxiedRoute(final String path)
    {
        for (int i = 0; i < GatewayMeters.PROXIED.length; i++)
        {
            if (GatewayMeters.PROXIED[i].equals(path))
            {
                return i;
            }
        }
        return -1;
    }

    private static void plain(final HttpServerRequest request, final ServingError error, final String message)
    {
        plain(request, error.status(), error.body(message));
    }

    private static void plain(final HttpServerRequest request, final int status, final String json)
    {
        request.response().setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, "application/json").end(json);
    }
}
