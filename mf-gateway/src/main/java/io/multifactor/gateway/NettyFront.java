package io.multifactor.gateway;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerExpectContinueHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The gateway served by Netty used directly: one event loop group ({@link GatewayOptions#eventLoops()} NIO loops,
 * one of which also accepts), an {@link HttpServerCodec} per client connection with a {@link NettyConnection} behind
 * it, and per event loop a {@link NettyLoop}: the upstream connection pool and the SSE meter's copy buffer. A client
 * connection and every upstream connection it uses live on the same event loop, so a request never changes threads.
 * <p>
 * This class is threadsafe: {@link #close()} may be called from any thread; the per-loop map is read-only once built.
 */
final class NettyFront implements GatewayFront
{
    /** The longest request line, as Vert.x's default. */
    static final int MAX_INITIAL_LINE_BYTES = 4096;
    /** The most header bytes of a request, as Vert.x's default. */
    static final int MAX_HEADER_BYTES = 8192;
    /** The largest piece of a body the codec hands on at once. */
    static final int MAX_CHUNK_BYTES = 8192;

    private final EventLoopGroup group;
    private final Map<EventExecutor, NettyLoop> loops = new IdentityHashMap<>();

    private NettyFront(final GatewayRoutes routes, final int eventLoops)
    {
        this.group = new MultiThreadIoEventLoopGroup(eventLoops, new DefaultThreadFactory("mf-netty-loop", true),
            NioIoHandler.newFactory());
        for (final EventExecutor executor : group)
        {
            loops.put(executor, new NettyLoop(routes, (EventLoop)executor));
        }
    }

    /**
     * @param routes what the event loops share.
     * @param registry the registry behind {@code GET /metrics}.
     * @param ready whether {@code /readyz} answers ready.
     * @return the front, listening.
     * @throws IOException when the port cannot be bound (the event loops are stopped again).
     */
    static NettyFront start(final GatewayRoutes routes, final PrometheusMeterRegistry registry,
        final BooleanSupplier ready) throws IOException
    {
        final NettyFront front = new NettyFront(routes, routes.options.eventLoops());
        final Map<EventExecutor, NettyLoop> loops = front.loops;
        final ServerBootstrap bootstrap = new ServerBootstrap()
            .group(front.group)
            .channel(NioServerSocketChannel.class)
            .option(ChannelOption.SO_BACKLOG, 1024)
            .option(ChannelOption.SO_REUSEADDR, true)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(new ChannelInitializer<SocketChannel>()
            {
                @Override
                protected void initChannel(final SocketChannel channel)
                {
                    channel.pipeline()
                        .addLast(new HttpServerCodec(MAX_INITIAL_LINE_BYTES, MAX_HEADER_BYTES, MAX_CHUNK_BYTES))
                        // curl and others send "Expect: 100-continue" before a large body: answer at once.
                        .addLast(new HttpServerExpectContinueHandler())
                        .addLast(new NettyConnection(routes, loops.get(channel.eventLoop()), registry, ready));
                }
            });
        try
        {
            Gateway.await(bootstrap.bind(new InetSocketAddress(routes.options.host(), routes.options.port())));
        }
        catch (final IOException | RuntimeException ex)
        {
            front.close();
            throw ex;
        }
        return front;
    }

    @Override
    public void close()
    {
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
    }
}
