package io.multifactor.testkit.reference;

/**
 * What was observed about one model for one request: its TPOT and TTFT percentiles in milliseconds ({@code null} when
 * not observed), its in-flight count and tokens (the sum of its live leases' token weights), and what its servers say
 * (model-server metrics): its queue W(m) and KV-cache use K(m) ({@code null} when no backend is fresh) and whether it is stale (every
 * backend stale, past the grace period), how long it stays ejected (a scenario's {@code ejected_ms}), and the share
 * of the request's prompt cached for it, P(m) (a scenario's {@code prefix}, supplied per request).
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param tpotMs TPOT percentile in milliseconds, {@code null} when not observed.
 * @param ttftMs TTFT percentile in milliseconds, {@code null} when not observed.
 * @param inflight requests in flight to the model, never negative.
 * @param inflightTokens tokens in flight to the model, never negative (never missing: 0 when nothing is in flight).
 * @param queue W(m), the smallest number of waiting requests among its fresh servers, {@code null} when missing.
 * @param kvCache K(m), the smallest KV-cache use (0..1) among its fresh servers, {@code null} when missing.
 * @param stale whether every one of its servers is stale.
 * @param ejectedMs whole milliseconds of ejection left (0: half-open with its probe out), {@code null} when healthy.
 * @param prefix P(m), the cached share of the request's prompt for the model, 0..1, {@code null} when not supplied.
 */
public record ReferenceObservation(
    Double tpotMs,
    Double ttftMs,
    long inflight,
    long inflightTokens,
    Double queue,
    Double kvCache,
    boolean stale,
    Double ejectedMs,
    Double prefix)
{
    /** A model with no observation and nothing in flight. */
    public static final ReferenceObservation NONE = new ReferenceObservation(null, null, 0L);

    /**
     * @throws IllegalArgumentException when the in-flight count or tokens, the queue, the KV-cache use or the ejection
     *     time are negative, or the ejection time is not whole milliseconds.
     */
    public ReferenceObservation
    {
        if (inflight < 0 || inflightTokens < 0 || (queue != null && !(queue >= 0.0)) ||
            (kvCache != null && !(kvCache >= 0.0)) || (ejectedMs != null && !(ejectedMs >= 0.0 && ejectedMs == Math.rint(ejectedMs))))
        {
            throw new IllegalArgumentException("inflight, inflight tokens, queue, kv_cache and ejected_ms must be >= 0: " +
                inflight + ", " + inflightTokens + ", " + queue + ", " + kvCache + ", " + ejectedMs);
        }
        if (prefix != null && !(prefix >= 0.0 && prefix <= 1.0))
        {
            throw new IllegalArgumentException("prefix must be in 0..1: " + prefix);
        }
    }

    /**
     * An observation without a cached share.
     *
     * @param tpotMs TPOT percentile in milliseconds, {@code null} when not observed.
     * @param ttftMs TTFT percentile in milliseconds, {@code null} when not observed.
     * @param inflight requests in flight, never negative.
     * @param inflightTokens tokens in flight, never negative.
     * @param queue W(m), {@code null} when missing.
     * @param kvCache K(m), {@code null} when missing.
     * @param stale whether every one of its servers is stale.
     * @param ejectedMs whole milliseconds of ejection left, {@code null} when healthy.
     */
    public ReferenceObservation(
        final Double tpotMs, final Double ttftMs, final long inflight, final long inflightTokens, final Double queue,
        final Double kvCache, final boolean stale, final Double ejectedMs)
    {
        this(tpotMs, ttftMs, inflight, inflightTokens, queue, kvCache, stale, ejectedMs, null);
    }

    /**
     * An observation with no token in flight and no server signal.
     *
     * @param tpotMs TPOT percentile in milliseconds, {@code null} when not observed.
     * @param ttftMs TTFT percentile in milliseconds, {@code null} when not observed.
     * @param inflight requests in flight to the model, never negative.
     */
    public ReferenceObservation(final Double tpotMs, final Double ttftMs, final long inflight)
    {
        this(tpotMs, ttftMs, inflight, 0L, null, null, false, null, null);
    }

    /**
     * @param tokens tokens in flight, &gt;= 0.
     * @return the same observation with these in-flight tokens.
     */
    public ReferenceObservation withInflightTokens(final long tokens)
    {
        return new ReferenceObservation(tpotMs, ttftMs, inflight, tokens, queue, kvCache, stale, ejectedMs, prefix);
    }

    /**
     * @param waiting W(m), {@code null} when missing.
     * @param kvCacheUse K(m), {@code null} when missing.
     * @param allStale whether every server of the model is stale.
     * @return the same observation with these server signals.
     */
    public ReferenceObservation withServerLoad(final Double waiting, final Double kvCacheUse, final boolean allStale)
    {
        return new ReferenceObservation(
            tpotMs, ttftMs, inflight, inflightTokens, waiting, kvCacheUse, allStale, ejectedMs, prefix);
    }

    /**
     * @param millisLeft whole milliseconds of ejection left (0: half-open with its probe out), {@code null} for healthy.
     * @return the same observation with this ejection.
     */
    public ReferenceObservation withEjection(final Double millisLeft)
    {
        return new ReferenceObservation(tpotMs, ttftMs, inflight, inflightTokens, queue, kvCache, stale, millisLeft, prefix);
    }

    /**
     * @param cachedShare P(m), 0..1, {@code null} for not supplied.
     * @return the same observation with this cached share of the request's prompt.
     */
    public ReferenceObservation withPrefix(final Double cachedShare)
    {
        return new ReferenceObservation(tpotMs, ttftMs, inflight, inflightTokens, queue, kvCache, stale, ejectedMs,
            cachedShare);
    }

    /**
     * @return whether it carries a signal beyond the seed's: tokens in flight, a server's queue or KV-cache, stale,
     *     ejected, a cached share.
     */
    public boolean beyondSeed()
    {
        return inflightTokens != 0 || queue != null || kvCache != null || stale || ejectedMs != null || prefix != null;
    }
}
