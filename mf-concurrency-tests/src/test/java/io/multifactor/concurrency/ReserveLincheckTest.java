package io.multifactor.concurrency;

import io.multifactor.kernel.metrics.CounterBuffers;
import io.multifactor.kernel.inflight.LeaseTable;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.jetbrains.lincheck.datastructures.ThreadIdGen;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The reserve check of {@code selectAndBegin} ({@link LeaseTable#acquireWithin}) against its sequential specification:
 * a reservation succeeds exactly when fewer than {@value #MAX_INFLIGHT} leases are held, so concurrent reservations
 * never take the model past its ceiling; ends and double ends release what they should. The sequential run of this
 * class is the specification.
 * <p>
 * Each thread reserves and ends its own lease handle (the thread id), as a request does. With handles shared between
 * threads, Lincheck finds a history no sequential order gives: an end frees the lease's slot, so a second end of the
 * same lease on another thread already fails, before it counts the lease out, so a reservation that starts after that
 * second end can still find the model full. The count is never below the live leases: an end under way can only make
 * a reservation refuse early, never admit one past the ceiling.
 * <p>
 * After every run: the count equals the number of live leases and stays within the ceiling.
 */
@Param(name = "handle", gen = ThreadIdGen.class)
public class ReserveLincheckTest
{
    static final long MAX_INFLIGHT = 2;

    private final CounterBuffers counters = CounterBuffers.inMemory(4);
    private final int model =
        CounterBuffers.valueOffset(counters.allocate("inflight m", CounterBuffers.INFLIGHT_TYPE_ID));
    private final LeaseTable table = new LeaseTable(16, counters.values(),
        CounterBuffers.valueOffset(counters.allocate("full", CounterBuffers.EVENT_TYPE_ID)),
        CounterBuffers.valueOffset(counters.allocate("reclaimed", CounterBuffers.EVENT_TYPE_ID)));
    private final AtomicLongArray handles = new AtomicLongArray(8);

    /**
     * @param handle which lease handle receives the lease when one is taken.
     * @return whether the reservation took a lease (false: the model was at its ceiling).
     */
    @Operation
    public boolean reserve(@Param(name = "handle") final int handle)
    {
        final long lease = table.acquireWithin(model, MAX_INFLIGHT, 1L);
        if (lease == LeaseTable.AT_LIMIT)
        {
            return false;
        }
        handles.set(handle, lease);
        return true;
    }

    /**
     * @param handle the lease handle to end.
     * @return whether this end counted a lease out.
     */
    @Operation
    public boolean end(@Param(name = "handle") final int handle)
    {
        return table.release(handles.get(handle));
    }

    /** The count is the number of live leases, within the ceiling. */
    @Validate
    public void withinCeiling()
    {
        final long count = counters.values().getLongVolatile(model);
        if (count < 0 || count > MAX_INFLIGHT || count != table.liveCount())
        {
            throw new IllegalStateException("counter " + count + ", " + table.liveCount() + " live leases");
        }
    }

    @Test
    void modelChecking()
    {
        new ModelCheckingOptions()
            .iterations(Budget.ITERATIONS)
            .invocationsPerIteration(Budget.INVOCATIONS)
            .threads(3).actorsPerThread(2).actorsBefore(1).actorsAfter(1)
            .check(ReserveLincheckTest.class);
    }

    @Test
    void stress()
    {
        new StressOptions()
            .iterations(Budget.ITERATIONS)
            .invocationsPerIteration(Budget.STRESS_INVOCATIONS)
            .threads(3).actorsPerThread(3).actorsBefore(1).actorsAfter(1)
            .check(ReserveLincheckTest.class);
    }
}
