package io.multifactor.testkit.reference;

import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * One selection problem with the model-server signals: a seed problem (a decision and a request), the decision's
 * {@code queue} and {@code kv_cache} weights and ceilings and {@code when_stale}, and per candidate what its servers
 * say: its queue W(m) and KV-cache use K(m) (absent from the map: missing, as when no backend is fresh) and whether it
 * is stale (every backend stale, past the grace period).
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param decision the seed decision: candidates, seed weights and ceilings, policy.
 * @param request the request's observations and exclusions.
 * @param queueWeight configured weight of the queue (clamped and normalized with the others).
 * @param kvCacheWeight configured weight of the KV-cache use.
 * @param maxQueue {@code max_queue}, 0 when off.
 * @param maxKvCache {@code max_kv_cache}, 0 when off.
 * @param whenStaleSaturated {@code when_stale: saturated}.
 * @param queue W(m) by model name.
 * @param kvCache K(m) by model name.
 * @param stale the models whose servers are all stale.
 */
public record ServerSignalsCase(
    ReferenceDecision decision,
    ReferenceRequest request,
    double queueWeight,
    double kvCacheWeight,
    long maxQueue,
    double maxKvCache,
    boolean whenStaleSaturated,
    Map<String, Double> queue,
    Map<String, Double> kvCache,
    Set<String> stale)
{
    /** Copies the maps and the set. */
    public ServerSignalsCase
    {
        Objects.requireNonNull(decision, "decision");
        Objects.requireNonNull(request, "request");
        queue = Map.copyOf(queue);
        kvCache = Map.copyOf(kvCache);
        stale = Set.copyOf(stale);
    }

    /**
     * @param nextQueue W(m) by model name.
     * @return the same problem with other queues.
     */
    public ServerSignalsCase withQueue(final Map<String, Double> nextQueue)
    {
        return new ServerSignalsCase(decision, request, queueWeight, kvCacheWeight, maxQueue, maxKvCache,
            whenStaleSaturated, nextQueue, kvCache, stale);
    }

    /**
     * @param nextKvCache K(m) by model name.
     * @return the same problem with other KV-cache uses.
     */
    public ServerSignalsCase withKvCache(final Map<String, Double> nextKvCache)
    {
        return new ServerSignalsCase(decision, request, queueWeight, kvCacheWeight, maxQueue, maxKvCache,
            whenStaleSaturated, queue, nextKvCache, stale);
    }

    /**
     * @return the same servers' values with the defaults of a file that does not use them: weights 0, no ceiling,
     *     {@code when_stale: saturated} kept (it only acts with a ceiling).
     */
    public ServerSignalsCase unweighted()
    {
        return new ServerSignalsCase(decision, request, 0.0, 0.0, 0L, 0.0, whenStaleSaturated, queue, kvCache, stale);
    }
}
