package io.multifactor.kernel.scoring;

/**
 * vLLM production-stack's {@code session} router, re-implemented from {@code src/vllm_router/routers/routing_logic.py}
 * of vllm-project/production-stack ({@code SessionRouter.route_request}): a request with a session key goes to the
 * endpoint a consistent hash of the key names; a request without one goes to the first endpoint that was never sent a
 * request, else to the one with the lowest QPS, ties to the earlier ({@code RoutingInterface._qps_routing}'s strict
 * {@code <}). The one home of that rule: the model level ({@link BaselineKernel}) and the backend level (mf-serving's
 * backend choice) both call it.
 * <p>
 * The consistent hash here is rendezvous hashing (highest random weight): each endpoint's weight for a key is a 64-bit
 * mix of the key and the endpoint's name hash, and the key goes to the endpoint of the largest weight. production-stack
 * uses a ketama ring ({@code uhashring.HashRing} over the endpoints' URLs); both have the property that matters, that
 * taking one endpoint away (or leaving it out of one request) moves only the keys it held, and each other key keeps its
 * endpoint. Rendezvous hashing needs no ring to rebuild when the endpoints change, so an exclusion costs nothing, at
 * one mix per endpoint per request (a few nanoseconds for the tens of endpoints a model group has). The mapping of keys
 * to endpoints is not production-stack's: the same session lands on an endpoint of its own here.
 * <p>
 * This class is stateless and threadsafe; its methods allocate nothing.
 */
public final class ProdstackSession
{
    /** The QPS value that marks an endpoint never sent a request (production-stack has no statistics for it). */
    public static final double NEVER_ROUTED = -1.0;

    private ProdstackSession()
    {
    }

    /**
     * A fixed 64-bit hash of an endpoint's name (a model's name, a backend's {@code host:port}): the murmur3 finalizer
     * of {@link String#hashCode()}, which the Java Language Specification fixes, so every replica and restart agrees.
     *
     * @param name the endpoint's name.
     * @return its hash.
     */
    public static long nodeHash(final String name)
    {
        return mix(name.hashCode());
    }

    /**
     * @param sessionKey the request's session key.
     * @param nodeHash an endpoint's {@link #nodeHash}.
     * @return the endpoint's weight for that key; the key goes to the largest (compared unsigned).
     */
    public static long weight(final long sessionKey, final long nodeHash)
    {
        return mix(sessionKey ^ nodeHash);
    }

    /**
     * @param hasKey whether the request carries a session key.
     * @param sessionKey the key (ignored without one).
     * @param nodeHashes each endpoint's {@link #nodeHash}.
     * @param qps each endpoint's QPS, {@link #NEVER_ROUTED} for one never sent a request, NaN for one left out.
     * @param n the number of endpoints (a prefix of both arrays).
     * @return the chosen endpoint's position, -1 when every one is left out.
     */
    public static int choose(
        final boolean hasKey, final long sessionKey, final long[] nodeHashes, final double[] qps, final int n)
    {
        int chosen = -1;
        if (hasKey)
        {
            long best = 0;
            for (int i = 0; i < n; i++)
            {
                if (qps[i] == qps[i])
                {
                    final long w = weight(sessionKey, nodeHashes[i]);
                    if (chosen < 0 || Long.compareUnsigned(w, best) > 0)
                    {
                        best = w;
                        chosen = i;
                    }
                }
            }
            return chosen;
        }
        double lowest = Double.POSITIVE_INFINITY;
        for (int i = 0; i < n; i++)
        {
            final double q = qps[i];
            if (q == NEVER_ROUTED)
            {
                return i;
            }
            if (q < lowest)
            {
                lowest = q;
                chosen = i;
            }
        }
        return chosen;
    }

    // murmur3's 64-bit finalizer.
    private static long mix(final long value)
    {
        long z = value;
        z = (z ^ (z >>> 33)) * 0xFF51AFD7ED558CCDL;
        z = (z ^ (z >>> 33)) * 0xC4CEB9FE1A85EC53L;
        return z ^ (z >>> 33);
    }
}
