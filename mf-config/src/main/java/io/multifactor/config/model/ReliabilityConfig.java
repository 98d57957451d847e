package io.multifactor.config.model;

/**
 * A model's {@code reliability:} block: when a failing model is ejected from selection and for how long. Read and
 * validated here; compiled into the plans as the kernel's {@code EjectionPolicy}.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param consecutive5xx {@code consecutive_5xx}: failures in a row that eject the model, >= 1; 0 when absent (no
 *     ejection).
 * @param baseEjectionTimeNs {@code base_ejection_time}: the first ejection's length, default 30 s.
 * @param maxEjectionPercent {@code max_ejection_percent}: at most this share of a decision's candidates is ejected at
 *     once, 0..100, default 10.
 * @param maxEjectionTimeNs {@code max_ejection_time}: the longest ejection, default 300 s.
 */
public record ReliabilityConfig(
    int consecutive5xx, long baseEjectionTimeNs, int maxEjectionPercent, long maxEjectionTimeNs)
{
    /** Default {@code base_ejection_time}: 30 s. */
    public static final long DEFAULT_BASE_EJECTION_TIME_NS = 30_000_000_000L;

    /** Default {@code max_ejection_percent}: 10. */
    public static final int DEFAULT_MAX_EJECTION_PERCENT = 10;

    /** Default {@code max_ejection_time}: 300 s. */
    public static final long DEFAULT_MAX_EJECTION_TIME_NS = 300_000_000_000L;

    /** No {@code reliability:} block: never ejected. */
    public static final ReliabilityConfig NONE = new ReliabilityConfig(
        0, DEFAULT_BASE_EJECTION_TIME_NS, DEFAULT_MAX_EJECTION_PERCENT, DEFAULT_MAX_EJECTION_TIME_NS);

    /** @return whether failures eject the model ({@code consecutive_5xx} is set). */
    public boolean ejects()
    {
        return consecutive5xx > 0;
    }
}
