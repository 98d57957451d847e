package io.multifactor.kernel.signal;

import java.util.List;
import java.util.Objects;

/**
 * The engine's model-server signals: how the backends are scraped ({@code signals.server_metrics}, or none), which
 * backends there are, and the {@link ServerLoadTable} that holds what each last said. The engine owns one; the scrape
 * agent follows {@link #table()} and writes into it, and a gateway feeds ORCA load reports through {@link #report}.
 * <p>
 * {@link #configure} makes a new table with {@link ServerLoadTable#successor}, so a backend that stays (same model, same
 * origin) keeps its values, freshness and counts, and a model that stays keeps the time it appeared. A write racing a
 * {@code configure} may land in the table being replaced and be lost; the next scrape fills it in again.
 * <p>
 * This class is threadsafe: {@link #configure} serializes on this object; {@link #table()}, {@link #settings()},
 * {@link #backends()} are volatile reads and {@link #report} may be called from any thread, allocating nothing.
 */
public final class ServerSignals
{
    private static final long UNUSED_STALE_AFTER_NS = 1L;

    private volatile ServerMetricsSettings settings;
    private volatile List<ServerBackend> backends;
    private volatile ServerLoadTable table;

    /**
     * Signals with nothing configured: no backend, nothing scraped.
     *
     * @param nowNs the engine clock now.
     */
    public ServerSignals(final long nowNs)
    {
        backends = List.of();
        table = new ServerLoadTable(List.of(), UNUSED_STALE_AFTER_NS, nowNs);
    }

    /**
     * Replaces the settings and the backends.
     *
     * @param settingsOrNull how the backends are scraped, or {@code null} to scrape nothing (then every backend is
     *     forgotten: no model has server signals).
     * @param nextBackends the backends of the models whose {@code server} is set (ignored without settings).
     * @param nowNs the engine clock now: when the models new to the table appeared.
     * @return the new table.
     */
    public synchronized ServerLoadTable configure(
        final ServerMetricsSettings settingsOrNull, final List<ServerBackend> nextBackends, final long nowNs)
    {
        final List<ServerBackend> kept = settingsOrNull == null ? List.of() : List.copyOf(nextBackends);
        final long staleAfterNs = settingsOrNull == null ? UNUSED_STALE_AFTER_NS : settingsOrNull.staleAfterNs();
        final ServerLoadTable next = ServerLoadTable.successor(table, kept, staleAfterNs, nowNs);
        backends = kept;
        settings = settingsOrNull;
        table = next;
        return next;
    }

    /** @return how the backends are scraped, or {@code null} when server metrics are off. */
    public ServerMetricsSettings settings()
    {
        return settings;
    }

    /** @return the backends scraped, in configuration order (empty when off). */
    public List<ServerBackend> backends()
    {
        return backends;
    }

    /** @return the current table; read it again rather than keeping it across a {@link #configure}. */
    public ServerLoadTable table()
    {
        return table;
    }

    /**
     * Stores a backend's load from an ORCA report (or any source other than a scrape): it counts as a good scrape that
     * answered at {@code nowNs}. Any thread; two map lookups and the table's write, allocating nothing.
     *
     * @param model the model's name.
     * @param backendKey the backend's {@link ServerBackend#key()}.
     * @param waiting waiting requests, finite and >= 0, or NaN when not reported.
     * @param running running requests, or NaN when not reported.
     * @param kvUse KV-cache use in [0, 1], or NaN when not reported (not both NaN).
     * @param nowNs the engine clock now.
     * @return whether the values were taken: {@code false} when the model's server is not scraped, the backend is not
     *     one of it, or a value is out of range (then counted as a refused scrape of that backend).
     */
    public boolean report(
        final String model, final String backendKey, final double waiting, final double running, final double kvUse,
        final long nowNs)
    {
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(backendKey, "backendKey");
        final ServerLoadTable t = table;
        final int backend = t.backendIndex(model, backendKey);
        if (backend == ServerLoadTable.NOT_FOUND)
        {
            return false;
        }
        final boolean stored = t.recordLoad(backend, waiting, running, kvUse, nowNs);
        t.countScrape(backend, stored ? ServerLoadTable.SCRAPE_OK : ServerLoadTable.SCRAPE_REFUSED);
        return stored;
    }

    @Override
    public String toString()
    {
        return "ServerSignals{settings=" + settings + ", table=" + table + '}';
    }
}
