package io.multifactor.gateway;

import java.util.Locale;

/**
 * Which HTTP stack serves a {@link Gateway}'s requests ({@code bin/mf serve --server vertx|netty}): both run the same
 * request lifecycle of {@code mf-serving}, so they differ only in the code between the sockets and that lifecycle.
 * <p>
 * This enum is immutable and threadsafe.
 */
public enum GatewayServer
{
    /** Vert.x core's HTTP/1.1 server and pooled client (the default). */
    VERTX,
    /** Netty's HTTP/1.1 codecs used directly, with the gateway's own upstream connection pool. */
    NETTY;

    /** @return the name {@code --server} takes: {@code vertx} or {@code netty}. */
    public String flag()
    {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @param flag {@code vertx} or {@code netty} (case ignored).
     * @return the server it names, or {@code null} when it names none.
     */
    public static GatewayServer ofFlag(final String flag)
    {
        for (final GatewayServer server : values())
        {
            if (server.flag().equalsIgnoreCase(flag))
            {
                return server;
            }
        }
        return null;
    }
}
