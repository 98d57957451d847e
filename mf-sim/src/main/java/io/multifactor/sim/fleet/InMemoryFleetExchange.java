package io.multifactor.sim.fleet;

import io.multifactor.kernel.fleet.FleetExchange;
import io.multifactor.kernel.fleet.FleetSignals;

/**
 * One replica's side of an {@link InMemoryFleet}: publishes and reads once per period, as the Redis exchange does.
 * {@link #close()} stops publishing without withdrawing the last counts, which then expire after
 * {@link FleetExchange#EXPIRY_PERIODS} periods, like a replica killed with {@code kill -9}.
 * <p>
 * This class is used by one fleet agent thread at a time; the fleet it belongs to is threadsafe.
 */
public final class InMemoryFleetExchange implements FleetExchange
{
    private final InMemoryFleet fleet;
    private final String replicaId;

    InMemoryFleetExchange(final InMemoryFleet fleet, final String replicaId)
    {
        this.fleet = fleet;
        this.replicaId = replicaId;
    }

    /** @return this replica's id in the fleet. */
    public String replicaId()
    {
        return replicaId;
    }

    @Override
    public int exchange(final long nowNs, final FleetSignals local, final FleetSignals remote)
    {
        return fleet.exchange(replicaId, nowNs, local, remote);
    }

    @Override
    public long periodNs()
    {
        return fleet.periodNs();
    }

    @Override
    public long tickNs()
    {
        return fleet.periodNs();
    }

    @Override
    public int liveRemoteReplicas()
    {
        return fleet.liveRemoteReplicas(replicaId);
    }

    @Override
    public long skippedEntryCount()
    {
        return 0;
    }

    @Override
    public void close()
    {
        fleet.leave(replicaId);
    }
}
