package io.multifactor.kernel.engine;

import io.multifactor.kernel.latency.LatencyWindow;
import io.multifactor.kernel.metrics.CounterTypes;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.scoring.CandidateSignals;
import org.agrona.concurrent.AtomicBuffer;

/**
 * Publishes the signals {@code select} reads: per model and percentile slot, the TPOT and TTFT estimates of its
 * {@link io.multifactor.kernel.latency.LatencyEstimator}s (window percentiles, or peak-EWMA read at the refresh) into the state's model-major array (milliseconds, NaN for no observation) and into their {@code mf.latency}
 * counters (microseconds, {@link CounterTypes#NO_OBSERVATION} for none); then the same values per decision, in
 * candidate order, into its {@link CandidateSignals}, which it then seals ({@link CandidateSignals#seal}).
 * <p>
 * This class is not threadsafe: {@link #publish} runs on one thread at a time (the engine calls it under its lock, from
 * the refresh cycle and from plan installation); its release stores make what it publishes safe to read from any
 * thread. It allocates nothing.
 */
final class SignalPublisher
{
    private final AtomicBuffer values;

    SignalPublisher(final AtomicBuffer values)
    {
        this.values = values;
    }

    /**
     * Computes and publishes every latency estimate of a state from its estimators as they are at {@code nowNs}
     * (a percentile of the window, or the peak-EWMA decayed to {@code nowNs}).
     *
     * @param s the state to publish into.
     * @param nowNs the engine clock's time.
     */
    void publish(final EngineState s, final long nowNs)
    {
        final int[] latencyCounterOffsets = s.latencyCounterOffsets;
        final Plans plans = s.plans;
        final int slotCount = s.slotCount;
        final ModelSignals[] byModel = s.byModel;
        for (int modelId = 0; modelId < byModel.length; modelId++)
        {
            final ModelSignals signals = byModel[modelId];
            if (signals == null)
            {
                continue;
            }
            for (int slot = 0; slot < slotCount; slot++)
            {
                final int percentile = plans.percentile(slot);
                final int index = EngineState.index(modelId, slotCount, slot, EngineState.TPOT);
                final long tpotMicros = signals.tpotEstimator.estimateMicros(percentile, nowNs);
                final long ttftMicros = signals.ttftEstimator.estimateMicros(percentile, nowNs);
                s.publishLatencyMs(index, toMs(tpotMicros));
                s.publishLatencyMs(index + EngineState.TTFT, toMs(ttftMicros));
                publishCounter(latencyCounterOffsets[index], tpotMicros);
                publishCounter(latencyCounterOffsets[index + EngineState.TTFT], ttftMicros);
            }
        }
        // The same values per decision, in candidate order: what select reads.
        final LiveDecision[] decisions = s.decisions;
        for (int decisionId = 0; decisionId < decisions.length; decisionId++)
        {
            final LiveDecision decision = decisions[decisionId];
            if (decision == null)
            {
                continue;
            }
            final CandidateSignals candidates = decision.signals;
            final DecisionPlan plan = decision.plan;
            final int slot = plan.percentileSlot();
            for (int i = 0; i < candidates.candidateCount(); i++)
            {
                final int index = EngineState.index(plan.candidateModelId(i), slotCount, slot, EngineState.TPOT);
                candidates.publishLatencyMs(i, s.latencyMs(index), s.latencyMs(index + EngineState.TTFT));
            }
            candidates.seal(plan);
        }
    }

    private void publishCounter(final int offset, final long micros)
    {
        if (offset >= 0)
        {
            values.putLongRelease(offset, micros == LatencyWindow.NO_OBSERVATION ? CounterTypes.NO_OBSERVATION : micros);
        }
    }

    private static double toMs(final long micros)
    {
        return micros == LatencyWindow.NO_OBSERVATION ? Double.NaN : micros / 1000.0;
    }
}
