package io.multifactor.kernel.inflight;

/**
 * Told of each lease that {@link LeaseTable#sweep(long, java.util.function.IntConsumer, ReclaimedLeaseListener)}
 * reclaims: the counter it was counted on and the lease value itself.
 * <p>
 * Implementations are called on the sweeping thread only; they need not be threadsafe beyond that.
 */
@FunctionalInterface
public interface ReclaimedLeaseListener
{
    /**
     * @param counterOffset value offset of the in-flight counter the lease was counted on.
     * @param lease the lease, as {@link LeaseTable#acquire} returned it.
     */
    void onReclaimed(int counterOffset, long lease);
}
