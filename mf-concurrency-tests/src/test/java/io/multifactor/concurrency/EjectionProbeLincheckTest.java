package io.multifactor.concurrency;

import io.multifactor.kernel.reliability.EjectionPolicy;
import io.multifactor.kernel.reliability.EjectionTable;
import io.multifactor.kernel.reliability.ModelEjection;
import io.multifactor.kernel.reliability.RequestResult;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The half-open transition of a model's ejection checked against its sequential specification (this class run on one
 * thread): the model starts half-open (ejected, its time up); leases begun on it race to claim its one probe (one CAS),
 * and ends of those leases (success, failure, no status) race with the claims and with reads of whether select sees
 * the model as ejected. Exactly one lease is the probe until it ends; its success makes the model healthy, its failure
 * ejects it again, its end without a status makes it half-open again; other leases' results change nothing.
 * <p>
 * A handle names the lease its last begin took, published only once the begin is complete (as a caller gets its lease
 * only when {@code begin} returns); a second begin of a handle that holds a lease, and an end of an empty one, do
 * nothing.
 */
@Param(name = "handle", gen = IntGen.class, conf = "0:2")
@Param(name = "outcome", gen = IntGen.class, conf = "0:2")
public class EjectionProbeLincheckTest
{
    private static final int[] STATUSES = { 200, 500, -1 };
    private static final long BEGINNING = -1;
    private static final long ENDING = -2;

    private volatile long nowNs;
    private final EjectionTable table = new EjectionTable(2, () -> nowNs, 0L);
    private final ModelEjection model = new ModelEjection(table, 1, new EjectionPolicy(1, 10_000, 60_000, 100));
    private final AtomicLong nextLease = new AtomicLong(1);
    private final AtomicLongArray handles = new AtomicLongArray(3);

    public EjectionProbeLincheckTest()
    {
        model.ejectForMillis(1_000);
        nowNs = 2_000_000_000L;
    }

    /**
     * @param handle which handle receives the lease.
     * @return what {@link ModelEjection#admit()} said: admitted, probe claimed, or probe taken; -1 when the handle
     *     already holds a lease (nothing begun).
     */
    @Operation
    public int begin(@Param(name = "handle") final int handle)
    {
        // A handle holds one lease at a time (a caller ends its lease before it begins the next one); a begin or end
        // of it under way is waited for, so that each operation on a handle takes effect at once, as a whole.
        while (!handles.compareAndSet(handle, 0, BEGINNING))
        {
            if (handles.get(handle) > 0)
            {
                return -1;
            }
            Thread.onSpinWait();
        }
        final long lease = nextLease.getAndIncrement();
        final int admitted = model.admit();
        if (admitted == ModelEjection.PROBE_CLAIMED)
        {
            model.probe(lease);
        }
        handles.set(handle, lease);
        return admitted;
    }

    /**
     * @param handle the handle whose lease ends (none, or one still beginning: nothing happens).
     * @param outcome 0 success, 1 failure, 2 no status.
     */
    @Operation
    public void end(@Param(name = "handle") final int handle, @Param(name = "outcome") final int outcome)
    {
        while (true)
        {
            final long lease = handles.get(handle);
            if (lease == ENDING || lease == BEGINNING)
            {
                Thread.onSpinWait();
                continue;
            }
            if (lease <= 0)
            {
                return;
            }
            // Claimed once (as the lease table releases a lease once), reported, and only then free again.
            if (handles.compareAndSet(handle, lease, ENDING))
            {
                model.onEnd(lease, RequestResult.classify(STATUSES[outcome], 0), 0);
                handles.set(handle, 0);
                return;
            }
        }
    }

    /** @return whether select sees the model as ejected now. */
    @Operation
    public boolean ejected()
    {
        return table.ejected(1);
    }

    @Test
    void modelChecking()
    {
        new ModelCheckingOptions()
            .iterations(Budget.ITERATIONS)
            .invocationsPerIteration(Budget.INVOCATIONS)
            .threads(3).actorsPerThread(2).actorsBefore(1).actorsAfter(1)
            .check(EjectionProbeLincheckTest.class);
    }

    @Test
    void stress()
    {
        new StressOptions()
            .iterations(Budget.ITERATIONS)
            .invocationsPerIteration(Budget.STRESS_INVOCATIONS)
            .threads(3).actorsPerThread(3).actorsBefore(1).actorsAfter(1)
            .check(EjectionProbeLincheckTest.class);
    }
}
