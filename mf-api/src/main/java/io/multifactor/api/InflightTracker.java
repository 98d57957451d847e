package io.multifactor.api;

/**
 * Counts the requests in flight per model through leases: {@link #begin(int)} when a request is sent to a model,
 * {@link #end(long)} when it completes or fails.
 * <p>
 * A lease is a primitive {@code long}, never an object. Ending a lease more than once, ending one that was already
 * reclaimed as stale, or ending a value that is not a lease changes no count.
 * <p>
 * Implementations are threadsafe: any number of threads may begin and end at once.
 */
public interface InflightTracker
{
    /** The lease of nothing: {@link #begin(int)} for an unknown model. Ending it does nothing. */
    long NO_LEASE = 0L;

    /**
     * Counts one more request in flight to a model.
     *
     * @param modelId model handle.
     * @return the lease to pass to {@link #end(long)}, or {@link #NO_LEASE} for an unknown model.
     */
    long begin(int modelId);

    /**
     * Counts one request less, once per lease.
     *
     * @param lease a value returned by {@link #begin(int)}.
     * @return whether this call released the lease (false for a second end, a reclaimed lease or a garbage value).
     */
    boolean end(long lease);
}
