package io.multifactor.kernel.engine;

import io.multifactor.api.LatencyRecorder;
import io.multifactor.kernel.latency.LatencyWindow;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.NanoClock;

/**
 * Takes latency samples into the latency estimators (windows, or peak-EWMA) of the published state, and while a decision
 * is {@code litellm_latency} into the models' rings of their last samples: a zero or negative sample is refused, a sample
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
    private final NanoClock clock;

    SampleRecorder(final StateInstaller installer, final CounterLayout layout, final NanoClock clock)
    {
        this.installer = installer;
        this.clock = clock;
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
        if (s.keepsRecentLatencies)
        {
            // litellm_latency's rings: only while a decision reads them, so that no other record reads the clock.
            (metric == EngineState.TTFT ? signals.ttftRecent : signals.tpotRecent)
                .record(clock.nanoTime(), Math.min(micros, LatencyWindow.MAX_TRACKABLE_MICROS));
        }
        if (result == LatencyRecorder.CLAMPED)
        {
            values.getAndAddLong(clampedOffset, 1);
            values.getAndAddLong(s.sampleOffsets[EngineState.sampleIndex(modelId, metric, EngineState.CLAMPED)], 1);
        }
        return result;
    }
}
