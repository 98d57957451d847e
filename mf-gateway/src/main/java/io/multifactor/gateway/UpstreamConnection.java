package io.multifactor.gateway;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;

import java.io.IOException;

/**
 * One keep-alive connection to a backend, the last handler of its pipeline (after the {@code HttpClientCodec}): it
 * hands the response's parts to the exchange that holds it, and tells that exchange when the connection fails. Between
 * two exchanges it belongs to its {@link NettyLoop}'s pool, and whatever arrives then is dropped.
 * <p>
 * This class is not threadsafe: the connection's event loop alone calls it.
 */
final class UpstreamConnection extends ChannelInboundHandlerAdapter
{
    private static final IOException CLOSED = new IOException("the backend closed the connection");

    final NettyLoop loop;
    final NettyLoop.Pool pool;
    final Channel channel;
    /** The exchange this connection serves now, {@code null} while it is idle or being closed. */
    NettyExchange exchange;

    UpstreamConnection(final NettyLoop loop, final NettyLoop.Pool pool, final Channel channel)
    {
        this.loop = loop;
        this.pool = pool;
        this.channel = channel;
    }

    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object msg)
    {
        final NettyExchange current = exchange;
        if (current == null)
        {
            ReferenceCountUtil.release(msg);
            return;
        }
        current.onUpstreamMessage(this, msg);
    }

    @Override
    public void channelReadComplete(final ChannelHandlerContext ctx)
    {
        final NettyExchange current = exchange;
        if (current != null)
        {
            current.onUpstreamReadComplete();
        }
    }

    @Override
    public void channelInactive(final ChannelHandlerContext ctx)
    {
        final NettyExchange current = exchange;
        exchange = null;
        if (current != null)
        {
            current.onUpstreamError(this, CLOSED);
        }
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
    {
        final NettyExchange current = exchange;
        exchange = null;
        ctx.close();
        if (current != null)
        {
            current.onUpstreamError(this, cause);
        }
    }
}
