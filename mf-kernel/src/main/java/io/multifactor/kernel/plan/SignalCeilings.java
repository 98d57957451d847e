package io.multifactor.kernel.plan;

/**
 * The ceilings of one decision on the signals beyond the seed's: in-flight tokens ({@code max_inflight_tokens}), the
 * servers' queue ({@code max_queue}) and KV-cache use ({@code max_kv_cache}), and what a model whose servers are all
 * stale counts as ({@code when_stale}). Each is stored as an effective ceiling no value can exceed when off, so the
 * scoring loop never branches on "off".
 * <p>
 * Instances are immutable and threadsafe.
 */
public final class SignalCeilings
{
    /** Every ceiling off, stale treated as missing. */
    public static final SignalCeilings NONE = new SignalCeilings(0, Double.POSITIVE_INFINITY, Double.POSITIVE_INFINITY,
        false);

    private final long maxInflightTokens;
    private final double maxQueue;
    private final double maxKvCache;
    private final boolean whenStaleSaturated;

    /**
     * @param maxInflightTokens in-flight token ceiling, 0 when off.
     * @param maxQueue queue ceiling (waiting requests), {@code +Infinity} when off.
     * @param maxKvCache KV-cache use ceiling, 0..1, {@code +Infinity} when off.
     * @param whenStaleSaturated {@code when_stale: saturated}: a model whose servers are all stale is dropped by a
     *     decision that sets {@code max_queue} or {@code max_kv_cache}.
     * @throws IllegalArgumentException when a ceiling is negative or NaN.
     */
    public SignalCeilings(
        final long maxInflightTokens, final double maxQueue, final double maxKvCache, final boolean whenStaleSaturated)
    {
        if (maxInflightTokens < 0)
        {
            throw new IllegalArgumentException("max_inflight_tokens must be >= 0: " + maxInflightTokens);
        }
        if (!(maxQueue >= 0.0))
        {
            throw new IllegalArgumentException("max_queue must be >= 0: " + maxQueue);
        }
        if (!(maxKvCache >= 0.0))
        {
            throw new IllegalArgumentException("max_kv_cache must be >= 0: " + maxKvCache);
        }
        this.maxInflightTokens = maxInflightTokens;
        this.maxQueue = maxQueue;
        this.maxKvCache = maxKvCache;
        this.whenStaleSaturated = whenStaleSaturated;
    }

    /** @return the in-flight token ceiling, {@code Long.MAX_VALUE} when off. */
    public long effectiveMaxInflightTokens()
    {
        return maxInflightTokens == 0 ? Long.MAX_VALUE : maxInflightTokens;
    }

    /** @return the configured in-flight token ceiling, 0 when off. */
    public long maxInflightTokens()
    {
        return maxInflightTokens;
    }

    /** @return the queue ceiling, {@code +Infinity} when off. */
    public double effectiveMaxQueue()
    {
        return maxQueue;
    }

    /** @return the KV-cache use ceiling, {@code +Infinity} when off. */
    public double effectiveMaxKvCache()
    {
        return maxKvCache;
    }

    /** @return whether {@code when_stale: saturated} is set. */
    public boolean whenStaleSaturated()
    {
        return whenStaleSaturated;
    }

    /** @return whether a model whose servers are all stale is dropped ({@code saturated} and a server ceiling set). */
    public boolean dropsStale()
    {
        return whenStaleSaturated && (maxQueue != Double.POSITIVE_INFINITY || maxKvCache != Double.POSITIVE_INFINITY);
    }
}
