package io.multifactor.kernel.engine;

import io.multifactor.kernel.latency.LatencyEstimator;
import io.multifactor.kernel.latency.LatencyEstimatorType;
import io.multifactor.kernel.latency.LatencyWindow;
import io.multifactor.kernel.latency.PeakEwma;
import io.multifactor.kernel.latency.RecentLatencies;
import io.multifactor.kernel.reliability.ModelEjection;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.NanoClock;

/**
 * The live signals of one model name: its in-flight and in-flight tokens counters, its TTFT and TPOT estimators, the
 * rings of its last TTFT and TPOT samples ({@code litellm_latency}) and its ejection state. They follow the name
 * across plan replacements, whatever handle the name has. The windows always exist (the fleet exchange reads and
 * merges them); the estimators are the windows themselves with {@code latency_estimator: window}, or one
 * {@link PeakEwma} per metric with {@code peak_ewma} (then the windows get no local samples: a replica's peak-EWMA
 * estimate is its own, not exchanged).
 * <p>
 * Recording into the windows and the rings is threadsafe; advancing them and merging into them belong to the refresh and fleet
 * threads under the engine's lock.
 */
final class ModelSignals
{
    final String name;
    final int counterId;
    final int counterOffset;
    /** The in-flight tokens counter ({@code mf.inflight.tokens}): id and value offset; -1 when none (tests). */
    final int tokenCounterId;
    final int tokenCounterOffset;
    final LatencyWindow ttft;
    final LatencyWindow tpot;
    /** Its ejection state machine; set by the installer when it creates these signals, before they are published. */
    ModelEjection ejection;
    /** Value offset of its {@code mf.ejected} counter (ms of ejection left, -1 probing, 0 not ejected), -1 = none. */
    volatile int ejectedOffset = -1;
    final LatencyEstimator ttftEstimator;
    final LatencyEstimator tpotEstimator;
    /** The last TTFT and TPOT samples with their times, what {@code litellm_latency} averages (local samples only). */
    final RecentLatencies ttftRecent = new RecentLatencies();
    final RecentLatencies tpotRecent = new RecentLatencies();
    /** Other replicas' in-flight count added into this model's counter; written by the fleet agent under the lock. */
    volatile long remoteInflight;

    ModelSignals(
        final String name,
        final int counterId,
        final int counterOffset,
        final long firstSliceIndex)
    {
        this(name, counterId, counterOffset, -1, -1, firstSliceIndex, SignalSettings.defaults(), null, 0L);
    }

    /**
     * @param name the model's name.
     * @param counterId its in-flight counter's id.
     * @param counterOffset that counter's value offset.
     * @param tokenCounterId its in-flight tokens counter's id.
     * @param tokenCounterOffset that counter's value offset.
     * @param firstSliceIndex the windows' current slice.
     * @param settings which estimator, and peak-EWMA's decay and window.
     * @param clockOrNull the engine's clock (needed with peak-EWMA).
     * @param originNs the clock's time at the engine's origin.
     */
    ModelSignals(
        final String name,
        final int counterId,
        final int counterOffset,
        final int tokenCounterId,
        final int tokenCounterOffset,
        final long firstSliceIndex,
        final SignalSettings settings,
        final NanoClock clockOrNull,
        final long originNs)
    {
        this.name = name;
        this.counterId = counterId;
        this.counterOffset = counterOffset;
        this.tokenCounterId = tokenCounterId;
        this.tokenCounterOffset = tokenCounterOffset;
        this.ttft = new LatencyWindow(firstSliceIndex);
        this.tpot = new LatencyWindow(firstSliceIndex);
        if (settings.latencyEstimator() == LatencyEstimatorType.PEAK_EWMA)
        {
            this.ttftEstimator = new PeakEwma(clockOrNull, originNs, settings.ewmaDecayNs(), settings.latencyWindowNs());
            this.tpotEstimator = new PeakEwma(clockOrNull, originNs, settings.ewmaDecayNs(), settings.latencyWindowNs());
        }
        else
        {
            this.ttftEstimator = ttft;
            this.tpotEstimator = tpot;
        }
    }

    /**
     * @param metric {@link EngineState#TPOT} or {@link EngineState#TTFT}.
     * @return the estimator of that metric.
     */
    LatencyEstimator estimator(final int metric)
    {
        return metric == EngineState.TTFT ? ttftEstimator : tpotEstimator;
    }

    /**
     * Under the engine's lock: brings both metrics to a refresh (the windows always advance, for the fleet).
     *
     * @param sliceIndex the windows' slice now.
     * @param nowNs the engine clock's time.
     */
    void refresh(final long sliceIndex, final long nowNs)
    {
        ttft.advance(sliceIndex);
        tpot.advance(sliceIndex);
        if (ttftEstimator != ttft)
        {
            ttftEstimator.refresh(sliceIndex, nowNs);
            tpotEstimator.refresh(sliceIndex, nowNs);
        }
    }

    /** @return bytes of memory of both windows and, with peak-EWMA, both estimators. */
    long footprintBytes()
    {
        final long windows = ttft.footprintBytes() + tpot.footprintBytes();
        return ttftEstimator == ttft ? windows : windows + ttftEstimator.footprintBytes() + tpotEstimator.footprintBytes();
    }

    /**
     * Under the engine's lock: replaces the other replicas' count held in this model's counter. The fleet thread is the
     * only writer of {@code remoteInflight}, so adding the delta keeps the local leases' count intact.
     *
     * @param values the counters' values buffer.
     * @param remoteInflight the other replicas' count now.
     */
    void remoteInflight(final AtomicBuffer values, final long remoteInflight)
    {
        final long delta = remoteInflight - this.remoteInflight;
        if (delta != 0)
        {
            values.getAndAddLong(counterOffset, delta);
            this.remoteInflight = remoteInflight;
        }
    }
}
