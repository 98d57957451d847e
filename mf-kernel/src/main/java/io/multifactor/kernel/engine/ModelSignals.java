package io.multifactor.kernel.engine;

import io.multifactor.kernel.latency.LatencyWindow;
import io.multifactor.kernel.reliability.EjectionTable;
import io.multifactor.kernel.reliability.ModelEjection;
import org.agrona.concurrent.AtomicBuffer;

/**
 * The live signals of one model name: its in-flight counter, its TTFT and TPOT windows and its ejection state. They follow the name across
 * plan replacements, whatever handle the name has.
 * <p>
 * Recording into the windows is threadsafe; advancing them and merging into them belong to the refresh and fleet
 * threads under the engine's lock.
 */
final class ModelSignals
{
    final String name;
    final int counterId;
    final int counterOffset;
    final LatencyWindow ttft;
    final LatencyWindow tpot;
    final ModelEjection ejection;
    /** Value offset of its {@code mf.ejected} counter (ms of ejection left, -1 probing, 0 not ejected), -1 = none. */
    volatile int ejectedOffset = -1;
    /** Other replicas' in-flight count added into this model's counter; written by the fleet agent under the lock. */
    volatile long remoteInflight;

    ModelSignals(
        final String name,
        final int counterId,
        final int counterOffset,
        final long firstSliceIndex,
        final EjectionTable ejections)
    {
        this.ejection = new ModelEjection(ejections, counterId, null);
        this.name = name;
        this.counterId = counterId;
        this.counterOffset = counterOffset;
        this.ttft = new LatencyWindow(firstSliceIndex);
        this.tpot = new LatencyWindow(firstSliceIndex);
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
