package io.multifactor.kernel.latency;

import io.multifactor.api.LatencyRecorder;

/**
 * What the engine reads one model's latency for one metric (TTFT or TPOT) from: samples go in from any thread, and the
 * refresh agent reads the estimate that {@code select} will see until the next refresh. Two implementations: the
 * percentile over a rolling window ({@link LatencyWindow}, {@code latency_estimator: window}, the default) and
 * Finagle's peak-EWMA ({@link PeakEwma}, {@code latency_estimator: peak_ewma}).
 * <p>
 * Implementations are threadsafe under this contract: {@link #record(long)} is lock-free and allocation-free from any
 * number of threads and never throws; {@link #refresh} and {@link #estimateMicros} belong to one thread at a time (the
 * engine's refresh agent, under the engine's lock).
 */
public interface LatencyEstimator
{
    /** {@link #estimateMicros} when there is no observation: the signal is missing. */
    long NO_OBSERVATION = LatencyWindow.NO_OBSERVATION;

    /**
     * Records one sample. Lock-free, allocates nothing, never throws.
     *
     * @param micros the sample in microseconds, already checked to be positive.
     * @return {@link LatencyRecorder#RECORDED}, or {@link LatencyRecorder#CLAMPED} when above
     *     {@link LatencyWindow#MAX_TRACKABLE_MICROS} (recorded at that maximum).
     */
    int record(long micros);

    /**
     * Brings the estimator to the refresh at {@code nowNs}: a window rotates its slices and drains its recorder; an
     * estimate that has had no sample for too long becomes missing. Allocates nothing.
     *
     * @param sliceIndex index of the window slice {@code nowNs} falls in.
     * @param nowNs the engine clock's time of the refresh.
     */
    void refresh(long sliceIndex, long nowNs);

    /**
     * The estimate to publish at {@code nowNs}. Allocates nothing.
     *
     * @param percentile the decision's {@code latency_percentile}, 1..100 (ignored by estimators that have none).
     * @param nowNs the engine clock's time of the refresh.
     * @return microseconds, at least 1, or {@link #NO_OBSERVATION}.
     */
    long estimateMicros(int percentile, long nowNs);

    /** @return bytes of memory this estimator holds. */
    long footprintBytes();
}
