package io.multifactor.fakes;

/**
 * A span of time counted from the start of a fake server, with what happens during it: latencies multiplied
 * (degradation), requests answered 429 (rate limiting) or requests answered 500 (failing: factors 1, no retry).
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param fromS start, in seconds after the server started, inclusive.
 * @param untilS end, in seconds after the server started, exclusive; after {@code fromS}.
 * @param ttftFactor TTFT multiplier during the window (1 for a rate limit window).
 * @param tpotFactor TPOT multiplier during the window (1 for a rate limit window).
 * @param retryAfterS the {@code Retry-After} a 429 carries, in whole seconds (0 for a degradation window).
 * @param share share of the requests arriving in a rate limit window that are refused, in (0, 1].
 */
public record TimeWindow(double fromS, double untilS, double ttftFactor, double tpotFactor, long retryAfterS, double share)
{
    /**
     * @param elapsedS seconds since the server started.
     * @return whether the window covers that instant.
     */
    public boolean covers(final double elapsedS)
    {
        return elapsedS >= fromS && elapsedS < untilS;
    }
}
