package io.multifactor.kernel.fleet;

import io.multifactor.kernel.metrics.FleetCounters;
import org.agrona.concurrent.NanoClock;

/**
 * What a {@link FleetAgent} needs from the engine whose signals it shares: the engine's side of an exchange (collect
 * its own counts and new latency samples, merge the other replicas'), and where to count the exchanges. The engine
 * implements it, so this package never depends on the engine's.
 * <p>
 * Implementations are threadsafe: every method may be called from the fleet agent's thread while the engine serves
 * requests on others; none of them is on a request's hot path.
 */
public interface FleetMember
{
    /**
     * Makes the windows keep every sample they drain from now on for {@link #collectFleet}, so that nothing recorded
     * after this call misses the fleet (the {@link FleetAgent} calls it when it is created). Idempotent; allocates one
     * histogram per window the first time.
     */
    void attachFleet();

    /**
     * First half of an exchange: drains every window and adds, per model name of the current plans, this engine's own
     * in-flight count and the latency samples drained since the previous call (or since {@link #attachFleet()}) into
     * {@code local}. Off the hot path: takes the engine's lock; allocates only on the first call and for new models.
     *
     * @param local cleared by the caller; models beyond its capacity are left out.
     */
    void collectFleet(FleetSignals local);

    /**
     * Second half of an exchange: per model name of the current plans, replaces the other replicas' in-flight count
     * held in its counter by the count in {@code remote} (0 when absent), so that {@code select},
     * {@code selectAndBegin} and the {@code max_inflight} ceiling read the fleet-wide count, and merges the other
     * replicas' intervals into the current slice of its windows, where they age like local samples. Models of
     * {@code remote} that the plans do not have are ignored. Off the hot path: takes the engine's lock, allocates
     * nothing.
     *
     * @param remote the other replicas' counts and new intervals; histograms within the windows' range.
     */
    void mergeFleet(FleetSignals remote);

    /** Removes the other replicas' in-flight counts from every counter (when the fleet agent stops). */
    void detachFleet();

    /** @return the counters an exchange reports into. */
    FleetCounters fleetCounters();

    /** @return the engine's clock. */
    NanoClock clock();
}
