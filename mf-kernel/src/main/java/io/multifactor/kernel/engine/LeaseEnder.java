package io.multifactor.kernel.engine;

import io.multifactor.kernel.inflight.LeaseTable;
import io.multifactor.kernel.reliability.EjectionTable;
import io.multifactor.kernel.reliability.ModelEjection;
import io.multifactor.kernel.reliability.RequestResult;

/**
 * Ends leases and reports their requests' results to the ejection table: releases a lease once, and only the call
 * that released it reports the result ({@link RequestResult}), to the lease's own model (found by its in-flight
 * counter, so a model retired since still gets it, and a model without {@code reliability} gets nothing).
 * <p>
 * This class is threadsafe: lock-free from any number of threads, it allocates nothing and never throws; a second
 * end, a reclaimed lease or a garbage value changes nothing and reports nothing.
 */
final class LeaseEnder
{
    private final LeaseTable leases;
    private final EjectionTable ejections;

    LeaseEnder(final LeaseTable leases, final EjectionTable ejections)
    {
        this.leases = leases;
        this.ejections = ejections;
    }

    /**
     * @param lease a lease value, or anything else.
     * @param status the response's HTTP status, {@link RequestResult#NO_RESPONSE} when there was none.
     * @param retryAfterMillis its {@code Retry-After} in milliseconds, {@code <= 0} when it carried none.
     * @return whether this call released the lease.
     */
    boolean endWithStatus(final long lease, final int status, final long retryAfterMillis)
    {
        return end(lease, RequestResult.classify(status, retryAfterMillis), retryAfterMillis);
    }

    /**
     * @param lease a lease value, or anything else.
     * @param result a {@link RequestResult} code ({@link RequestResult#NOTHING} for a cancelled request).
     * @param retryAfterMillis the response's {@code Retry-After} in milliseconds, {@code <= 0} for none.
     * @return whether this call released the lease.
     */
    boolean end(final long lease, final int result, final long retryAfterMillis)
    {
        final int counterOffset = leases.releaseCounterOffset(lease);
        if (counterOffset == LeaseTable.NOT_RELEASED)
        {
            return false;
        }
        if (result == RequestResult.NOTHING && ejections.allHealthy())
        {
            // Nothing to report, and no model is half-open: this lease is no probe to release.
            return true;
        }
        final ModelEjection model = ejections.model(counterOffset);
        if (model != null)
        {
            model.onEnd(lease, result, retryAfterMillis);
        }
        return true;
    }
}
