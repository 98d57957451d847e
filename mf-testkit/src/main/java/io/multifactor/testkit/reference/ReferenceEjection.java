package io.multifactor.testkit.reference;

/**
 * The plain reference of one model's ejection (outlier detection), written from the rules in docs/semantics.md
 * ("Ejection of failing models") with plain fields and no concurrency, as the oracle the engine's state machine is
 * compared with. Times are milliseconds on the caller's clock.
 * <p>
 * What the rules leave open is decided here as follows (and the engine does the same): while the model is ejected or
 * its probe is out, results of other leases (begun before the ejection, or kept by {@code max_ejection_percent}) do
 * not count, except that a Retry-After may lengthen an ejection (never shorten it); k decays, one per base ejection
 * time spent healthy since the model last became healthy, and the decayed value is what the next ejection raises; a
 * status outside 0..599 reports nothing; a Retry-After of 0 or less is none.
 * <p>
 * This class is not threadsafe.
 */
public final class ReferenceEjection
{
    private final boolean configured;
    private final int consecutive5xx;
    private final long baseEjectionMs;
    private final long maxEjectionMs;

    private int failuresInARow;
    private int k;
    private long healthySinceMs;
    private boolean ejected;
    private long ejectedUntilMs;
    private boolean probeOut;
    private long probeLease;
    private long ejectionsFor5xx;
    private long ejectionsForRetryAfter;

    /**
     * A model with {@code reliability}.
     *
     * @param consecutive5xx {@code consecutive_5xx}.
     * @param baseEjectionMs {@code base_ejection_time} in milliseconds.
     * @param maxEjectionMs {@code max_ejection_time} in milliseconds.
     */
    public ReferenceEjection(final int consecutive5xx, final long baseEjectionMs, final long maxEjectionMs)
    {
        this.configured = true;
        this.consecutive5xx = consecutive5xx;
        this.baseEjectionMs = baseEjectionMs;
        this.maxEjectionMs = maxEjectionMs;
    }

    /** A model without {@code reliability}: only an explicit {@link #ejectFor} ejects it. */
    public ReferenceEjection()
    {
        this.configured = false;
        this.consecutive5xx = 0;
        this.baseEjectionMs = 1;
        this.maxEjectionMs = 1;
    }

    /**
     * @param nowMs now.
     * @return whether select drops the model now: ejected with time left, or half-open with its probe out.
     */
    public boolean ejected(final long nowMs)
    {
        return ejected && (probeOut || nowMs < ejectedUntilMs);
    }

    /**
     * @param nowMs now.
     * @return the milliseconds of ejection left (0 while the probe is out), NaN when select does not drop it.
     */
    public double millisLeft(final long nowMs)
    {
        if (!ejected(nowMs))
        {
            return Double.NaN;
        }
        return probeOut ? 0.0 : (double)(ejectedUntilMs - nowMs);
    }

    /**
     * A lease begun on the model (by {@code begin} or {@code selectAndBegin}).
     *
     * @param lease the lease.
     * @param nowMs now.
     * @return whether this lease is the half-open model's probe.
     */
    public boolean begin(final long lease, final long nowMs)
    {
        if (ejected && !probeOut && nowMs >= ejectedUntilMs)
        {
            probeOut = true;
            probeLease = lease;
            return true;
        }
        return false;
    }

    /**
     * Whether reserve on select may lease the model: not when its probe is already out.
     *
     * @param nowMs now.
     * @return false only when the model is half-open with its probe out.
     */
    public boolean reservable(final long nowMs)
    {
        return !(ejected && probeOut);
    }

