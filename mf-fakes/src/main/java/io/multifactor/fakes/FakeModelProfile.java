package io.multifactor.fakes;

import java.util.List;

/**
 * How one fake model server behaves.
 * <p>
 * A request that arrives while fewer than {@code batch} requests are running starts at once; the others wait in
 * arrival order, so their TTFT grows with the queue. A running request's first content chunk comes after its TTFT,
 * drawn from a lognormal distribution of mean {@code ttftMs} and shape {@code sigma} (multiplied by the degradation
 * windows that cover that instant), then one chunk per TPOT (drawn once per request the same way) up to
 * {@code outputTokens} chunks (fewer when the request's {@code max_tokens} says so). A request that arrives in a
 * failing window is answered 500 at once, as one drawn by {@code errorRate}.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param name the model name the server answers for (its {@code model_name} in {@code /metrics}).
 * @param port loopback port, 0 for any free one.
 * @param ttftMs mean time to first content chunk at an idle server, milliseconds, > 0.
 * @param tpotMs mean time between content chunks, milliseconds, > 0.
 * @param sigma lognormal shape of both, 0..3 (0: every request takes the mean).
 * @param batch requests decoded at once, >= 1.
 * @param outputTokens content chunks of a response, >= 1.
 * @param errorRate share of requests answered 500, 0..1.
 * @param kvPerRequest KV-cache share one running request takes (the reported use is the running requests times this,
 *     at most 1), in (0, 1].
 * @param degraded degradation windows.
 * @param rateLimited 429 windows.
 * @param prefixCachingOrNull how it caches prompt prefixes (TTFT then also grows with the uncached prompt tokens, and
 *     {@code /metrics} reports vLLM's prefix-cache counters and cache configuration), or {@code null} for no cache.
 * @param failing windows in which every request is answered 500 (a replica that is down).
 */
