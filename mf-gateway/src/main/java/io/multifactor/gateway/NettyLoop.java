package io.multifactor.gateway;

import io.multifactor.serving.Backend;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.HttpClientCodec;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * One Netty event loop's share of the gateway: the SSE meter's copy buffer and the pool of keep-alive HTTP/1.1
 * connections to the backends, per backend (host, port, path and key, as {@link Backend} compares them). A request
 * takes the most recently released idle connection, else opens one while the backend has fewer than
 * {@link GatewayOptions#maxConnectionsPerBackend()} open on this loop, else waits for the next one released or
 * closed. A connection serves one request at a time and goes back to the pool only after a complete response that
 * keeps it alive; any other end closes it.
 * <p>
 * This class is not threadsafe: its event loop alone calls it (every connection it opens is on that loop).
 */
final class NettyLoop
{
    /** The largest piece of an upstream response the codec hands on at once. */
    private static final int MAX_UPSTREAM_CHUNK_BYTES = 16 * 1024;

    final GatewayRoutes routes;
    final EventLoop loop;
    /** This loop's copy buffer for the SSE meter. */
    final ChunkScratch scratch = new ChunkScratch();
    private final Bootstrap bootstrap;
    private final Map<Backend, Pool> pools = new HashMap<>();
    private final int maxOpen;

    NettyLoop(final GatewayRoutes routes, final EventLoop loop)
    {
        this.routes = routes;
        this.loop = loop;
        this.maxOpen = routes.options.maxConnectionsPerBackend();
        this.bootstrap = new Bootstrap()
            .group(loop)
            .channel(NioSocketChannel.class)
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS,
                (int)Math.min(Integer.MAX_VALUE, routes.options.firstByteTimeoutMs()))
            .handler(new ChannelInitializer<SocketChannel>()
            {
                @Override
                protected void initChannel(final SocketChannel channel)
                {
                    channel.pipeline().addLast(new HttpClientCodec(NettyFront.MAX_INITIAL_LINE_BYTES,
                        NettyFront.MAX_HEADER_BYTES, MAX_UPSTREAM_CHUNK_BYTES));
                }
            });
    }

    /**
     * Finds a connection to the backend for one attempt of an exchange; calls
     * {@link NettyExchange#onConnected(int, UpstreamConnection, Throwable)} with it (or with the connect failure), at
     * once when an idle one is there, else when one is opened or released.
     *
     * @param backend where to.
     * @param exchange who asks.
     * @param attempt the exchange's attempt number, handed back.
     * @return whether the exchange waits for a connection (the backend has the most open already).
     */
    boolean acquire(final Backend backend, final NettyExchange exchange, final int attempt)
    {
        Pool pool = pools.get(backend);
        if (pool == null)
        {
            pool = new Pool(backend);
            pools.put(backend, pool);
        }
        UpstreamConnection idle;
        while ((idle = pool.idle.pollLast()) != null)
        {
            if (idle.channel.isActive())
            {
                exchange.onConnected(attempt, idle, null);
                return false;
            }
        }
        if (pool.open < maxOpen)
        {
            connect(pool, exchange, attempt);
            return false;
        }
        pool.waiting.addLast(new Waiter(exchange, attempt));
        return true;
    }

    private void connect(final Pool pool, final NettyExchange exchange, final int attempt)
    {
        pool.open++;
        final ChannelFuture connecting = bootstrap.connect(pool.backend.host(), pool.backend.port());
        connecting.addListener(done ->
        {
            if (done.isSuccess())
            {
                final Channel channel = connecting.channel();
                final UpstreamConnection connection = new UpstreamConnection(this, pool, channel);
                channel.pipeline().addLast(connection);
                channel.closeFuture().addListener(closed -> closed(connection));
                exchange.onConnected(attempt, connection, null);
            }
            else
            {
                pool.open--;
                exchange.onConnected(attempt, null, done.cause());
                serveWaiter(pool);
            }
        });
    }

    /**
     * Takes back a connection whose response completed and that stays alive: to the next waiting exchange, else idle.
     * The caller has detached it from its exchange.
     *
     * @param connection the connection.
     */
    void release(final UpstreamConnection connection)
    {
        if (!connection.channel.isActive())
        {
            return;
        }
        final Pool pool = connection.pool;
        Waiter waiter;
        while ((waiter = pool.waiting.pollFirst()) != null)
        {
            if (waiter.exchange.wantsConnection(waiter.attempt))
            {
                waiter.exchange.onConnected(waiter.attempt, connection, null);
                return;
            }
        }
        pool.idle.addLast(connection);
    }

    private void closed(final UpstreamConnection connection)
    {
        final Pool pool = connection.pool;
        pool.open--;
        pool.idle.removeFirstOccurrence(connection);
        serveWaiter(pool);
    }

    private void serveWaiter(final Pool pool)
    {
        Waiter waiter;
        while (pool.open < maxOpen && (waiter = pool.waiting.pollFirst()) != null)
        {
            if (waiter.exchange.wantsConnection(waiter.attempt))
            {
                connect(pool, waiter.exchange, waiter.attempt);
            }
        }
    }

    /** @return how many upstream connections are open on this loop, to every backend (for tests). */
    int openConnections()
    {
        int open = 0;
        for (final Pool pool : pools.values())
        {
            open += pool.open;
        }
        return open;
    }

    /** One backend's connections on this loop. Not threadsafe: the loop's. */
    static final class Pool
    {
        final Backend backend;
        final ArrayDeque<UpstreamConnection> idle = new ArrayDeque<>();
        final ArrayDeque<Waiter> waiting = new ArrayDeque<>();
        int open;

        Pool(final Backend backend)
        {
            this.backend = backend;
        }
    }

    /** An exchange's attempt waiting for a connection. Immutable. */
    private record Waiter(NettyExchange exchange, int attempt)
    {
    }
}
