package io.multifactor.redis;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;

/**
 * What a {@link RedisFleetExchange} needs: the server's URL ({@code redis://} or {@code rediss://}, password in the URL
 * or in the environment variable {@link #PASSWORD_ENV}), the cluster (key namespace), the exchange period and this
 * replica's id (unique by default: host, process id and a random suffix).
 * <p>
 * {@link #toString()} never shows a credential. Instances are immutable and threadsafe.
 */
public final class RedisFleetSettings
{
    /** Environment variable read for the password when the URL has none. */
    public static final String PASSWORD_ENV = "MF_REDIS_PASSWORD";

    /** Shortest exchange period: 50 ms. */
    public static final Duration MIN_PERIOD = Duration.ofMillis(50);

    /** Default exchange period: 250 ms. */
    public static final Duration DEFAULT_PERIOD = Duration.ofMillis(250);

    /** Default cluster name. */
    public static final String DEFAULT_CLUSTER = "mf";

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.:-]{1,64}");

    private final String redisUrl;
    private final String cluster;
    private final Duration period;
    private final String replicaId;

    private RedisFleetSettings(final String redisUrl, final String cluster, final Duration period, final String replicaId)
    {
        this.redisUrl = redisUrl;
        this.cluster = cluster;
        this.period = period;
        this.replicaId = replicaId;
    }

    /**
     * @param redisUrl {@code redis://[:password@]host[:port][/db]} or {@code rediss://...}.
     * @param cluster key namespace shared by the replicas of one fleet.
     * @param period the exchange period, at least {@link #MIN_PERIOD}.
     * @return settings with a unique replica id.
     * @throws IllegalArgumentException when a value is out of range (the message never holds the URL's credentials).
     */
    public static RedisFleetSettings of(final String redisUrl, final String cluster, final Duration period)
    {
        return of(redisUrl, cluster, period, uniqueReplicaId());
    }

    /**
     * @param redisUrl {@code redis://[:password@]host[:port][/db]} or {@code rediss://...}.
     * @param cluster key namespace shared by the replicas of one fleet.
     * @param period the exchange period, at least {@link #MIN_PERIOD}.
     * @param replicaId this replica's id, unique in the cluster.
     * @return the settings.
     * @throws IllegalArgumentException when a value is out of range (the message never holds the URL's credentials).
     */
    public static RedisFleetSettings of(
        final String redisUrl, final String cluster, final Duration period, final String replicaId)
    {
        Objects.requireNonNull(redisUrl, "redisUrl");
        if (!redisUrl.startsWith("redis://") && !redisUrl.startsWith("rediss://"))
        {
            throw new IllegalArgumentException("fleet redis URL must start with redis:// or rediss://");
        }
        if (!NAME.matcher(cluster).matches())
        {
            throw new IllegalArgumentException("fleet cluster must be 1-64 of [A-Za-z0-9_.:-]: " + cluster);
        }
        if (period.compareTo(MIN_PERIOD) < 0)
        {
            throw new IllegalArgumentException("fleet exchange period must be at least 50ms: " + period.toMillis() + "ms");
        }
        if (replicaId.isEmpty() || replicaId.length() > 128)
        {
            throw new IllegalArgumentException("replica id must be 1-128 characters: " + replicaId);
        }
        return new RedisFleetSettings(redisUrl, cluster, period, replicaId);
    }

    /** @return a replica id unique with high probability: host name, process id, 32 random bits. */
    public static String uniqueReplicaId()
    {
        String host;
        try
        {
            host = InetAddress.getLocalHost().getHostName();
        }
        catch (final UnknownHostException ex)
        {
            host = "host";
        }
        final long pid = ProcessHandle.current().pid();
        final String id = host + "-" + pid + "-" + Integer.toHexString(ThreadLocalRandom.current().nextInt());
        return id.length() > 128 ? id.substring(id.length() - 128) : id;
    }

    /** @return the URL as given (may hold a password: never log it; use {@link #redactedUrl()}). */
    String redisUrl()
    {
        return redisUrl;
    }

    /** @return the URL without user information, query or fragment, for logs and errors. */
    public String redactedUrl()
    {
        return redact(redisUrl);
    }

    /** @return the cluster name. */
    public String cluster()
    {
        return cluster;
    }

    /** @return the exchange period. */
    public Duration period()
    {
        return period;
    }

    /** @return this replica's id. */
    public String replicaId()
    {
        return replicaId;
    }

    /**
     * @param url a Redis URL.
     * @return the scheme, host, port and path of the URL, with any user information removed.
     */
    static String redact(final String url)
    {
        final int scheme = url.indexOf("://");
        if (scheme < 0)
        {
            return "(redis URL)";
        }
        String rest = url.substring(scheme + 3);
        final int end = firstOf(rest, '?', '#');
        rest = rest.substring(0, end);
        final int at = rest.lastIndexOf('@');
        if (at >= 0)
        {
            rest = rest.substring(at + 1);
        }
        return url.substring(0, scheme + 3) + rest;
    }

    private static int firstOf(final String text, final char a, final char b)
    {
        final int i = text.indexOf(a);
        final int j = text.indexOf(b);
        if (i < 0)
        {
            return j < 0 ? text.length() : j;
        }
        return j < 0 ? i : Math.min(i, j);
    }

    @Override
    public String toString()
    {
        return "RedisFleetSettings{" + redactedUrl() + ", cluster=" + cluster + ", period=" + period.toMillis() +
            "ms, replica=" + replicaId + "}";
    }
}