public record FakeModelProfile(
    String name,
    int port,
    double ttftMs,
    double tpotMs,
    double sigma,
    int batch,
    int outputTokens,
    double errorRate,
    double kvPerRequest,
    List<TimeWindow> degraded,
    List<TimeWindow> rateLimited,
    PrefixCaching prefixCachingOrNull,
    List<TimeWindow> failing)
{
    /**
     * @param name model name.
     * @param port port, 0 for any.
     * @param ttftMs mean TTFT.
     * @param tpotMs mean TPOT.
     * @param sigma lognormal shape.
     * @param batch batch size.
     * @param outputTokens chunks per response.
     * @param errorRate share answered 500.
     * @param kvPerRequest KV-cache share per running request.
     * @param degraded degradation windows; copied.
     * @param rateLimited 429 windows; copied.
     * @param prefixCachingOrNull prefix caching, or null for none.
     * @param failing failing windows; copied.
     */
    public FakeModelProfile
    {
        degraded = List.copyOf(degraded);
        rateLimited = List.copyOf(rateLimited);
        failing = List.copyOf(failing);
    }

    /**
     * A server that never fails for a window of time.
     *
     * @param name model name.
     * @param port port, 0 for any.
     * @param ttftMs mean TTFT.
     * @param tpotMs mean TPOT.
     * @param sigma lognormal shape.
     * @param batch batch size.
     * @param outputTokens chunks per response.
     * @param errorRate share answered 500.
     * @param kvPerRequest KV-cache share per running request.
     * @param degraded degradation windows; copied.
     * @param rateLimited 429 windows; copied.
     * @param prefixCachingOrNull prefix caching, or null for none.
     */
    public FakeModelProfile(final String name, final int port, final double ttftMs, final double tpotMs,
        final double sigma, final int batch, final int outputTokens, final double errorRate, final double kvPerRequest,
        final List<TimeWindow> degraded, final List<TimeWindow> rateLimited, final PrefixCaching prefixCachingOrNull)
    {
        this(name, port, ttftMs, tpotMs, sigma, batch, outputTokens, errorRate, kvPerRequest, degraded, rateLimited,
            prefixCachingOrNull, List.of());
    }

    /**
     * A server without a prefix cache.
     *
     * @param name model name.
     * @param port port, 0 for any.
     * @param ttftMs mean TTFT.
     * @param tpotMs mean TPOT.
     * @param sigma lognormal shape.
     * @param batch batch size.
     * @param outputTokens chunks per response.
     * @param errorRate share answered 500.
     * @param kvPerRequest KV-cache share per running request.
     * @param degraded degradation windows; copied.
     * @param rateLimited 429 windows; copied.
     */
    public FakeModelProfile(final String name, final int port, final double ttftMs, final double tpotMs,
        final double sigma, final int batch, final int outputTokens, final double errorRate, final double kvPerRequest,
        final List<TimeWindow> degraded, final List<TimeWindow> rateLimited)
    {
        this(name, port, ttftMs, tpotMs, sigma, batch, outputTokens, errorRate, kvPerRequest, degraded, rateLimited,
            null);
    }

    /**
     * A steady model: no windows, no errors.
     *
     * @param name model name.
     * @param ttftMs mean TTFT in milliseconds.
     * @param tpotMs mean TPOT in milliseconds.
     * @param batch batch size.
     * @param outputTokens chunks per response.
     * @return the profile, on any free port, with sigma 0 and KV use 1/batch per running request.
     */
    public static FakeModelProfile steady(
        final String name, final double ttftMs, final double tpotMs, final int batch, final int outputTokens)
    {
        return new FakeModelProfile(name, 0, ttftMs, tpotMs, 0.0, batch, outputTokens, 0.0, 1.0 / batch, List.of(),
            List.of());
    }

    /**
     * @param windows degradation windows.
     * @return this profile with them.
     */
    public FakeModelProfile withDegraded(final List<TimeWindow> windows)
    {
        return new FakeModelProfile(name, port, ttftMs, tpotMs, sigma, batch, outputTokens, errorRate, kvPerRequest,
            windows, rateLimited, prefixCachingOrNull, failing);
    }

    /**
     * @param windows 429 windows.
     * @return this profile with them.
     */
    public FakeModelProfile withRateLimited(final List<TimeWindow> windows)
    {
        return new FakeModelProfile(name, port, ttftMs, tpotMs, sigma, batch, outputTokens, errorRate, kvPerRequest,
            degraded, windows, prefixCachingOrNull, failing);
    }

    /**
     * @param share share of requests answered 500.
     * @return this profile with that error rate.
     */
    public FakeModelProfile withErrorRate(final double share)
    {
        return new FakeModelProfile(name, port, ttftMs, tpotMs, sigma, batch, outputTokens, share, kvPerRequest,
            degraded, rateLimited, prefixCachingOrNull, failing);
    }

    /**
     * @param sigmaShape lognormal shape.
     * @return this profile with it.
     */
    public FakeModelProfile withSigma(final double sigmaShape)
    {
        return new FakeModelProfile(name, port, ttftMs, tpotMs, sigmaShape, batch, outputTokens, errorRate,
            kvPerRequest, degraded, rateLimited, prefixCachingOrNull, failing);
    }

    /**
     * @param caching how it caches prompt prefixes, or null for no cache.
     * @return this profile with it.
     */
    public FakeModelProfile withPrefixCaching(final PrefixCaching caching)
    {
        return new FakeModelProfile(name, port, ttftMs, tpotMs, sigma, batch, outputTokens, errorRate, kvPerRequest,
            degraded, rateLimited, caching, failing);
    }

    /**
     * @param windows failing windows: every request arriving in one is answered 500.
     * @return this profile with them.
     */
    public FakeModelProfile withFailing(final List<TimeWindow> windows)
    {
        return new FakeModelProfile(name, port, ttftMs, tpotMs, sigma, batch, outputTokens, errorRate, kvPerRequest,
            degraded, rateLimited, prefixCachingOrNull, windows);
    }
}
