package io.multifactor.kernel.engine;

import io.multifactor.kernel.metrics.CounterLabel;
import io.multifactor.kernel.metrics.CounterTypes;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.scoring.CandidateSignals;
import io.multifactor.kernel.signal.ServerLoadTable;
import io.multifactor.kernel.signal.ServerSignals;
import org.agrona.concurrent.AtomicBuffer;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Publishes the model-server signals: per model handle, from the engine's {@link ServerSignals}, the queue W(m) (smallest waiting count among its fresh backends), the KV-cache use
 * K(m) (smallest among its fresh backends), both NaN when none is fresh, and whether the model is stale (it has
 * {@code server} set, none of its backends is fresh, and the grace of one {@code stale_after} since the engine started
 * or the model appeared is over); then the same per decision, in candidate order, into each decision's candidate
 * signals; and into the {@code mf.server.*} counters of the table they were allocated for:
 * <pre>
 *   mf.server.queue{model}             W(m) rounded, -1 when missing (a gauge)
 *   mf.server.kv_cache{model}          K(m) in millionths, -1 when missing (a gauge)
 *   mf.server.scrapes{backend,result}  scrapes by result: ok, failed, refused (a load report counts as one)
 *   mf.server.fresh{backend}           1 while the backend is fresh, else 0 (a gauge)
 * </pre>
 * A backend is tagged with its origin ({@code http://host:port}); when two models list the same origin, its scrapes
 * are added up and it is fresh when either is.
 * <p>
 * This class is not threadsafe: everything runs under the engine's lock (refresh, plan installation); its release
 * stores make what it publishes safe to read from any thread. It allocates only when the plans or the table changed.
 */
final class ServerLoadPublisher
{
    /** Results in counter order: the labels of {@link ServerLoadTable#SCRAPE_OK} .. {@code SCRAPE_REFUSED}. */
    static final String[] SCRAPE_RESULTS = {"ok", "failed", "refused"};

    /** A KV-cache use of 1.0 is this counter value. */
    static final long KV_CACHE_UNITS = 1_000_000L;

    private final ServerSignals signals;
    private final AtomicBuffer values;

    // Under lock: the handle -> table model map of (mappedPlans, mappedTable), and the values of the last publication.
    private Plans mappedPlans;
    private ServerLoadTable mappedTable;
    private int[] tableModelByHandle = new int[0];
    private double[] queueByHandle = new double[0];
    private double[] kvCacheByHandle = new double[0];
    private boolean[] staleByHandle = new boolean[0];

    // Under lock: the counters of the current generation (allocated for one table), and those being built.
    private Counters counters = Counters.NONE;
    private Counters pending;

    ServerLoadPublisher(final ServerSignals signals, final AtomicBuffer values)
    {
        this.signals = signals;
        this.values = values;
    }

    /** @return the engine's server signals. */
    ServerSignals signals()
    {
        return signals;
    }

    /**
     * Under lock, inside a counters generation: allocates (or finds) the {@code mf.server.*} counters of the current
     * table, made current by {@link #commitCounters()}.
     *
     * @param layout the engine's counter layout.
     */
    void allocateCounters(final CounterLayout layout)
    {
        final ServerLoadTable t = signals.table();
        final int models = t.modelCount();
        final int backends = t.backendCount();
        final int[] queueOffsets = new int[models];
        final int[] kvOffsets = new int[models];
        for (int m = 0; m < models; m++)
        {
            final String model = t.modelName(m);
            queueOffsets[m] = layout.offsetOf(
                CounterLabel.format("mf.server.queue", "model", model), CounterTypes.SERVER_QUEUE);
            kvOffsets[m] = layout.offsetOf(
                CounterLabel.format("mf.server.kv_cache", "model", model), CounterTypes.SERVER_KV_CACHE);
        }
        final Map<String, Integer> origins = new HashMap<>();
        final int[] originOf = new int[backends];
        for (int b = 0; b < backends; b++)
        {
            originOf[b] = origins.computeIfAbsent(t.backendKey(b), k -> origins.size());
        }
        final int[] freshOffsets = new int[origins.size()];
        final int[] scrapeOffsets = new int[origins.size() * ServerLoadTable.SCRAPE_RESULTS];
        for (final Map.Entry<String, Integer> origin : origins.entrySet())
        {
            final int o = origin.getValue();
            freshOffsets[o] = layout.offsetOf(
                CounterLabel.format("mf.server.fresh", "backend", origin.getKey()), CounterTypes.SERVER_FRESH);
            for (int r = 0; r < ServerLoadTable.SCRAPE_RESULTS; r++)
            {
                scrapeOffsets[o * ServerLoadTable.SCRAPE_RESULTS + r] = layout.offsetOf(CounterLabel.format(
                    "mf.server.scrapes", "backend", origin.getKey(), "result", SCRAPE_RESULTS[r]),
                    CounterTypes.SERVER_SCRAPES);
            }
        }
        pending = new Counters(t, queueOffsets, kvOffsets, originOf, freshOffsets, scrapeOffsets);
    }

    /** Under lock: the counters allocated by the last {@link #allocateCounters} become the current ones. */
    void commitCounters()
    {
        if (pending != null)
        {
            counters = pending;
            pending = null;
        }
    }

    /** Under lock: forgets the counters of a generation that was aborted. */
    void abortCounters()
    {
        pending = null;
    }

    /**
     * Under lock: computes and publishes the server signals of a state at {@code nowNs}.
     *
     * @param s the state to publish into.
     * @param nowNs the engine clock now.
     */
    void publish(final EngineState s, final long nowNs)
    {
        final ServerLoadTable t = signals.table();
        if (s.plans != mappedPlans || t != mappedTable)
        {
            remap(s.plans, t);
        }
        final int[] tableModel = tableModelByHandle;
        for (int modelId = 0; modelId < tableModel.length; modelId++)
        {
            final int m = tableModel[modelId];
            if (m == ServerLoadTable.NOT_FOUND)
            {
                continue;
            }
            queueByHandle[modelId] = t.queue(m, nowNs);
            kvCacheByHandle[modelId] = t.kvCache(m, nowNs);
            staleByHandle[modelId] = t.stale(m, nowNs);
        }
        if (counters.table == t)
        {
            publishCounters(t, nowNs);
        }
        // The same per decision, in candidate order: what select reads.
        final LiveDecision[] decisions = s.decisions;
        for (int decisionId = 0; decisionId < decisions.length; decisionId++)
        {
            final LiveDecision decision = decisions[decisionId];
            if (decision == null)
            {
                continue;
            }
            final CandidateSignals candidates = decision.signals;
            final DecisionPlan plan = decision.plan;
            final int n = candidates.candidateCount();
            // A decision none of whose candidates has server signals is left alone: its kernel then reads none.
            boolean scraped = candidates.hasServerSignals();
            for (int i = 0; i < n && !scraped; i++)
            {
                scraped = tableModel[plan.candidateModelId(i)] != ServerLoadTable.NOT_FOUND;
            }
            for (int i = 0; scraped && i < n; i++)
            {
                final int modelId = plan.candidateModelId(i);
                candidates.publishServerLoad(i, queueByHandle[modelId], kvCacheByHandle[modelId], staleByHandle[modelId]);
            }
            if (scraped)
            {
                candidates.seal(plan);
            }
        }
    }

    /**
     * @param modelId a model handle of the plans last published.
     * @return its W(m), NaN when missing or not a model with server signals.
     */
    double queue(final int modelId)
    {
        return modelId >= 0 && modelId < queueByHandle.length ? queueByHandle[modelId] : Double.NaN;
    }

    /**
     * @param modelId a model handle of the plans last published.
     * @return its K(m), NaN when missing or not a model with server signals.
     */
    double kvCache(final int modelId)
    {
        return modelId >= 0 && modelId < kvCacheByHandle.length ? kvCacheByHandle[modelId] : Double.NaN;
    }

    /**
     * @param modelId a model handle of the plans last published.
     * @return whether it is stale (false for a model without server signals).
     */
    boolean stale(final int modelId)
    {
        return modelId >= 0 && modelId < staleByHandle.length && staleByHandle[modelId];
    }

    private void publishCounters(final ServerLoadTable t, final long nowNs)
    {
        final Counters c = counters;
        for (int m = 0; m < c.queueOffsets.length; m++)
        {
            final double queue = t.queue(m, nowNs);
            final double kv = t.kvCache(m, nowNs);
            values.putLongRelease(c.queueOffsets[m], Double.isNaN(queue) ? -1L : Math.round(queue));
            values.putLongRelease(c.kvOffsets[m], Double.isNaN(kv) ? -1L : Math.round(kv * KV_CACHE_UNITS));
        }
        final long[] sums = c.scratch;
        Arrays.fill(sums, 0L);
        final boolean[] fresh = c.freshScratch;
        Arrays.fill(fresh, false);
        for (int b = 0; b < c.originOf.length; b++)
        {
            final int o = c.originOf[b];
            fresh[o] |= t.isFresh(b, nowNs);
            for (int r = 0; r < ServerLoadTable.SCRAPE_RESULTS; r++)
            {
                sums[o * ServerLoadTable.SCRAPE_RESULTS + r] += t.scrapes(b, r);
            }
        }
        for (int o = 0; o < c.freshOffsets.length; o++)
        {
            values.putLongRelease(c.freshOffsets[o], fresh[o] ? 1L : 0L);
        }
        for (int i = 0; i < c.scrapeOffsets.length; i++)
        {
            values.putLongRelease(c.scrapeOffsets[i], sums[i]);
        }
    }

    private void remap(final Plans plans, final ServerLoadTable t)
    {
        final int capacity = plans.modelCapacity();
        final int[] map = new int[capacity];
        Arrays.fill(map, ServerLoadTable.NOT_FOUND);
        for (int modelId = 0; modelId < capacity; modelId++)
        {
            final String name = plans.modelName(modelId);
            if (name != null)
            {
                map[modelId] = t.modelIndex(name);
            }
        }
        final double[] queue = new double[capacity];
        final double[] kv = new double[capacity];
        Arrays.fill(queue, Double.NaN);
        Arrays.fill(kv, Double.NaN);
        tableModelByHandle = map;
        queueByHandle = queue;
        kvCacheByHandle = kv;
        staleByHandle = new boolean[capacity];
        mappedPlans = plans;
        mappedTable = t;
    }

    /** The value offsets of the {@code mf.server.*} counters of one table, and the scratch its publication uses. */
    private static final class Counters
    {
        static final Counters NONE = new Counters(null, new int[0], new int[0], new int[0], new int[0], new int[0]);

        final ServerLoadTable table;
        final int[] queueOffsets;
        final int[] kvOffsets;
        final int[] originOf;
        final int[] freshOffsets;
        final int[] scrapeOffsets;
        final long[] scratch;
        final boolean[] freshScratch;

        Counters(
            final ServerLoadTable table,
            final int[] queueOffsets,
            final int[] kvOffsets,
            final int[] originOf,
            final int[] freshOffsets,
            final int[] scrapeOffsets)
        {
            this.table = table;
            this.queueOffsets = queueOffsets;
            this.kvOffsets = kvOffsets;
            this.originOf = originOf;
            this.freshOffsets = freshOffsets;
            this.scrapeOffsets = scrapeOffsets;
            this.scratch = new long[scrapeOffsets.length];
            this.freshScratch = new boolean[freshOffsets.length];
        }
    }
}
