package io.multifactor.servers;

import io.multifactor.kernel.signal.ServerBackend;
import io.multifactor.kernel.signal.ServerKind;
import io.multifactor.kernel.signal.ServerLoadTable;
import io.multifactor.kernel.signal.ServerMetricsSettings;
import io.multifactor.kernel.signal.ServerSignals;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * Scrapes the {@code /metrics} of every backend of the models whose {@code server} is set, every
 * {@link ServerMetricsSettings#everyNs()}, on one agent thread, and stores what each good scrape said in the
 * {@link ServerLoadTable} of a {@link ServerSignals}: the engine's ({@code MultiFactorEngine.serverSignals()}), whose
 * settings and backends it follows (a change is picked up at the agent's next cycle, within 100 ms), or one of its own.
 * Each scrape is also counted there by result ({@link ServerLoadTable#countScrape}), for the {@code mf.server.scrapes}
 * counters. The URL is the backend's scheme, host and port plus the configured path.
 * <p>
 * Scrapes run concurrently (the JDK's {@code HttpClient}, asynchronous), so a slow server delays no other: each scrape
 * has its own deadline ({@link ServerMetricsSettings#timeoutNs()}), after which it is abandoned and counted as failed.
 * A body is read into a reused buffer up to {@link #MAX_BODY_BYTES}; a longer one is cut off and refused. A backend
 * whose scrape failed or was refused is retried after 2, 4, then at most 8 periods; its previous values go stale
 * meanwhile. Nothing a server sends is thrown: every outcome is counted ({@link #counts}).
 * <p>
 * Lifecycle: construct, {@link #start()}, then, with each new configuration, {@code engine.configureServers} (or
 * {@link #replace} for an agent with its own signals; the backends that stay keep their values and counts),
 * {@link #close()} to stop. Scheduling uses {@link System#nanoTime()}; response times in
 * the table use the given clock (the engine's), which must be threadsafe.
 * <p>
 * This class is threadsafe: {@link #table()}, {@link #counts}, {@link #replace} and {@link #close()} may be called from
 * any thread; everything else runs on the agent's thread.
 */
public final class ServerScrapeAgent implements AutoCloseable
{
    /** Largest body read: 4 MiB. */
    public static final int MAX_BODY_BYTES = 4 << 20;

    /** A buffer grown beyond this by a large body is released after its scrape, not kept. */
    static final int RETAINED_BUFFER_BYTES = 1 << 20;

    private static final int INITIAL_BUFFER_BYTES = 64 << 10;
    private static final int MAX_BACKOFF_SHIFT = 3;
    private static final long IDLE_PARK_NS = 100_000_000L;
    private static final long ERROR_PAUSE_NS = 10_000_000L;

    private final LongSupplier clockNs;
    private final ExecutorService httpExecutor;
    private final HttpClient client;
    private final ConcurrentLinkedQueue<Scrape> completed = new ConcurrentLinkedQueue<>();
    private final AtomicLong agentErrors = new AtomicLong();
    private final Map<ServerKind, ServerMetricsReader> readers = new EnumMap<>(ServerKind.class);
    private final Thread thread;
    private volatile boolean running = true;
    private volatile CacheSizeListener cacheSizesOrNull;
    private final ServerSignals signals;
    private volatile ServerLoadTable table;
    private volatile Map<String, Target> targetsByKey = Map.of();
    private ServerMetricsSettings settings;
    private List<Target> targets = new ArrayList<>();

    /**
     * An agent with signals of its own (not an engine's): for a router that reads the table itself.
     *
     * @param settings how often, where and for how long to scrape.
     * @param backends the backends to scrape.
     * @param clockNs the engine clock, for the times of responses and freshness.
     */
    public ServerScrapeAgent(
        final ServerMetricsSettings settings, final List<ServerBackend> backends, final LongSupplier clockNs)
    {
        this(ownSignals(Objects.requireNonNull(settings, "settings"), backends, clockNs), clockNs);
    }

    /**
     * An agent that feeds an engine's signals and follows their configuration.
     *
     * @param signals the signals to follow and write into ({@code engine.serverSignals()}).
     * @param clockNs the engine clock, for the times of responses and freshness ({@code engine.clock()::nanoTime}).
     */
    public ServerScrapeAgent(final ServerSignals signals, final LongSupplier clockNs)
    {
        this.clockNs = Objects.requireNonNull(clockNs, "clockNs");
        this.signals = Objects.requireNonNull(signals, "signals");
        this.settings = signals.settings() == null ? ServerMetricsSettings.every(ServerMetricsSettings.DEFAULT_EVERY_NS) :
            signals.settings();
        // The client's own tasks (connections, bodies) run here; a cached pool never starves one backend behind
        // another's, and its idle threads end on their own.
        httpExecutor = Executors.newCachedThreadPool(r ->
        {
            final Thread t = new Thread(r, "mf-server-scrape-http");
            t.setDaemon(true);
            return t;
        });
        client = HttpClient.newBuilder()
            .executor(httpExecutor)
            .version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
        for (final ServerKind kind : ServerKind.values())
        {
            readers.put(kind, new ServerMetricsReader(kind));
        }
        final ServerLoadTable first = signals.table();
        install(settings, signals.settings() == null ? List.of() : signals.backends(), first);
        table = first;
        thread = new Thread(this::run, "mf-server-scrape");
        thread.setDaemon(true);
    }

    /**
     * @param listenerOrNull told, on the agent's thread after each scrape that reports it, a backend's KV-cache size
     *     ({@code vllm:cache_config_info}); {@code null} to stop telling.
     * @return this.
     */
    public ServerScrapeAgent cacheSizes(final CacheSizeListener listenerOrNull)
    {
        cacheSizesOrNull = listenerOrNull;
        return this;
    }

    private static ServerSignals ownSignals(
        final ServerMetricsSettings settings, final List<ServerBackend> backends, final LongSupplier clockNs)
    {
        final ServerSignals own = new ServerSignals(clockNs.getAsLong());
        own.configure(settings, backends, clockNs.getAsLong());
        return own;
    }

    /** @return the signals this agent follows and writes into. */
    public ServerSignals signals()
    {
        return signals;
    }

    /**
     * Starts the agent's thread.
     *
     * @return this agent.
     */
    public ServerScrapeAgent start()
    {
        thread.start();
        return this;
    }

    /**
     * @return the current table of the signals; a new one after each reconfiguration. Read it again rather than
     *     keeping it across a reload.
     */
    public ServerLoadTable table()
    {
        return signals.table();
    }

    /**
     * Replaces the backend set and settings of the signals (for an agent with its own; with an engine's, call
     * {@code engine.configureServers}, which also follows the counters), applied on the agent's thread at its next
     * cycle: a backend that stays (same model, same origin) keeps its values, freshness and counts; one that leaves is
     * forgotten, its scrape in flight abandoned.
     *
     * @param settings the new settings.
     * @param backends the new backends.
     */
    public void replace(final ServerMetricsSettings settings, final List<ServerBackend> backends)
    {
        signals.configure(Objects.requireNonNull(settings, "settings"), List.copyOf(backends), clockNs.getAsLong());
        LockSupport.unpark(thread);
    }

    /**
     * @param model a model's name.
     * @param key a backend's {@link ServerBackend#key()}.
     * @return the counts of that backend's scrapes, or {@code null} when the agent does not scrape it.
     */
    public ScrapeCounts counts(final String model, final String key)
    {
        final Target target = targetsByKey.get(model + '\u0000' + key);
        return target == null ? null : target.counts();
    }

    /** Stops the agent's thread (waiting for it at most a few seconds) and abandons the scrapes in flight. */
    @Override
    public void close()
    {
        running = false;
        LockSupport.unpark(thread);
        try
        {
            if (thread.isAlive())
            {
                thread.join(TimeUnit.SECONDS.toMillis(5));
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        httpExecutor.shutdownNow();
    }

    private void run()
    {
        while (running)
        {
            try
            {
                cycle();
            }
            catch (final RuntimeException ex)
            {
                // A bug here must not end the scraping: count it, let the values go stale, retry shortly.
                agentErrors.lazySet(agentErrors.get() + 1);
                LockSupport.parkNanos(this, ERROR_PAUSE_NS);
            }
        }
        for (final Target target : targets)
        {
            final Scrape inflight = target.inflight;
            if (inflight != null)
            {
                target.inflight = null;
                inflight.subscriber.abandon();
                inflight.future.cancel(true);
            }
        }
    }

    /** @return how many cycles of the agent ended in an unexpected exception (0 unless the agent has a bug). */
    public long agentErrors()
    {
        return agentErrors.get();
    }

    private void cycle()
    {
        final ServerLoadTable current = signals.table();
        if (current != table)
        {
            final ServerMetricsSettings next = signals.settings();
            install(next == null ? settings : next, next == null ? List.of() : signals.backends(), current);
            table = current;
        }
        Scrape done;
        while ((done = completed.poll()) != null)
        {
            finish(done);
        }
        final long now = System.nanoTime();
        long wakeAt = now + IDLE_PARK_NS;
        for (final Target target : targets)
        {
            final Scrape inflight = target.inflight;
            if (inflight != null)
            {
                if (now - inflight.startNs >= settings.timeoutNs())
                {
                    target.inflight = null;
                    target.buffer = null; // the abandoned read may still write into it
                    inflight.subscriber.abandon();
                    inflight.future.cancel(true);
                    target.failed(now, settings.everyNs());
                    count(target, ServerLoadTable.SCRAPE_FAILED);
                }
                else
                {
                    wakeAt = Math.min(wakeAt, inflight.startNs + settings.timeoutNs());
                    continue;
                }
            }
            if (now - target.nextDueNs >= 0)
            {
                begin(target, now);
                wakeAt = Math.min(wakeAt, now + settings.timeoutNs());
            }
            else
            {
                wakeAt = Math.min(wakeAt, target.nextDueNs);
            }
        }
        final long parkNs = wakeAt - System.nanoTime();
        if (parkNs > 0 && completed.isEmpty() && signals.table() == table && running)
        {
            LockSupport.parkNanos(this, parkNs);
        }
    }

    private void install(final ServerMetricsSettings next, final List<ServerBackend> backends, final ServerLoadTable t)
    {
        final Map<String, Target> old = new HashMap<>();
        for (final Target target : targets)
        {
            old.put(target.name, target);
        }
        final boolean sameRequests = next.path().equals(settings.path()) && next.timeoutNs() == settings.timeoutNs();
        final List<Target> nextTargets = new ArrayList<>();
        final Map<String, Target> byKey = new HashMap<>();
        for (final ServerBackend backend : backends)
        {
            final String name = backend.model() + '\u0000' + backend.key();
            if (byKey.containsKey(name))
            {
                continue;
            }
            Target target = old.remove(name);
            if (target == null)
            {
                target = new Target(name, backend, request(backend, next), System.nanoTime());
            }
            else if (!sameRequests)
            {
                target.request = request(backend, next);
            }
            target.tableIndex = t.backendIndex(backend.model(), backend.key());
            nextTargets.add(target);
            byKey.put(name, target);
        }
        for (final Target gone : old.values())
        {
            final Scrape inflight = gone.inflight;
            if (inflight != null)
            {
                gone.inflight = null;
                inflight.subscriber.abandon();
                inflight.future.cancel(true);
            }
        }
        settings = next;
        targets = nextTargets;
        targetsByKey = Map.copyOf(byKey);
    }

    private static HttpRequest request(final ServerBackend backend, final ServerMetricsSettings settings)
    {
        final URI uri;
        try
        {
            uri = new URI(backend.https() ? "https" : "http", null, backend.host(), backend.port(), settings.path(), null,
                null);
        }
        catch (final URISyntaxException ex)
        {
            throw new IllegalArgumentException("no metrics URL for " + backend.key() + settings.path(), ex);
        }
        return HttpRequest.newBuilder(uri)
            .GET()
            .timeout(Duration.ofNanos(settings.timeoutNs()))
            .header("Accept", "text/plain;version=0.0.4")
            .build();
    }

    private void begin(final Target target, final long now)
    {
        if (target.buffer == null)
        {
            target.buffer = new byte[INITIAL_BUFFER_BYTES];
        }
        final BoundedBodySubscriber subscriber = new BoundedBodySubscriber(target.buffer, MAX_BODY_BYTES);
        final Scrape scrape = new Scrape(target, subscriber, now);
        target.inflight = scrape;
        target.nextDueNs = now + settings.everyNs();
        final CompletableFuture<HttpResponse<Integer>> future;
        try
        {
            future = client.sendAsync(target.request, info -> info.statusCode() / 100 == 2
                ? subscriber
                : HttpResponse.BodySubscribers.replacing(BoundedBodySubscriber.ABANDONED));
        }
        catch (final RuntimeException ex)
        {
            target.inflight = null;
            target.failed(now, settings.everyNs());
            count(target, ServerLoadTable.SCRAPE_FAILED);
            return;
        }
        scrape.future = future;
        future.whenComplete((response, error) ->
        {
            scrape.response = response;
            scrape.error = error;
            completed.offer(scrape);
            LockSupport.unpark(thread);
        });
    }

    private void finish(final Scrape scrape)
    {
        final Target target = scrape.target;
        if (target.inflight != scrape)
        {
            return; // abandoned: timed out, or its backend left
        }
        target.inflight = null;
        final long now = System.nanoTime();
        final HttpResponse<Integer> response = scrape.response;
        if (scrape.error != null || response == null || response.statusCode() / 100 != 2 || response.body() == null)
        {
            target.failed(now, settings.everyNs());
            count(target, ServerLoadTable.SCRAPE_FAILED);
            return;
        }
        final int length = response.body();
        final byte[] body = scrape.subscriber.buffer();
        target.buffer = body.length > RETAINED_BUFFER_BYTES ? null : body;
        if (length < 0)
        {
            target.refused(now, settings.everyNs());
            count(target, ServerLoadTable.SCRAPE_REFUSED);
            return;
        }
        final ServerMetricsReader reader = readers.get(target.backend.kind());
        final boolean usable = reader.read(body, 0, length);
        final CacheSizeListener cacheSizes = cacheSizesOrNull;
        if (cacheSizes != null && reader.numGpuBlocks() > 0 && reader.blockSizeTokens() > 0)
        {
            cacheSizes.cacheSize(target.backend.key(), reader.numGpuBlocks(), reader.blockSizeTokens());
        }
        target.linesMalformed.lazySet(target.linesMalformed.get() + reader.linesMalformed());
        target.samplesRefused.lazySet(target.samplesRefused.get() + reader.samplesRefused());
        if (usable && target.tableIndex != ServerLoadTable.NOT_FOUND &&
            table.recordLoad(target.tableIndex, reader.waiting(), reader.running(), reader.kvUse(), clockNs.getAsLong()))
        {
            target.ok();
            count(target, ServerLoadTable.SCRAPE_OK);
        }
        else
        {
            target.refused(now, settings.everyNs());
            count(target, ServerLoadTable.SCRAPE_REFUSED);
        }
    }

    private void count(final Target target, final int result)
    {
        if (target.tableIndex != ServerLoadTable.NOT_FOUND)
        {
            table.countScrape(target.tableIndex, result);
        }
    }

    /** One scrape in flight. Written by the agent and, once, by the client's completion; handed over by the queue. */
    private static final class Scrape
    {
        final Target target;
        final BoundedBodySubscriber subscriber;
        final long startNs;
        CompletableFuture<HttpResponse<Integer>> future = new CompletableFuture<>();
        HttpResponse<Integer> response;
        Throwable error;

        Scrape(final Target target, final BoundedBodySubscriber subscriber, final long startNs)
        {
            this.target = target;
            this.subscriber = subscriber;
            this.startNs = startNs;
        }
    }

    /** One backend's scrape state, owned by the agent's thread; its counts are read from any thread. */
    private static final class Target
    {
        final String name;
        final ServerBackend backend;
        final AtomicLong ok = new AtomicLong();
        final AtomicLong failed = new AtomicLong();
        final AtomicLong refused = new AtomicLong();
        final AtomicLong linesMalformed = new AtomicLong();
        final AtomicLong samplesRefused = new AtomicLong();
        HttpRequest request;
        int tableIndex;
        long nextDueNs;
        int failuresInRow;
        Scrape inflight;
        byte[] buffer;

        Target(final String name, final ServerBackend backend, final HttpRequest request, final long nowNs)
        {
            this.name = name;
            this.backend = backend;
            this.request = request;
            this.nextDueNs = nowNs;
        }

        void ok()
        {
            failuresInRow = 0;
            ok.lazySet(ok.get() + 1);
        }

        void failed(final long nowNs, final long everyNs)
        {
            failed.lazySet(failed.get() + 1);
            backOff(nowNs, everyNs);
        }

        void refused(final long nowNs, final long everyNs)
        {
            refused.lazySet(refused.get() + 1);
            backOff(nowNs, everyNs);
        }

        private void backOff(final long nowNs, final long everyNs)
        {
            failuresInRow = Math.min(failuresInRow + 1, MAX_BACKOFF_SHIFT);
            nextDueNs = nowNs + (everyNs << failuresInRow);
        }

        ScrapeCounts counts()
        {
            return new ScrapeCounts(ok.get(), failed.get(), refused.get(), linesMalformed.get(), samplesRefused.get());
        }
    }
}
