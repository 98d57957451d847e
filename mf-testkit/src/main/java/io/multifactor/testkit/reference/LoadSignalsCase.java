package io.multifactor.testkit.reference;

import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * One selection problem with the load signals beyond the in-flight count: a seed problem (a decision and a request,
 * whose observations also carry each candidate's in-flight tokens), the decision's token-load keys
 * ({@code load_metric: tokens}, {@code max_inflight_tokens}), its {@code queue} and {@code kv_cache} weights and
 * ceilings and {@code when_stale}, and per candidate what its servers say: its queue W(m) and KV-cache use K(m)
 * (absent from the map: missing, as when no backend is fresh) and whether it is stale (every backend stale, past the
 * grace period).
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param decision the seed decision: candidates, seed weights and ceilings, policy.
 * @param request the request's observations (in-flight tokens among them) and exclusions.
 * @param tokenLoad {@code load_metric: tokens}: the load N(m) is the in-flight tokens, not the in-flight requests.
 * @param maxInflightTokens {@code max_inflight_tokens}, 0 when off.
 * @param queueWeight configured weight of the queue (clamped and normalized with the others).
 * @param kvCacheWeight configured weight of the KV-cache use.
 * @param maxQueue {@code max_queue}, 0 when off.
 * @param maxKvCache {@code max_kv_cache}, 0 when off.
 * @param whenStaleSaturated {@code when_stale: saturated}.
 * @param queue W(m) by model name.
 * @param kvCache K(m) by model name.
 * @param stale the models whose servers are all stale.
 */
public record LoadSignalsCase(
    ReferenceDecision decision,
    ReferenceRequest request,
    boolean tokenLoad,
    long maxInflightTokens,
    double queueWeight,
    double kvCacheWeight,
    long maxQueue,
    double maxKvCache,
    boolean whenStaleSaturated,
    Map<String, Double> queue,
    Map<String, Double> kvCache,
    Set<String> stale)
{
    /**
     * Copies the maps and the set.
     *
     * @throws IllegalArgumentException for a negative ceiling.
     */
    public LoadSignalsCase
    {
        Objects.requireNonNull(decision, "decision");
        Objects.requireNonNull(request, "request");
        if (maxInflightTokens < 0 || maxQueue < 0 || !(maxKvCache >= 0.0))
        {
            throw new IllegalArgumentException("ceilings must be >= 0: " + maxInflightTokens + ", " + maxQueue + ", " +
                maxKvCache);
        }
        queue = Map.copyOf(queue);
        kvCache = Map.copyOf(kvCache);
        stale = Set.copyOf(stale);
    }

    /**
     * @param decision the seed decision.
     * @param request the request.
     * @return the seed problem with every load key at its default: requests as load, no ceiling, weights 0, no server
     *     value.
     */
    public static LoadSignalsCase seed(final ReferenceDecision decision, final ReferenceRequest request)
    {
        return new LoadSignalsCase(decision, request, false, 0L, 0.0, 0.0, 0L, 0.0, false, Map.of(), Map.of(), Set.of());
    }

    /**
     * @param nextQueue W(m) by model name.
     * @return the same problem with other queues.
     */
    public LoadSignalsCase withQueue(final Map<String, Double> nextQueue)
    {
        return new LoadSignalsCase(decision, request, tokenLoad, maxInflightTokens, queueWeight, kvCacheWeight, maxQueue,
            maxKvCache, whenStaleSaturated, nextQueue, kvCache, stale);
    }

    /**
     * @param nextKvCache K(m) by model name.
     * @return the same problem with other KV-cache uses.
     */
    public LoadSignalsCase withKvCache(final Map<String, Double> nextKvCache)
    {
        return new LoadSignalsCase(decision, request, tokenLoad, maxInflightTokens, queueWeight, kvCacheWeight, maxQueue,
            maxKvCache, whenStaleSaturated, queue, nextKvCache, stale);
    }

    /**
     * @param nextRequest the request, with other observations (in-flight tokens among them).
     * @return the same problem with this request.
     */
    public LoadSignalsCase withRequest(final ReferenceRequest nextRequest)
    {
        return new LoadSignalsCase(decision, nextRequest, tokenLoad, maxInflightTokens, queueWeight, kvCacheWeight,
            maxQueue, maxKvCache, whenStaleSaturated, queue, kvCache, stale);
    }

    /**
     * @param tokens {@code load_metric: tokens}.
     * @param ceiling {@code max_inflight_tokens}, 0 = off.
     * @return the same problem with these token-load keys.
     */
    public LoadSignalsCase withTokenLoad(final boolean tokens, final long ceiling)
    {
        return new LoadSignalsCase(decision, request, tokens, ceiling, queueWeight, kvCacheWeight, maxQueue, maxKvCache,
            whenStaleSaturated, queue, kvCache, stale);
    }

    /**
     * @return the same observations and servers' values with the defaults of a file that does not use them:
     *     {@code load_metric: requests}, weights 0, no ceiling, {@code when_stale: saturated} kept (it only acts with a
     *     ceiling).
     */
    public LoadSignalsCase unweighted()
    {
        return new LoadSignalsCase(decision, request, false, 0L, 0.0, 0.0, 0L, 0.0, whenStaleSaturated, queue, kvCache,
            stale);
    }
}
