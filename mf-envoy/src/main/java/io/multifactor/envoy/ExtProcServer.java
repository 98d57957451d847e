package io.multifactor.envoy;

import io.envoyproxy.envoy.service.ext_proc.v3.ExternalProcessorGrpc;
import io.grpc.BindableService;
import io.grpc.Server;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.Epoll;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollIoHandler;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import io.grpc.protobuf.services.HealthStatusManager;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The gRPC server of the ext_proc service: {@code envoy.service.ext_proc.v3.ExternalProcessor} and the standard
 * {@code grpc.health.v1.Health} service on one TCP port or one Unix domain socket (Envoy reaches a sidecar on one
 * through a cluster with a {@code pipe} address; Linux only: it needs grpc's native epoll transport).
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
    private final ExtProcService serviceOrNull;
    private final long graceMs;
    /** The event loops of a Unix domain socket server (this server owns them), or {@code null} on TCP. */
    private final EventLoopGroup[] ownedGroupsOrNull;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Whether health says NOT_SERVING for good (grpc warns when told twice). */
    private final AtomicBoolean notServing = new AtomicBoolean();

    private ExtProcServer(final Server server, final HealthStatusManager health, final ExtProcService serviceOrNull,
        final long graceMs, final EventLoopGroup[] ownedGroupsOrNull)
    {
        this.server = server;
        this.health = health;
        this.serviceOrNull = serviceOrNull;
        this.graceMs = graceMs;
        this.ownedGroupsOrNull = ownedGroupsOrNull;
    }

    /**
     * Binds and starts the server.
     *
     * @param service the ext_proc service.
     * @param address where to listen: an {@link InetSocketAddress} ({@code 127.0.0.1:0} picks a free loopback port),
     *     or a {@link UnixDomainSocketAddress} (the socket file is created, a stale one left by a process that
     *     died is replaced, and it is removed at {@link #close()}).
     * @param graceMs how long {@link #close()} lets open streams finish before it cancels them.
     * @return the started server.
     * @throws IOException when the address cannot be bound (a Unix domain socket also: another process serves on it,
     *     a file that is not a socket is in its place, or this platform has no epoll transport).
     */
    public static ExtProcServer start(final ExtProcService service, final SocketAddress address, final long graceMs)
        throws IOException
    {
        return start(service, service, address, graceMs);
    }

    /**
     * Serves another implementation of {@code ExternalProcessor} on the same transport, with the same settings (event
     * loop handlers, flow-control window, message and metadata limits, health service) as
     * {@link #start(ExtProcService, SocketAddress, long)}: for comparisons, such as a benchmark's floor of what the
     * transport alone costs. {@link #service()} is {@code null} on such a server.
     *
     * @param processor the ext_proc implementation; its handlers must not block.
     * @param address where to listen, as for {@link #start(ExtProcService, SocketAddress, long)}.
     * @param graceMs how long {@link #close()} lets open streams finish before it cancels them.
     * @return the started server.
     * @throws IOException when the address cannot be bound.
     */
    public static ExtProcServer startProcessor(final BindableService processor, final SocketAddress address,
        final long graceMs) throws IOException
    {
        return start(processor, null, address, graceMs);
    }

    private static ExtProcServer start(final BindableService processor, final ExtProcService serviceOrNull,
        final SocketAddress address, final long graceMs) throws IOException
    {
        final NettyServerBuilder builder;
        EventLoopGroup[] groups = null;
        if (address instanceof UnixDomainSocketAddress unix)
        {
            if (!Epoll.isAvailable())
            {
                throw new IOException("a Unix domain socket needs grpc's native epoll transport (Linux), which is " +
                    "not available here: " + Epoll.unavailabilityCause());
            }
            removeStaleSocket(unix);
            // Daemon threads, as grpc's own default event loops have: the server's owner keeps the process alive.
            groups = new EventLoopGroup[] {
                new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("mf-envoy-uds-boss", true),
                    EpollIoHandler.newFactory()),
                new MultiThreadIoEventLoopGroup(0, new DefaultThreadFactory("mf-envoy-uds-worker", true),
                    EpollIoHandler.newFactory())};
            builder = NettyServerBuilder.forAddress(new DomainSocketAddress(unix.getPath().toString()))
                .channelType(EpollServerDomainSocketChannel.class)
                .bossEventLoopGroup(groups[0])
                .workerEventLoopGroup(groups[1])
                // grpc asks TCP keepalive of every accepted connection; a Unix domain socket has none, and Netty would
                // warn of the unknown option on each one.
                .withChildOption(ChannelOption.SO_KEEPALIVE, null);
        }
        else if (address instanceof InetSocketAddress)
        {
            builder = NettyServerBuilder.forAddress(address);
        }
        else
        {
            throw new IllegalArgumentException("an ext_proc server listens on an InetSocketAddress or a " +
                "UnixDomainSocketAddress, not " + address);
        }
        final HealthStatusManager health = new HealthStatusManager();
        // The handlers never block (a selection takes microseconds, a reply is queued to the transport), so they run on
        // the event loop that read the message: no hop to an executor thread and back for each message.
        final Server server;
        try
        {
            server = builder
                .directExecutor()
                .flowControlWindow(FLOW_CONTROL_WINDOW_BYTES)
                .addService(processor)
                .addService(health.getHealthService())
                .maxInboundMessageSize(MAX_MESSAGE_BYTES)
                .maxInboundMetadataSize(MAX_METADATA_BYTES)
                .build()
                .start();
        }
        catch (final IOException | RuntimeException ex)
        {
            shutdown(groups);
            throw ex;
        }
        health.setStatus(HealthStatusManager.SERVICE_NAME_ALL_SERVICES, ServingStatus.SERVING);
        health.setStatus(ExternalProcessorGrpc.SERVICE_NAME, ServingStatus.SERVING);
        return new ExtProcServer(server, health, serviceOrNull, graceMs, groups);
    }

    /**
     * Deletes the socket file a process that died left at {@code address} (nothing accepts on it any more); refuses a
     * socket another process serves on, and any file that is not a socket.
     */
    private static void removeStaleSocket(final UnixDomainSocketAddress address) throws IOException
    {
        final Path path = address.getPath();
        if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS))
        {
            return;
        }
        if (!Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).isOther())
        {
            throw new IOException(path + " exists and is not a socket");
        }
        try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX))
        {
            probe.connect(address);
            throw new IOException("another process already serves on " + path);
        }
        catch (final ConnectException refused)
        {
            // Nothing listens: the file is what a process that died left behind.
            Files.deleteIfExists(path);
        }
    }

    private static void shutdown(final EventLoopGroup[] groupsOrNull)
    {
        if (groupsOrNull == null)
        {
            return;
        }
        for (final EventLoopGroup group : groupsOrNull)
        {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
    }

    /** @return the TCP port the server listens on; -1 on a Unix domain socket. */
    public int port()
    {
        return server.getPort();
    }

    /**
     * @return where the server listens: an {@link InetSocketAddress} (with the port it bound) or the
     *     {@link UnixDomainSocketAddress} it was given.
     */
    public SocketAddress address()
    {
        final SocketAddress bound = server.getListenSockets().get(0);
        return bound instanceof DomainSocketAddress unix ? UnixDomainSocketAddress.of(unix.path()) : bound;
    }

    /** @return the service, for its counters; {@code null} on a server started with {@link #startProcessor}. */
    public ExtProcService service()
    {
        return serviceOrNull;
    }

    /** Blocks until the server has terminated (after {@link #close()} from another thread). */
    public void awaitTermination() throws InterruptedException
    {
        server.awaitTermination();
    }

    private void notServing()
    {
        if (notServing.compareAndSet(false, true))
        {
            health.enterTerminalState();
        }
    }

    /**
     * A drain, as the gateway's on SIGTERM: health turns {@code NOT_SERVING} at once, new streams are still accepted for
     * {@code delayMs} (Envoy's health checks notice meanwhile), then {@link #close()}: open streams finish within the
     * grace period or are cancelled. Blocks the calling thread throughout.
     *
     * @param delayMs how long new streams are still accepted once health says {@code NOT_SERVING}.
     */
    public void drain(final long delayMs)
    {
        notServing();
        if (delayMs > 0)
        {
            try
            {
                Thread.sleep(delayMs);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
        close();
    }

    /**
     * Graceful shutdown: {@code NOT_SERVING}, no new streams, open streams finish within the grace period or are
     * cancelled, then every lease still open is ended (and a Unix domain socket's file removed). Returns when the
     * server has terminated; a second call does nothing.
     */
    @Override
    public void close()
    {
        if (!closed.compareAndSet(false, true))
        {
            return;
        }
        notServing();
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
        if (serviceOrNull != null)
        {
            serviceOrNull.endOpenStreams();
        }
        shutdown(ownedGroupsOrNull);
        if (interrupted)
        {
            Thread.currentThread().interrupt();
        }
    }
}
