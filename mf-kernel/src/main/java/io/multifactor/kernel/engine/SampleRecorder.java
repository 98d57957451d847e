package io.multifactor.kernel.engine;

import io.multifactor.api.LatencyRecorder;
import io.multifactor.kernel.latency.LatencyWindow;
import org.agrona.concurrent.AtomicBuffer;

/**
 * Takes latency samples into the latency estimators (windows, or peak-EWMA) of the published state: a zero or negative sample is refused, a sample
 * beyond {@link LatencyWindow#MAX_TRACKABLE_MICROS} is clamped, and both are counted engine-wide and per model and
 * metric.
 * <p>
 * This class is threadsafe: wait-free from any number of threads, it allocates nothing and never throws.
 */
final class SampleRecorder
{
    private final StateInstaller installer;
    private final AtomicBuffer values;
    private final int refusedOffset;
    private final int clampedOffset;

    SampleRecorder(final StateInstaller installer, final CounterLayout layout)
    {
        this.installer = installer;
        this.values = layout.values;
        this.refusedOffset = layout.refusedOffset;
        this.clampedOffset = layout.clampedOffset;
    }

    /**
     * @param modelId model handle.
     * @param metric {@link EngineState#TPOT} or {@link EngineState#TTFT}.
     * @param micros the sample in microseconds.
     * @return a {@link LatencyRecorder} result code.
     */
    int record(final int modelId, final int metric, final long micros)
    {
        final EngineState s = installer.state;
        final ModelSignals signals = s.signals(modelId);
        if (signals == null)
        {
            return LatencyRecorder.UNKNOWN_MODEL;
        }
        if (micros <= 0)
        {
            values.getAndAddLong(refusedOffset, 1);
            values.getAndAddLong(s.sampleOffsets[EngineState.sampleIndex(modelId, metric, EngineState.REFUSED)], 1);
            return LatencyRecorder.REFUSED;
        }
        final int result = signals.estimator(metric).record(micros);
        if (result == LatencyRecorder.CLAMPED)
        {
            values.getAndAddLong(clampedOffset, 1);
            values.getAndAddLong(s.sampleOffsets[EngineState.sampleIndex(modelId, metric, EngineState.CLAMPED)], 1);
        }
        return result;
    }
}
