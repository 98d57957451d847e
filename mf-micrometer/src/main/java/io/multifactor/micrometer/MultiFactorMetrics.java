package io.multifactor.micrometer;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.multifactor.kernel.engine.MultiFactorEngine;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Exposes a {@link MultiFactorEngine}'s counters as Micrometer meters, pull-based: each meter is a
 * {@link FunctionCounter} or {@link Gauge} that reads the engine's Agrona counters when the registry is scraped, so the
 * request path does no work for metrics beyond the engine's own counting.
 * <pre>
 *   mf.selections{decision,outcome}         counter   outcome: scored, fallback_cheapest, fallback_first, failed,
 *                                                     ineligible, shed
 *   mf.selected{decision,model}             counter   selections the model won
 *   mf.drops{model,reason}                  counter   reason: excluded, tpot, ttft, cost, inflight (and later codes)
 *   mf.inflight{model}                      gauge     requests in flight now
 *   mf.latency{model,metric,percentile}     gauge     seconds; metric: ttft, tpot; NaN while the window is empty
 *   mf.samples.refused{model,metric}        counter
 *   mf.samples.clamped{model,metric}        counter
 *   mf.leases.healed{model}                 counter   leases the sweeper reclaimed (a lost end)
 *   mf.reloads{result}                      counter   result: applied, refused
 *   mf.fleet.exchanges{result}              counter   result: done, failed
 *   mf.fleet.replicas                       gauge     live remote replicas
 *   mf.sessions{decision,rule}              counter   rule: stay, switch, handoff, new; evicted: entries forgotten
 *   mf.sessions.live{decision}              gauge     live session entries
 * </pre>
 * Meters follow reloads: after each {@link MultiFactorEngine#replacePlans}, meters of models and decisions the plans no
 * longer have are removed from the registries and those of new ones added.
 * <p>
 * This class is threadsafe: binding and following reloads are serialized on the binder; meters are read from any
 * scraping thread.
 */
public final class MultiFactorMetrics implements MeterBinder, AutoCloseable
{
    private final MultiFactorEngine engine;
    private final Tags commonTags;
    private final Runnable onReload = this::sync;
    private final List<Bound> bound = new ArrayList<>();
    private boolean listening;

    /**
     * @param engine the engine to expose.
     */
    public MultiFactorMetrics(final MultiFactorEngine engine)
    {
        this(engine, Tags.empty());
    }

    /**
     * @param engine the engine to expose.
     * @param tags tags added to every meter (for example the router's name).
     */
    public MultiFactorMetrics(final MultiFactorEngine engine, final Iterable<Tag> tags)
    {
        this.engine = Objects.requireNonNull(engine, "engine");
        this.commonTags = Tags.of(tags);
    }

    @Override
    public synchronized void bindTo(final MeterRegistry registry)
    {
        final Bound b = new Bound(registry);
        bound.add(b);
        b.sync(MeterSpecs.of(engine.countersReader(), commonTags));
        if (!listening)
        {
            listening = true;
            engine.addPlansListener(onReload);
        }
    }

    /** Stops following reloads and removes every meter this binder registered. */
    @Override
    public synchronized void close()
    {
        engine.removePlansListener(onReload);
        listening = false;
        for (final Bound b : bound)
        {
            b.sync(Map.of());
        }
        bound.clear();
    }

    /** Brings every bound registry's meters in line with the engine's live counters (called after each reload). */
    public synchronized void sync()
    {
        if (bound.isEmpty())
        {
            return;
        }
        final Map<String, MeterSpec> wanted = MeterSpecs.of(engine.countersReader(), commonTags);
        for (final Bound b : bound)
        {
            b.sync(wanted);
        }
    }

    /** The meters registered in one registry, by key. Guarded by the binder. */
    private static final class Bound
    {
        final MeterRegistry registry;
        final Map<String, MeterSpec> specs = new HashMap<>();
        final Map<String, Meter> meters = new HashMap<>();

        Bound(final MeterRegistry registry)
        {
            this.registry = registry;
        }

        void sync(final Map<String, MeterSpec> wanted)
        {
            for (final Iterator<Map.Entry<String, MeterSpec>> it = specs.entrySet().iterator(); it.hasNext(); )
            {
                final Map.Entry<String, MeterSpec> entry = it.next();
                final MeterSpec next = wanted.get(entry.getKey());
                if (next == null || !next.readsSameCountersAs(entry.getValue()))
                {
                    registry.remove(meters.remove(entry.getKey()));
                    it.remove();
                }
            }
            for (final MeterSpec spec : wanted.values())
            {
                if (!specs.containsKey(spec.key))
                {
                    specs.put(spec.key, spec);
                    meters.put(spec.key, register(spec));
                }
            }
        }

        private Meter register(final MeterSpec spec)
        {
            switch (spec.kind)
            {
                case MeterSpec.COUNTER:
                    return FunctionCounter.builder(spec.name, spec, MeterSpec::value).tags(spec.tags)
                        .description(description(spec.name)).register(registry);
                case MeterSpec.LATENCY_SECONDS:
                    return Gauge.builder(spec.name, spec, MeterSpec::value).tags(spec.tags).baseUnit("seconds")
                        .description(description(spec.name)).register(registry);
                default:
                    return Gauge.builder(spec.name, spec, MeterSpec::value).tags(spec.tags)
                        .description(description(spec.name)).register(registry);
            }
        }
    }

    private static String description(final String name)
    {
        switch (name)
        {
            case "mf.selections":
                return "Selections per decision and outcome";
            case "mf.selected":
                return "Selections per decision won by each model";
            case "mf.drops":
                return "Candidates dropped per model and reason";
            case "mf.inflight":
                return "Requests in flight per model";
            case "mf.ejections":
                return "Ejections of a failing model, by cause (5xx, retry_after)";
            case "mf.ejected":
                return "Whether the model is ejected now (1) or not (0)";
            case "mf.latency":
                return "Published latency percentile per model and metric";
            case "mf.samples.refused":
                return "Latency samples refused (zero, negative, NaN)";
            case "mf.samples.clamped":
                return "Latency samples clamped to the trackable maximum";
            case "mf.leases.healed":
                return "Leases reclaimed by the sweeper after a lost end";
            case "mf.reloads":
                return "Plan reloads by result";
            case "mf.fleet.exchanges":
                return "Fleet exchange periods by result";
            case "mf.fleet.replicas":
                return "Live remote replicas seen by the fleet exchange";
            case "mf.server.queue":
                return "Waiting requests on the model's freshest-queue server (smallest among fresh backends)";
            case "mf.server.kv_cache":
                return "KV-cache use of the model's emptiest fresh server, a fraction";
            case "mf.server.scrapes":
                return "Scrapes of a model server's metrics by result (load reports count as ok)";
            case "mf.server.fresh":
                return "Whether a model server's last good scrape is fresh (1) or stale (0)";
            case "mf.sessions":
                return "Session requests per decision by rule (stay, switch, handoff, new) and entries evicted (evicted)";
            case "mf.sessions.live":
                return "Live session entries per decision (seen less than idle_timeout ago)";
            default:
                return name;
        }
    }
}
