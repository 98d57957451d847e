package io.multifactor.concurrency;

import io.multifactor.api.InflightTracker;
import io.multifactor.kernel.metrics.CounterBuffers;
import io.multifactor.kernel.inflight.LeaseTable;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The lease protocol checked against its sequential specification (this class run on one thread): begin, end, a
 * second end of the same lease, an end after the sweep reclaimed it, and the sweep itself (one sweeper at a time, as
 * the engine's refresh agent). Leases are named by a small handle index so that results do not depend on which slot a
 * lease got; the sweep reclaims every lease stamped before the epoch it starts, as the engine's does with its epochs.
 * <p>
 * The in-flight count is checked after every run (it equals the number of leases the table holds), not as a concurrent
 * operation: an end counts out after its lease is freed, so while ends are under way the counter is above the number
 * of live leases (never below, the side {@code max_inflight} needs), which no sequential history reproduces. Lincheck
 * found that history with a concurrent read of the count; {@code LeaseSweepStressTest} bounds the count on real
 * threads instead.
 * <p>
 * Two models share the table (handle {@code h} begins on model {@code h % 2}), so that every claim word carries a
 * counter of its own and each end and reclaim must count out of the counter its lease counted in; the table's slots
 * sit four to a cache line and every thread probes from its own home line, so the threads here claim slots of the
 * same few lines.
 */
@Param(name = "handle", gen = IntGen.class, conf = "0:2")
public class LeaseTableLincheckTest
{
    private final CounterBuffers counters = CounterBuffers.inMemory(5);
    private final int[] models = {
        CounterBuffers.valueOffset(counters.allocate("inflight m", CounterBuffers.INFLIGHT_TYPE_ID)),
        CounterBuffers.valueOffset(counters.allocate("inflight n", CounterBuffers.INFLIGHT_TYPE_ID)),
    };
    private final LeaseTable table = new LeaseTable(16, counters.values(),
        CounterBuffers.valueOffset(counters.allocate("full", CounterBuffers.EVENT_TYPE_ID)),
        CounterBuffers.valueOffset(counters.allocate("reclaimed", CounterBuffers.EVENT_TYPE_ID)));
    private final AtomicLongArray handles = new AtomicLongArray(3);
    private volatile long epoch = 1;

    /**
     * @param handle which lease handle receives the lease (a lease it held before is forgotten, as a lost end).
     * @return whether a lease was taken.
     */
    @Operation
    public boolean begin(@Param(name = "handle") final int handle)
    {
        final long lease = table.acquire(models[handle % 2], epoch);
        handles.set(handle, lease);
        return lease != InflightTracker.NO_LEASE;
    }

    /**
     * @param handle the lease handle to end (again, possibly, or after the sweep).
     * @return whether this end counted the lease out.
     */
    @Operation
    public boolean end(@Param(name = "handle") final int handle)
    {
        return table.release(handles.get(handle));
    }

    /** @return leases reclaimed: every one begun before this sweep started. */
    @Operation(nonParallelGroup = "sweeper")
    public int sweep()
    {
        final long cutoff = epoch + 1;
        epoch = cutoff;
        return table.sweep(cutoff);
    }

    /** Each model's counter is the number of its live leases, never negative. */
    @Validate
    public void countsMatchLeases()
    {
        for (final int model : models)
        {
            final long count = counters.values().getLongVolatile(model);
            if (count < 0 || count != table.liveCount(model))
            {
                throw new IllegalStateException(
                    "counter " + count + " but " + table.liveCount(model) + " live leases of offset " + model);
            }
        }
        if (table.liveCount(models[0]) + table.liveCount(models[1]) != table.liveCount())
        {
            throw new IllegalStateException("a lease is held on neither model");
        }
    }

    @Test
    void modelChecking()
    {
        new ModelCheckingOptions()
            .iterations(Budget.ITERATIONS)
            .invocationsPerIteration(Budget.INVOCATIONS)
            .threads(2).actorsPerThread(3).actorsBefore(2).actorsAfter(1)
            .check(LeaseTableLincheckTest.class);
    }

    @Test
    void stress()
    {
        new StressOptions()
            .iterations(Budget.ITERATIONS)
            .invocationsPerIteration(Budget.STRESS_INVOCATIONS)
            .threads(3).actorsPerThread(3).actorsBefore(1).actorsAfter(1)
            .check(LeaseTableLincheckTest.class);
    }
}
