package io.multifactor.sim;

/**
 * How one simulated model answers: mean time to first token and per output token while it is within its capacity,
 * how fast both grow with each request in flight beyond that capacity, the spread of the draws, and an optional window
 * of simulated time during which it is degraded (each mean multiplied by its own factor: an overloaded model mostly
 * queues, so its TTFT usually suffers more than its TPOT).
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param name model name, as in the router configuration.
 * @param ttftMs mean time to first token in milliseconds, within capacity; positive.
 * @param tpotMs mean time per output token in milliseconds, within capacity; positive.
 * @param sigma shape of the lognormal draws (standard deviation of the log); 0 draws the mean every time.
 * @param capacity requests in flight served at base speed; at least 1.
 * @param slowdownPerRequest relative growth of both means per request in flight beyond {@code capacity}; at least 0.
 * @param degradedFromS start of the degraded window in simulated seconds; NaN when the model never degrades.
 * @param degradedUntilS end (exclusive) of the degraded window in simulated seconds; NaN when it never degrades.
 * @param degradedTtftFactor multiplier of the TTFT mean inside the degraded window; 1 when it never degrades.
 * @param degradedTpotFactor multiplier of the TPOT mean inside the degraded window; 1 when it never degrades.
 * @param failures how it fails (errors, a window of failures, 429s with Retry-After); {@link FailureBehaviour#NONE}.
 */
