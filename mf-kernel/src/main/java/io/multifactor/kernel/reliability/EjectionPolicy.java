package io.multifactor.kernel.reliability;

/**
 * A model's {@code reliability} settings as the kernel uses them: how many failures in a row eject it, the ejection
 * time unit and cap in milliseconds, and the share of a decision's candidates ejection may drop.
 * <p>
 * Instances are immutable and threadsafe.
 */
public final class EjectionPolicy
{
    /** {@code max_ejection_percent} of a decision none of whose candidates has {@code reliability}. */
    public static final int DEFAULT_MAX_EJECTION_PERCENT = 10;

    private final int consecutiveFailures;
    private final long baseEjectionMs;
    private final long maxEjectionMs;
    private final int maxEjectionPercent;

    /**
     * @param consecutiveFailures {@code consecutive_5xx}: failures in a row that eject the model, >= 1.
     * @param baseEjectionMs {@code base_ejection_time} in milliseconds, >= 1.
     * @param maxEjectionMs {@code max_ejection_time} in milliseconds, >= {@code baseEjectionMs}.
     * @param maxEjectionPercent {@code max_ejection_percent}, 0..100.
     * @throws IllegalArgumentException when a value is out of range.
     */
    public EjectionPolicy(
        final int consecutiveFailures, final long baseEjectionMs, final long maxEjectionMs, final int maxEjectionPercent)
    {
        if (consecutiveFailures < 1)
        {
            throw new IllegalArgumentException("consecutive_5xx must be >= 1: " + consecutiveFailures);
        }
        if (baseEjectionMs < 1 || maxEjectionMs < baseEjectionMs || maxEjectionMs > EjectionWord.MAX_TIME_MS)
        {
            throw new IllegalArgumentException("ejection times must satisfy 1 <= base <= max <= " +
                EjectionWord.MAX_TIME_MS + " ms: base " + baseEjectionMs + ", max " + maxEjectionMs);
        }
        if (maxEjectionPercent < 0 || maxEjectionPercent > 100)
        {
            throw new IllegalArgumentException("max_ejection_percent must be in 0..100: " + maxEjectionPercent);
        }
        this.consecutiveFailures = consecutiveFailures;
        this.baseEjectionMs = baseEjectionMs;
        this.maxEjectionMs = maxEjectionMs;
        this.maxEjectionPercent = maxEjectionPercent;
    }

    /** @return failures in a row that eject the model. */
    public int consecutiveFailures()
    {
        return consecutiveFailures;
    }

    /** @return the ejection time unit in milliseconds ({@code base_ejection_time}). */
    public long baseEjectionMs()
    {
        return baseEjectionMs;
    }

    /** @return the longest ejection in milliseconds ({@code max_ejection_time}). */
    public long maxEjectionMs()
    {
        return maxEjectionMs;
    }

    /** @return {@code max_ejection_percent}, 0..100. */
    public int maxEjectionPercent()
    {
        return maxEjectionPercent;
    }

    /**
     * @param ejections k, the model's ejection count including this one, >= 1.
     * @return how long an ejection after k ejections lasts: {@code base * k}, capped at the maximum.
     */
    public long ejectionMs(final int ejections)
    {
        return Math.min(maxEjectionMs, baseEjectionMs * ejections);
    }

    /**
     * @param ejections k at the start of a healthy period.
     * @param healthyMs how long the model has been healthy since.
     * @return k after that period: one less for each base ejection time, never below 0.
     */
    public int decayed(final int ejections, final long healthyMs)
    {
        final long steps = Math.max(0, healthyMs) / baseEjectionMs;
        return (int)Math.max(0, ejections - Math.min(steps, ejections));
    }

    /**
     * @param candidates n, a decision's candidates after the request's exclusions.
     * @param percent p, the decision's smallest {@code max_ejection_percent}.
     * @return how many of them ejection may drop: {@code max(1, floor(p / 100 * n))}.
     */
    public static int maxEjected(final int candidates, final int percent)
    {
        return Math.max(1, (int)((long)percent * candidates / 100));
    }

    @Override
    public boolean equals(final Object other)
    {
        return other instanceof EjectionPolicy p && p.consecutiveFailures == consecutiveFailures &&
            p.baseEjectionMs == baseEjectionMs && p.maxEjectionMs == maxEjectionMs &&
            p.maxEjectionPercent == maxEjectionPercent;
    }

    @Override
    public int hashCode()
    {
        return ((consecutiveFailures * 31 + Long.hashCode(baseEjectionMs)) * 31 + Long.hashCode(maxEjectionMs)) * 31 +
            maxEjectionPercent;
    }

    @Override
    public String toString()
    {
        return "EjectionPolicy{consecutive_5xx=" + consecutiveFailures + ", base=" + baseEjectionMs + "ms, max=" +
            maxEjectionMs + "ms, max_percent=" + maxEjectionPercent + '}';
    }
}