    /**
     * A lease ended with a status (and maybe a Retry-After).
     *
     * @param lease the lease.
     * @param status HTTP status, 0 for no response.
     * @param retryAfterMs the Retry-After in milliseconds, 0 or less for none.
     * @param nowMs now.
     */
    public void end(final long lease, final int status, final long retryAfterMs, final long nowMs)
    {
        final boolean validStatus = status == 0 || status >= 100 && status <= 599;
        final boolean hasRetryAfter = retryAfterMs > 0 && (status == 429 || status == 503);
        final boolean failure = validStatus && !hasRetryAfter && (status == 0 || status >= 500);
        final boolean nothing = !validStatus || status == 429 && !hasRetryAfter;
        final boolean success = validStatus && !failure && !hasRetryAfter && !nothing;
        if (ejected && probeOut && lease == probeLease)
        {
            probeEnded(nothing, success, failure, hasRetryAfter, retryAfterMs, nowMs);
            return;
        }
        if (!configured)
        {
            return;
        }
        if (ejected)
        {
            if (hasRetryAfter && !probeOut)
            {
                final long until = nowMs + Math.min(retryAfterMs, maxEjectionMs);
                if (until > ejectedUntilMs)
                {
                    if (ejectedUntilMs <= nowMs)
                    {
                        ejectionsForRetryAfter++;
                    }
                    ejectedUntilMs = until;
                }
            }
            return;
        }
        if (success)
        {
            failuresInARow = 0;
        }
        else if (hasRetryAfter)
        {
            k = decayedK(nowMs);
            eject(nowMs + Math.min(retryAfterMs, maxEjectionMs));
            ejectionsForRetryAfter++;
        }
        else if (failure)
        {
            failuresInARow++;
            if (failuresInARow >= consecutive5xx)
            {
                k = decayedK(nowMs) + 1;
                eject(nowMs + Math.min(baseEjectionMs * k, maxEjectionMs));
                ejectionsFor5xx++;
            }
        }
    }

    /**
     * A lease ended without a status (the client cancelled).
     *
     * @param lease the lease.
     * @param nowMs now.
     */
    public void endWithoutStatus(final long lease, final long nowMs)
    {
        if (ejected && probeOut && lease == probeLease)
        {
            probeOut = false;
        }
    }

    /**
     * The sweep reclaimed a lease that never ended ({@code inflight_max_age} passed).
     *
     * @param lease the lease.
     * @param nowMs now.
     */
    public void reclaimed(final long lease, final long nowMs)
    {
        if (ejected && probeOut && lease == probeLease)
        {
            probeEnded(false, false, true, false, 0, nowMs);
        }
    }

    /**
     * Ejects the model for {@code millis} without raising k (a scenario's {@code ejected_ms}).
     *
     * @param millis how long.
     * @param nowMs now.
     */
    public void ejectFor(final long millis, final long nowMs)
    {
        if (!ejected)
        {
            k = configured ? decayedK(nowMs) : k;
        }
        ejected = true;
        probeOut = false;
        ejectedUntilMs = nowMs + millis;
        failuresInARow = 0;
    }

    /** @return k, the number of ejections that count now (before decay since the model became healthy). */
    public int k()
    {
        return k;
    }

    /** @return ejections for consecutive failures or a failed probe so far. */
    public long ejectionsFor5xx()
    {
        return ejectionsFor5xx;
    }

    /** @return ejections for a Retry-After so far. */
    public long ejectionsForRetryAfter()
    {
        return ejectionsForRetryAfter;
    }

    private void probeEnded(
        final boolean nothing,
        final boolean success,
        final boolean failure,
        final boolean hasRetryAfter,
        final long retryAfterMs,
        final long nowMs)
    {
        probeOut = false;
        if (nothing)
        {
            return;
        }
        if (success || !configured)
        {
            ejected = false;
            healthySinceMs = nowMs;
            failuresInARow = 0;
            return;
        }
        if (hasRetryAfter)
        {
            eject(nowMs + Math.min(retryAfterMs, maxEjectionMs));
            ejectionsForRetryAfter++;
        }
        else if (failure)
        {
            k = k + 1;
            eject(nowMs + Math.min(baseEjectionMs * k, maxEjectionMs));
            ejectionsFor5xx++;
        }
    }

    private void eject(final long untilMs)
    {
        ejected = true;
        probeOut = false;
        ejectedUntilMs = untilMs;
        failuresInARow = 0;
    }

    private int decayedK(final long nowMs)
    {
        final long healthyMs = Math.max(0, nowMs - healthySinceMs);
        final long steps = healthyMs / baseEjectionMs;
        return (int)Math.max(0, k - steps);
    }
}
