package io.multifactor.gateway;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.multifactor.serving.JsonText;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.ReferenceCountUtil;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.function.BooleanSupplier;

/**
 * One client connection of the Netty gateway, behind its {@code HttpServerCodec}: serves its HTTP/1.1 requests one
 * after the other (keep-alive). A completion request becomes a {@link NettyExchange}, which owns it until its response
 * has been written; {@code /metrics}, {@code /healthz}, {@code /readyz} and errors are answered here at once. A request
 * that arrives while the previous one is still being answered (pipelining) is held, and the socket not read, until
 * that answer is written.
 * <p>
 * This class is not threadsafe: the connection's event loop alone calls it.
 */
final class NettyConnection extends ChannelInboundHandlerAdapter
{
    private static final String JSON = "application/json";

    private final GatewayRoutes routes;
    private final NettyLoop loop;
    private final PrometheusMeterRegistry registry;
    private final BooleanSupplier ready;
    private ChannelHandlerContext ctx;
    /** The exchange being read or answered, or {@code null}. */
    private NettyExchange current;
    /** Skipping the body of a request already answered. */
    private boolean discarding;
    /** An answer that closes the connection was sent: nothing more is read. */
    private boolean closing;
    /** Messages of requests pipelined behind the current one, in order. */
    private final ArrayDeque<Object> held = new ArrayDeque<>();

    NettyConnection(final GatewayRoutes routes, final NettyLoop loop, final PrometheusMeterRegistry registry,
        final BooleanSupplier ready)
    {
        this.routes = routes;
        this.loop = loop;
        this.registry = registry;
        this.ready = ready;
    }

    @Override
    public void handlerAdded(final ChannelHandlerContext ctx)
    {
        this.ctx = ctx;
    }

    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object msg)
    {
        if (current != null && current.readsBody())
        {
            if (msg instanceof HttpContent)
            {
                current.onBodyContent((HttpContent)msg);
            }
            else
            {
                ReferenceCountUtil.release(msg);
            }
            return;
        }
        if (current != null)
        {
            // Pipelined behind a request still being answered: keep it, read no more until that answer is out.
            held.addLast(msg);
            ctx.channel().config().setAutoRead(false);
            return;
        }
        dispatch(msg);
    }

    private void dispatch(final Object msg)
    {
        try
        {
            if (closing)
            {
                return;
            }
            if (msg instanceof HttpRequest)
            {
                onRequest((HttpRequest)msg);
                if (msg instanceof HttpContent && current != null && current.readsBody())
                {
                    current.onBodyContent(((HttpContent)msg).retain());
                    return;
                }
            }
            if (discarding && msg instanceof LastHttpContent)
            {
                discarding = false;
            }
        }
        finally
        {
            ReferenceCountUtil.release(msg);
        }
    }

    private void onRequest(final HttpRequest request)
    {
        final DecoderResult result = request.decoderResult();
        if (result.isFailure())
        {
            final Throwable cause = result.cause();
            final int status = cause instanceof TooLongHttpLineException ? 414
                : cause instanceof TooLongHttpHeaderException ? 431
                : cause instanceof TooLongFrameException ? 413 : 400;
            answer(status, JSON, JsonText.error("invalid_request_error", "malformed request: " + message(cause)), true);
            return;
        }
        final boolean keepAlive = HttpUtil.isKeepAlive(request);
        final String uri = request.uri();
        final int query = uri.indexOf('?');
        final String path = query < 0 ? uri : uri.substring(0, query);
        discarding = true;
        if (GatewayMeters.CHAT.equals(path) || GatewayMeters.COMPLETIONS.equals(path))
        {
            if (!HttpMethod.POST.equals(request.method()))
            {
                answer(405, JSON, JsonText.error("invalid_request_error", "use POST for " + path), !keepAlive);
                return;
            }
            discarding = false;
            final boolean chat = GatewayMeters.CHAT.equals(path);
            current = new NettyExchange(routes, loop, this, ctx.channel(), request.headers(), keepAlive,
                chat ? 0 : 1, chat ? "/chat/completions" : "/completions");
            current.begin();
            return;
        }
        switch (path)
        {
            case "/metrics":
                answer(200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape(), !keepAlive);
                return;
            case "/healthz":
                answer(200, JSON, "{\"status\":\"ok\"}", !keepAlive);
                return;
            case "/readyz":
                final boolean isReady = ready.getAsBoolean();
                answer(isReady ? 200 : 503, JSON, isReady ? "{\"status\":\"ready\"}" : "{\"status\":\"not ready\"}",
                    !keepAlive);
                return;
            default:
                answer(404, JSON, JsonText.error("invalid_request_error", "no route for " + request.method() + ' ' +
                    path + ": POST /v1/chat/completions or /v1/completions, GET /metrics, /healthz, /readyz"),
                    !keepAlive);
        }
    }

    private void answer(final int status, final String contentType, final String body, final boolean close)
    {
        final FullHttpResponse response = full(ctx.channel().alloc(), status, contentType, body);
        if (close)
        {
            closing();
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        }
        else
        {
            ctx.writeAndFlush(response, ctx.voidPromise());
        }
    }

    /**
     * @param alloc where the body's buffer comes from.
     * @param status the status.
     * @param contentType the content type.
     * @param body the body, UTF-8.
     * @return a whole response with its {@code content-length}.
     */
    static FullHttpResponse full(final io.netty.buffer.ByteBufAllocator alloc, final int status,
        final String contentType, final String body)
    {
        final ByteBuf content = ByteBufUtil.encodeString(alloc, java.nio.CharBuffer.wrap(body), StandardCharsets.UTF_8);
        final FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
            HttpResponseStatus.valueOf(status), content);
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType)
            .setInt(HttpHeaderNames.CONTENT_LENGTH, content.readableBytes());
        return response;
    }

    /** The exchange's answer will close the connection: read nothing more. */
    void closing()
    {
        closing = true;
        releaseHeld();
    }

    /**
     * The exchange's response has been written whole and the connection stays open: serves what was held.
     *
     * @param exchange the exchange that is done.
     */
    void exchangeDone(final NettyExchange exchange)
    {
        if (current != exchange)
        {
            return;
        }
        current = null;
        Object msg;
        while ((current == null || current.readsBody()) && (msg = held.pollFirst()) != null)
        {
            if (current != null)
            {
                if (msg instanceof HttpContent)
                {
                    current.onBodyContent((HttpContent)msg);
                }
                else
                {
                    ReferenceCountUtil.release(msg);
                }
            }
            else
            {
                dispatch(msg);
            }
        }
        if (held.isEmpty() && !closing)
        {
            ctx.channel().config().setAutoRead(true);
        }
    }

    @Override
    public void channelWritabilityChanged(final ChannelHandlerContext ctx)
    {
        if (current != null)
        {
            current.onClientWritability(ctx.channel().isWritable());
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(final ChannelHandlerContext ctx)
    {
        releaseHeld();
        final NettyExchange gone = current;
        current = null;
        if (gone != null)
        {
            gone.onClientGone();
        }
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
    {
        // A reset by the client, a failed write: the connection is over (channelInactive ends the exchange).
        ctx.close();
    }

    private void releaseHeld()
    {
        Object msg;
        while ((msg = held.pollFirst()) != null)
        {
            ReferenceCountUtil.release(msg);
        }
    }

    private static String message(final Throwable err)
    {
        return err == null || err.getMessage() == null ? "unreadable" : err.getMessage();
    }
}
