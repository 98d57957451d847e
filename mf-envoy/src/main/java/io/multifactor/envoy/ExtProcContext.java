package io.multifactor.envoy;

import io.multifactor.config.LoadedConfig;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.serving.OpenAiRequestReader;
import io.multifactor.serving.PrefixBackends;

import org.agrona.concurrent.ManyToManyConcurrentArrayQueue;

import java.util.concurrent.atomic.LongAdder;

/**
 * What every ext_proc stream shares: the engine, the mode, the routing table of the running configuration (replaced
 * on reload), the request reader, and the service's own counters.
 * <p>
 * This class is threadsafe: the table and the prebuilt answers are published through volatile fields, the counters are {@link LongAdder}s, the
 * pool of stream scratch is a lock-free queue.
 */
public final class ExtProcContext
{
    /** How many idle streams' scratch (lifecycle, buffers) are kept for the next streams. */
    static final int SCRATCH_POOL_CAPACITY = 4096;

    private final MultiFactorEngine engine;
    private final EnvoyMode mode;
    private final OpenAiRequestReader reader = new OpenAiRequestReader();
    private final ManyToManyConcurrentArrayQueue<StreamScratch> scratchPool =
        new ManyToManyConcurrentArrayQueue<>(SCRATCH_POOL_CAPACITY);
    private final PrefixBackends prefixBackends;
    private volatile RoutingTable routing;
    private volatile ResponseHeaderAnswers responseHeaderAnswers;

    final LongAdder streams = new LongAdder();
    final LongAdder routed = new LongAdder();
    final LongAdder badRequests = new LongAdder();
    final LongAdder unavailable = new LongAdder();
    final LongAdder protocolErrors = new LongAdder();
    final LongAdder cancelled = new LongAdder();
    final LongAdder completed = new LongAdder();
    final LongAdder internalErrors = new LongAdder();
    final LongAdder shed = new LongAdder();

    /**
     * @param engine the running engine.
     * @param mode what the answer names: the model ({@code vsr}) or one of its backends ({@code endpoint}).
     * @param loaded the configuration the engine's plans were compiled from (provider model ids, backends).
     */
    public ExtProcContext(final MultiFactorEngine engine, final EnvoyMode mode, final LoadedConfig loaded)
    {
        this(engine, mode, loaded, new PrefixBackends());
    }

    /**
     * @param engine the running engine.
     * @param mode what the answer names: the model ({@code vsr}) or one of its backends ({@code endpoint}).
     * @param loaded the configuration the engine's plans were compiled from (provider model ids, backends).
     * @param prefixBackends the process's prefix-cache affinity state ({@link io.multifactor.serving.EngineHost#prefixBackends()}).
     */
    public ExtProcContext(final MultiFactorEngine engine, final EnvoyMode mode, final LoadedConfig loaded,
        final PrefixBackends prefixBackends)
    {
        this.engine = engine;
        this.prefixBackends = prefixBackends;
        this.mode = mode;
        this.routing = RoutingTable.of(loaded, engine, prefixBackends);
    }

    /**
     * Publishes the provider model ids and backends of a configuration just applied to the engine.
     *
     * @param loaded the configuration, compiled against the engine's running plans (same handles).
     */
    public void reloaded(final LoadedConfig loaded)
    {
        routing = RoutingTable.of(loaded, engine, prefixBackends);
    }

    /** @return the prefix-cache affinity state per backend (endpoint mode), kept across reloads. */
    public PrefixBackends prefixBackends()
    {
        return prefixBackends;
    }

    /** @return the engine. */
    public MultiFactorEngine engine()
    {
        return engine;
    }

    /** @return the mode. */
    public EnvoyMode mode()
    {
        return mode;
    }

    /** Lock-free; allocates only when the pool is empty. @return scratch for a stream that opens. */
    StreamScratch acquireScratch()
    {
        final StreamScratch scratch = scratchPool.poll();
        return scratch != null ? scratch : new StreamScratch(engine);
    }

    /**
     * Lock-free; allocates nothing.
     *
     * @param scratch the scratch of a stream that closed, its lease ended; dropped when the pool is full.
     */
    void releaseScratch(final StreamScratch scratch)
    {
        scratch.trim();
        scratchPool.offer(scratch);
    }

    /**
     * @param plans the running plans.
     * @return the prebuilt {@code response_headers} answers of those plans (made anew when the plans changed).
     */
    ResponseHeaderAnswers responseHeaderAnswers(final Plans plans)
    {
        final ResponseHeaderAnswers current = responseHeaderAnswers;
        if (current != null && current.plans() == plans)
        {
            return current;
        }
        final ResponseHeaderAnswers fresh = new ResponseHeaderAnswers(plans);
        responseHeaderAnswers = fresh;
        return fresh;
    }

    OpenAiRequestReader reader()
    {
        return reader;
    }

    RoutingTable routing()
    {
        return routing;
    }

    /** @return what the running configuration leaves unusable (models without backends, unset API key variables). */
    public java.util.List<String> routingProblems()
    {
        return routing.problems();
    }

    /** @return streams opened since start. */
    public long streams()
    {
        return streams.sum();
    }

    /** @return requests answered with a route (a header mutation naming a model or an endpoint). */
    public long routed()
    {
        return routed.sum();
    }

    /** @return requests refused with an immediate 4xx (body not JSON, too large, no decision). */
    public long badRequests()
    {
        return badRequests.sum();
    }

    /** @return requests answered with an immediate 503 (outcome {@code failed}, no backend in endpoint mode). */
    public long unavailable()
    {
        return unavailable.sum();
    }

    /** @return requests shed: answered with an immediate 429 {@code overloaded} (outcome {@code shed}), no lease. */
    public long shed()
    {
        return shed.sum();
    }

    /** @return streams closed with a gRPC error for a message out of Envoy's order. */
    public long protocolErrors()
    {
        return protocolErrors.sum();
    }

    /** @return leases ended by a cancelled or reset stream before the response ended. */
    public long cancelled()
    {
        return cancelled.sum();
    }

    /** @return leases ended at the response's end. */
    public long completed()
    {
        return completed.sum();
    }

    /** @return messages whose handling threw (answered with a gRPC INTERNAL error; the lease ended). */
    public long internalErrors()
    {
        return internalErrors.sum();
    }
}
