package io.multifactor.config.model;

/**
 * The optional {@code fleet:} block: share signals with the other replicas of a router through Redis. The
 * configuration only carries the values; the embedding program wires the exchange ({@code mf-redis}), so that
 * {@code mf-config} needs no Redis client.
 * <p>
 * Instances are immutable and threadsafe. {@link #toString()} never shows the URL's credentials.
 *
 * @param redisUrl {@code redis://} or {@code rediss://} URL (may hold a password), or null when no fleet is configured.
 * @param cluster key namespace shared by the replicas of one fleet.
 * @param exchangeEveryNs the exchange period, at least {@link #MIN_EXCHANGE_EVERY_NS}.
 */
public record FleetConfig(String redisUrl, String cluster, long exchangeEveryNs)
{
    /** Default cluster: {@code mf}. */
    public static final String DEFAULT_CLUSTER = "mf";

    /** Default exchange period: 250 ms. */
    public static final long DEFAULT_EXCHANGE_EVERY_NS = 250_000_000L;

    /** Shortest exchange period: 50 ms. */
    public static final long MIN_EXCHANGE_EVERY_NS = 50_000_000L;

    /** No {@code fleet:} block: the engine uses its own signals only. */
    public static final FleetConfig NONE = new FleetConfig(null, DEFAULT_CLUSTER, DEFAULT_EXCHANGE_EVERY_NS);

    /** @return whether a fleet is configured. */
    public boolean enabled()
    {
        return redisUrl != null;
    }

    /**
     * @param url a Redis URL.
     * @return its scheme, host, port and database, without user information, query or fragment.
     */
    public static String redact(final String url)
    {
        final int scheme = url.indexOf("://");
        if (scheme < 0)
        {
            return "(not a URL)";
        }
        String rest = url.substring(scheme + 3);
        for (final char end : new char[] {'?', '#'})
        {
            final int at = rest.indexOf(end);
            if (at >= 0)
            {
                rest = rest.substring(0, at);
            }
        }
        final int at = rest.lastIndexOf('@');
        return url.substring(0, scheme + 3) + (at >= 0 ? rest.substring(at + 1) : rest);
    }

    @Override
    public String toString()
    {
        return "FleetConfig[redisUrl=" + (redisUrl == null ? "none" : redact(redisUrl)) + ", cluster=" + cluster +
            ", exchangeEveryNs=" + exchangeEveryNs + "]";
    }
}
