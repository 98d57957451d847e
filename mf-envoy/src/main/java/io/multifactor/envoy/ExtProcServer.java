package io.multifactor.envoy;

import io.envoyproxy.envoy.service.ext_proc.v3.ExternalProcessorGrpc;
import io.grpc.Server;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The gRPC server of the ext_proc service: {@code envoy.service.ext_proc.v3.ExternalProcessor} and the standard
 * {@code grpc.health.v1.Health} service on one port.
 * <p>
 * {@link #close()} is the graceful shutdown: health turns {@code NOT_SERVING}, new streams are refused, open streams get
 * a grace period to finish, then are cancelled, and every lease still open is ended.
 * <p>
 * This class is threadsafe.
 */
public final class ExtProcServer implements AutoCloseable
{
    /** The largest message accepted from Envoy: an 8 MiB buffered body plus its framing. */
    public static final int MAX_MESSAGE_BYTES = 8 * 1024 * 1024 + 64 * 1024;
    /** The largest gRPC metadata (the call's own headers, not the HTTP request's) accepted. */
    public static final int MAX_METADATA_BYTES = 64 * 1024;
    /**
     * The HTTP/2 flow-control window of each stream, bytes: fixed (no BDP pings, which would add a ping and its
     * acknowledgement to each message of a request-response exchange), large enough for Envoy's messages.
     */
    public static final int FLOW_CONTROL_WINDOW_BYTES = 1024 * 1024;

    private final Server server;
    private final HealthStatusManager health;
    private final ExtProcService service;
    private final long graceMs;
    private final AtomicBoolean closed = new AtomicBoolean();

    private ExtProcServer(final Server server, final HealthStatusManager health, final ExtProcService service,
        final long graceMs)
    {
        this.server = server;
        this.health = health;
        this.service = service;
        this.graceMs = graceMs;
    }

    /**
     * Binds and starts the server.
     *
     * @param service the ext_proc service.
     * @param address where to listen ({@code 127.0.0.1:0} picks a free loopback port).
     * @param graceMs how long {@link #close()} lets open streams finish before it cancels them.
     * @return the started server.
     * @throws IOException when the address cannot be bound.
     */
    public static ExtProcServer start(final ExtProcService service, final InetSocketAddress address, final long graceMs)
        throws IOException
    {
        final HealthStatusManager health = new HealthStatusManager();
        // The handlers never block (a selection takes microseconds, a reply is queued to the transport), so they run on
        // the event loop that read the message: no hop to an executor thread and back for each message.
        final Server server = NettyServerBuilder.forAddress(address)
            .directExecutor()
            .flowControlWindow(FLOW_CONTROL_WINDOW_BYTES)
            .addService(service)
            .addService(health.getHealthService())
            .maxInboundMessageSize(MAX_MESSAGE_BYTES)
            .maxInboundMetadataSize(MAX_METADATA_BYTES)
            .build()
            .start();
        health.setStatus(HealthStatusManager.SERVICE_NAME_ALL_SERVICES, ServingStatus.SERVING);
        health.setStatus(ExternalProcessorGrpc.SERVICE_NAME, ServingStatus.SERVING);
        return new ExtProcServer(server, health, service, graceMs);
    }

    /** @return the port the server listens on. */
    public int port()
    {
        return server.getPort();
    }

    /** @return the service, for its counters. */
    public ExtProcService service()
    {
        return service;
    }

    /** Blocks until the server has terminated (after {@link #close()} from another thread). */
    public void awaitTermination() throws InterruptedException
    {
        server.awaitTermination();
    }

    /**
     * Graceful shutdown: {@code NOT_SERVING}, no new streams, open streams finish within the grace period or are
     * cancelled, then every lease still open is ended. Returns when the server has terminated; a second call does
     * nothing.
     */
    @Override
    public void close()
    {
        if (!closed.compareAndSet(false, true))
        {
            return;
        }
        health.enterTerminalState();
        server.shutdown();
        boolean interrupted = false;
        try
        {
            if (!server.awaitTermination(graceMs, TimeUnit.MILLISECONDS))
            {
                server.shutdownNow();
                server.awaitTermination(5, TimeUnit.SECONDS);
            }
        }
        catch (final InterruptedException ex)
        {
            interrupted = true;
            server.shutdownNow();
        }
        service.endOpenStreams();
        if (interrupted)
        {
            Thread.currentThread().interrupt();
        }
    }
}
