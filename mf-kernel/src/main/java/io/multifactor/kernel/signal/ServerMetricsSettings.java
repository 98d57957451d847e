package io.multifactor.kernel.signal;

import java.util.Objects;

/**
 * How the backends' metrics are scraped and how long what they said stays fresh ({@code signals.server_metrics} in
 * the YAML).
 * <p>
 * Instances are immutable and threadsafe.
 */
public final class ServerMetricsSettings
{
    /** Default scrape period: 500 ms. */
    public static final long DEFAULT_EVERY_NS = 500_000_000L;

    /** Shortest scrape period: 50 ms. */
    public static final long MIN_EVERY_NS = 50_000_000L;

    /** Default metrics path. */
    public static final String DEFAULT_PATH = "/metrics";

    private final long everyNs;
    private final String path;
    private final long timeoutNs;
    private final long staleAfterNs;
    private final WhenStale whenStale;

    /**
     * @param everyNs scrape period of each backend, at least {@link #MIN_EVERY_NS}.
     * @param path the metrics path, starting with {@code /}.
     * @param timeoutNs time a scrape may take, positive.
     * @param staleAfterNs time a good scrape's values stay fresh, positive.
     * @param whenStale what all-stale backends mean to a decision with a queue or KV-cache ceiling.
     * @throws IllegalArgumentException when a value is out of range.
     */
    public ServerMetricsSettings(
        final long everyNs, final String path, final long timeoutNs, final long staleAfterNs, final WhenStale whenStale)
    {
        if (everyNs < MIN_EVERY_NS)
        {
            throw new IllegalArgumentException("every must be at least 50ms: " + everyNs + " ns");
        }
        if (timeoutNs <= 0 || staleAfterNs <= 0)
        {
            throw new IllegalArgumentException("timeout and stale_after must be positive: " + timeoutNs + " ns, " +
                staleAfterNs + " ns");
        }
        if (!Objects.requireNonNull(path, "path").startsWith("/"))
        {
            throw new IllegalArgumentException("path must start with /: " + path);
        }
        this.everyNs = everyNs;
        this.path = path;
        this.timeoutNs = timeoutNs;
        this.staleAfterNs = staleAfterNs;
        this.whenStale = Objects.requireNonNull(whenStale, "whenStale");
    }

    /**
     * @param everyNs scrape period, at least {@link #MIN_EVERY_NS}.
     * @return settings with that period and every other value at its default: path {@code /metrics}, timeout half the
     *     period, stale after four periods, stale values ignored.
     */
    public static ServerMetricsSettings every(final long everyNs)
    {
        return new ServerMetricsSettings(everyNs, DEFAULT_PATH, everyNs / 2, 4 * everyNs, WhenStale.IGNORE);
    }

    /** @return scrape period of each backend, in nanoseconds. */
    public long everyNs()
    {
        return everyNs;
    }

    /** @return the metrics path, starting with {@code /}. */
    public String path()
    {
        return path;
    }

    /** @return time one scrape may take, in nanoseconds. */
    public long timeoutNs()
    {
        return timeoutNs;
    }

    /** @return time a good scrape's values stay fresh, in nanoseconds. */
    public long staleAfterNs()
    {
        return staleAfterNs;
    }

    /** @return what all-stale backends mean to a decision with a queue or KV-cache ceiling. */
    public WhenStale whenStale()
    {
        return whenStale;
    }

    @Override
    public boolean equals(final Object other)
    {
        return other instanceof ServerMetricsSettings that && everyNs == that.everyNs && path.equals(that.path) &&
            timeoutNs == that.timeoutNs && staleAfterNs == that.staleAfterNs && whenStale == that.whenStale;
    }

    @Override
    public int hashCode()
    {
        return Objects.hash(everyNs, path, timeoutNs, staleAfterNs, whenStale);
    }

    @Override
    public String toString()
    {
        return "ServerMetricsSettings{everyNs=" + everyNs + ", path=" + path + ", timeoutNs=" + timeoutNs +
            ", staleAfterNs=" + staleAfterNs + ", whenStale=" + whenStale.configName() + '}';
    }
}
