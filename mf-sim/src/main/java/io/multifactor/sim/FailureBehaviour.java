package io.multifactor.sim;

/**
 * How one simulated model fails: a share of its requests answered with a 500 at any time, a window of simulated
 * time in which it answers every request with a 500 (a model that is down), and a window in which it answers 429 with
 * a {@code Retry-After}. A failed request answers after its time to first token, with no token.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param errorRate share of requests answered 500 outside the windows, in [0, 1].
 * @param failingFromS start of the window of failures in simulated seconds; NaN when none.
 * @param failingUntilS end (exclusive) of the window of failures; NaN when none.
 * @param rateLimitedFromS start of the window of 429s in simulated seconds; NaN when none.
 * @param rateLimitedUntilS end (exclusive) of the window of 429s; NaN when none.
 * @param retryAfterS the {@code Retry-After} of those 429s in seconds, > 0 (1 when there is no window).
 */
public record FailureBehaviour(
    double errorRate,
    double failingFromS,
    double failingUntilS,
    double rateLimitedFromS,
    double rateLimitedUntilS,
    double retryAfterS)
{
    /** A model that never fails. */
    public static final FailureBehaviour NONE = new FailureBehaviour(0.0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, 1.0);

    /** Status of an answered request. */
    public static final int OK = 200;

    /** Status of a failed request. */
    public static final int SERVER_ERROR = 500;

    /** Status of a rate-limited request. */
    public static final int TOO_MANY_REQUESTS = 429;

    /**
     * Checks the ranges given in the parameter descriptions.
     *
     * @throws IllegalArgumentException when a value is out of range.
     */
    public FailureBehaviour
    {
        if (!(errorRate >= 0.0 && errorRate <= 1.0))
        {
            throw new IllegalArgumentException("error_rate must be in [0, 1]: " + errorRate);
        }
        checkWindow("failing", failingFromS, failingUntilS);
        checkWindow("rate_limited", rateLimitedFromS, rateLimitedUntilS);
        if (!(retryAfterS > 0.0 && retryAfterS < 1e6))
        {
            throw new IllegalArgumentException("rate_limited.retry_after_s must be > 0: " + retryAfterS);
        }
    }

    /** @return whether this model ever fails. */
    public boolean fails()
    {
        return errorRate > 0.0 || !Double.isNaN(failingFromS) || !Double.isNaN(rateLimitedFromS);
    }

    /**
     * @param timeNs simulated time at which the request is sent.
     * @param draw a uniform draw in [0, 1) for the error rate.
     * @return the status the model answers: {@link #TOO_MANY_REQUESTS} in the 429 window, {@link #SERVER_ERROR} in
     *     the window of failures or for a share {@code errorRate} of the others, {@link #OK} otherwise.
     */
    public int statusAt(final long timeNs, final double draw)
    {
        final double timeS = timeNs / 1e9;
        if (timeS >= rateLimitedFromS && timeS < rateLimitedUntilS)
        {
            return TOO_MANY_REQUESTS;
        }
        if (timeS >= failingFromS && timeS < failingUntilS || draw < errorRate)
        {
            return SERVER_ERROR;
        }
        return OK;
    }

    /** @return the {@code Retry-After} of a 429 in milliseconds. */
    public long retryAfterMs()
    {
        return Math.round(retryAfterS * 1000.0);
    }

    private static void checkWindow(final String what, final double fromS, final double untilS)
    {
        final boolean set = !Double.isNaN(fromS) || !Double.isNaN(untilS);
        if (set && !(fromS >= 0.0 && untilS > fromS))
        {
            throw new IllegalArgumentException(what + " window must satisfy 0 <= from_s < until_s: " + fromS + ".." + untilS);
        }
    }
}
