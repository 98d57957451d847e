package io.multifactor.api;

/**
 * Takes latency observations of models: time to first token (TTFT) and time per output token (TPOT), in microseconds.
 * <p>
 * Implementations are threadsafe: any number of threads may record at once. Recording never throws for a bad sample;
 * it refuses or clamps it, counts it, and says so in the returned code.
 */
public interface LatencyRecorder
{
    /** The sample was recorded as given. */
    int RECORDED = 0;

    /** The sample was above the trackable maximum and was recorded at that maximum. */
    int CLAMPED = 1;

    /** The sample was zero or negative and was not recorded. */
    int REFUSED = 2;

    /** The model handle is unknown (or retired by a reload) and nothing was recorded. */
    int UNKNOWN_MODEL = 3;

    /**
     * Records one time-to-first-token sample.
     *
     * @param modelId model handle.
     * @param ttftMicros time to first token in microseconds.
     * @return {@link #RECORDED}, {@link #CLAMPED}, {@link #REFUSED} or {@link #UNKNOWN_MODEL}.
     */
    int recordTtftMicros(int modelId, long ttftMicros);

    /**
     * Records one time-per-output-token sample.
     *
     * @param modelId model handle.
     * @param tpotMicros time per output token in microseconds.
     * @return {@link #RECORDED}, {@link #CLAMPED}, {@link #REFUSED} or {@link #UNKNOWN_MODEL}.
     */
    int recordTpotMicros(int modelId, long tpotMicros);

    /**
     * Records one time-to-first-token sample given in milliseconds, as in scenario files. A NaN or infinite value is
     * refused.
     *
     * @param modelId model handle.
     * @param ttftMs time to first token in milliseconds.
     * @return as {@link #recordTtftMicros(int, long)}.
     */
    default int recordTtftMs(final int modelId, final double ttftMs)
    {
        final long micros = msToMicros(ttftMs);
        return micros <= 0 ? REFUSED : recordTtftMicros(modelId, micros);
    }

    /**
     * Records one time-per-output-token sample given in milliseconds. A NaN or infinite value is refused.
     *
     * @param modelId model handle.
     * @param tpotMs time per output token in milliseconds.
     * @return as {@link #recordTpotMicros(int, long)}.
     */
    default int recordTpotMs(final int modelId, final double tpotMs)
    {
        final long micros = msToMicros(tpotMs);
        return micros <= 0 ? REFUSED : recordTpotMicros(modelId, micros);
    }

    /**
     * Converts milliseconds to whole microseconds, rounding to nearest; NaN, infinite, zero and negative give 0 (refused),
     * a positive value below half a microsecond gives 1 (the smallest recordable sample).
     *
     * @param ms milliseconds.
     * @return microseconds, or 0 when the value cannot be recorded.
     */
    static long msToMicros(final double ms)
    {
        if (!(ms > 0.0) || ms == Double.POSITIVE_INFINITY)
        {
            return 0L;
        }
        final double micros = ms * 1000.0;
        return micros >= Long.MAX_VALUE ? Long.MAX_VALUE : Math.max(1L, Math.round(micros));
    }
}