public record ModelBehaviour(
    String name,
    double ttftMs,
    double tpotMs,
    double sigma,
    int capacity,
    double slowdownPerRequest,
    double degradedFromS,
    double degradedUntilS,
    double degradedTtftFactor,
    double degradedTpotFactor,
    FailureBehaviour failures)
{
    /**
     * A model that never fails.
     *
     * @param name model name, as in the router configuration.
     * @param ttftMs mean time to first token in milliseconds.
     * @param tpotMs mean time per output token in milliseconds.
     * @param sigma shape of the lognormal draws.
     * @param capacity requests in flight served at base speed.
     * @param slowdownPerRequest relative growth per request beyond capacity.
     * @param degradedFromS start of the degraded window, NaN when none.
     * @param degradedUntilS end of the degraded window, NaN when none.
     * @param degradedTtftFactor TTFT multiplier inside the window.
     * @param degradedTpotFactor TPOT multiplier inside the window.
     */
    public ModelBehaviour(
        final String name,
        final double ttftMs,
        final double tpotMs,
        final double sigma,
        final int capacity,
        final double slowdownPerRequest,
        final double degradedFromS,
        final double degradedUntilS,
        final double degradedTtftFactor,
        final double degradedTpotFactor)
    {
        this(name, ttftMs, tpotMs, sigma, capacity, slowdownPerRequest, degradedFromS, degradedUntilS,
            degradedTtftFactor, degradedTpotFactor, FailureBehaviour.NONE);
    }

    /**
     * Checks the ranges given in the parameter descriptions.
     *
     * @throws IllegalArgumentException when a value is out of range.
     */
    public ModelBehaviour
    {
        requirePositive(name, "ttft_ms", ttftMs);
        requirePositive(name, "tpot_ms", tpotMs);
        if (!(sigma >= 0.0 && sigma <= 3.0))
        {
            throw new IllegalArgumentException("model " + name + ": sigma must be in [0, 3]: " + sigma);
        }
        if (capacity < 1)
        {
            throw new IllegalArgumentException("model " + name + ": capacity must be >= 1: " + capacity);
        }
        if (!(slowdownPerRequest >= 0.0 && slowdownPerRequest < Double.POSITIVE_INFINITY))
        {
            throw new IllegalArgumentException("model " + name + ": slowdown_per_request must be >= 0: " + slowdownPerRequest);
        }
        final boolean degrades = !Double.isNaN(degradedFromS) || !Double.isNaN(degradedUntilS);
        if (degrades && !(degradedFromS >= 0.0 && degradedUntilS > degradedFromS))
        {
            throw new IllegalArgumentException("model " + name + ": degraded window must satisfy 0 <= from_s < until_s: " +
                degradedFromS + ".." + degradedUntilS);
        }
        requirePositive(name, "degraded ttft_factor", degradedTtftFactor);
        requirePositive(name, "degraded tpot_factor", degradedTpotFactor);
        failures = failures == null ? FailureBehaviour.NONE : failures;
    }

    /**
     * A model that never degrades.
     *
     * @param name model name.
     * @param ttftMs mean time to first token in milliseconds.
     * @param tpotMs mean time per output token in milliseconds.
     * @param sigma shape of the lognormal draws.
     * @param capacity requests in flight served at base speed.
     * @param slowdownPerRequest relative growth per request beyond capacity.
     * @return the behaviour.
     */
    public static ModelBehaviour steady(
        final String name,
        final double ttftMs,
        final double tpotMs,
        final double sigma,
        final int capacity,
        final double slowdownPerRequest)
    {
        return new ModelBehaviour(name, ttftMs, tpotMs, sigma, capacity, slowdownPerRequest, Double.NaN, Double.NaN, 1.0, 1.0);
    }

    /**
     * The same model, degraded from {@code fromS} until {@code untilS}.
     *
     * @param fromS start in simulated seconds.
     * @param untilS end (exclusive) in simulated seconds.
     * @param ttftFactor multiplier of the TTFT mean.
     * @param tpotFactor multiplier of the TPOT mean.
     * @return the new behaviour.
     */
    public ModelBehaviour degraded(final double fromS, final double untilS, final double ttftFactor, final double tpotFactor)
    {
        return new ModelBehaviour(name, ttftMs, tpotMs, sigma, capacity, slowdownPerRequest, fromS, untilS, ttftFactor,
            tpotFactor, failures);
    }

    /**
     * @param next how the model fails.
     * @return the same model, failing so.
     */
    public ModelBehaviour failing(final FailureBehaviour next)
    {
        return new ModelBehaviour(name, ttftMs, tpotMs, sigma, capacity, slowdownPerRequest, degradedFromS,
            degradedUntilS, degradedTtftFactor, degradedTpotFactor, next);
    }

    /** @return whether this model has a degraded window. */
    public boolean degrades()
    {
        return !Double.isNaN(degradedFromS);
    }

    /**
     * @param timeNs simulated time in nanoseconds.
     * @return whether the model is degraded at that time.
     */
    public boolean degradedAt(final long timeNs)
    {
        final double timeS = timeNs / 1e9;
        return timeS >= degradedFromS && timeS < degradedUntilS;
    }

    /**
     * @param inflight requests in flight on this model, the new one included.
     * @return the load multiplier of both means: 1 within capacity, growing linearly with each request beyond it.
     */
    public double loadFactor(final long inflight)
    {
        return 1.0 + slowdownPerRequest * Math.max(0L, inflight - capacity);
    }

    /**
     * @param timeNs simulated time in nanoseconds at which the request is sent.
     * @param inflight requests in flight on this model, the new one included.
     * @return the mean TTFT in milliseconds for that request.
     */
    public double meanTtftMs(final long timeNs, final long inflight)
    {
        return ttftMs * loadFactor(inflight) * (degradedAt(timeNs) ? degradedTtftFactor : 1.0);
    }

    /**
     * @param timeNs simulated time in nanoseconds at which the request is sent.
     * @param inflight requests in flight on this model, the new one included.
     * @return the mean TPOT in milliseconds for that request.
     */
    public double meanTpotMs(final long timeNs, final long inflight)
    {
        return tpotMs * loadFactor(inflight) * (degradedAt(timeNs) ? degradedTpotFactor : 1.0);
    }

    private static void requirePositive(final String name, final String what, final double value)
    {
        if (!(value > 0.0 && value < Double.POSITIVE_INFINITY))
        {
            throw new IllegalArgumentException("model " + name + ": " + what + " must be finite and > 0: " + value);
        }
    }
}
