package io.multifactor.sim.fleet;

import io.multifactor.kernel.fleet.FleetExchange;
import io.multifactor.kernel.fleet.FleetSignals;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The shared store of an in-memory fleet, with the semantics of the Redis exchange: each replica publishes its
 * in-flight counts and new latency intervals once per {@code periodNs}; the others see the sum of the counts of every
 * replica whose last publication is at most {@link FleetExchange#EXPIRY_PERIODS} periods old, and receive each
 * interval once at their next exchange (a replica that has not read for {@link FleetExchange#EXPIRY_PERIODS} periods
 * loses what was waiting for it, as Redis entries expire). {@link #available(boolean)} simulates an outage: every
 * exchange fails while it lasts.
 * <p>
 * Memory is bounded by replicas x models: each replica has one table of last counts and one inbox of intervals.
 * <p>
 * This class is threadsafe: every method synchronizes on the fleet.
 */
public final class InMemoryFleet
{
    private final long periodNs;
    private final int modelCapacity;
    private final Map<String, Member> members = new LinkedHashMap<>();
    private boolean available = true;

    /**
     * @param periodNs the exchange period ({@code exchange_every}), positive.
     * @param modelCapacity the most model names per replica, at least 1.
     */
    public InMemoryFleet(final long periodNs, final int modelCapacity)
    {
        if (periodNs <= 0)
        {
            throw new IllegalArgumentException("period must be positive: " + periodNs);
        }
        this.periodNs = periodNs;
        this.modelCapacity = modelCapacity;
    }

    /**
     * Adds a replica.
     *
     * @param replicaId unique in this fleet.
     * @return its exchange, for a {@link io.multifactor.kernel.fleet.FleetAgent}.
     * @throws IllegalArgumentException when the id is taken.
     */
    public synchronized InMemoryFleetExchange join(final String replicaId)
    {
        Objects.requireNonNull(replicaId, "replicaId");
        if (members.containsKey(replicaId))
        {
            throw new IllegalArgumentException("replica id already in the fleet: " + replicaId);
        }
        final Member member = new Member(modelCapacity);
        members.put(replicaId, member);
        return new InMemoryFleetExchange(this, replicaId);
    }

    /**
     * Starts or ends a simulated outage: while unavailable, every exchange fails and publishes nothing.
     *
     * @param available false to fail every exchange.
     */
    public synchronized void available(final boolean available)
    {
        this.available = available;
    }

    /** @return the exchange period in nanoseconds. */
    public long periodNs()
    {
        return periodNs;
    }

    /**
     * The sum of the replicas' last published in-flight counts of a model (live replicas only), as an observer of the
     * whole fleet would read it.
     *
     * @param model model name.
     * @param nowNs the fleet's clock.
     * @return the sum over every live replica, itself included.
     */
    public synchronized long publishedInflight(final String model, final long nowNs)
    {
        long sum = 0;
        for (final Member member : members.values())
        {
            if (member.live(nowNs, expiryNs()))
            {
                final int index = member.counts.indexOf(model);
                sum += index == FleetSignals.NONE ? 0 : member.counts.inflight(index);
            }
        }
        return sum;
    }

    synchronized int exchange(
        final String replicaId, final long nowNs, final FleetSignals local, final FleetSignals remote)
    {
        final Member self = members.get(replicaId);
        if (self == null || self.left)
        {
            return FleetExchange.FAILED;
        }
        if (!available)
        {
            return FleetExchange.FAILED;
        }
        if (self.publishedNs != Long.MIN_VALUE && nowNs - self.readNs > expiryNs())
        {
            // Entries live EXPIRY_PERIODS periods: what waited longer for this replica is gone.
            self.inbox.clear();
        }
        self.readNs = nowNs;
        // Publish: counts replace the last ones; intervals go to every other member's inbox.
        self.counts.clear();
        for (int i = 0; i < local.size(); i++)
        {
            final int index = self.counts.add(local.name(i));
            if (index != FleetSignals.NONE)
            {
                self.counts.inflight(index, local.inflight(i));
            }
            if (local.ttft(i).getTotalCount() == 0 && local.tpot(i).getTotalCount() == 0)
            {
                continue;
            }
            for (final Member other : members.values())
            {
                if (other != self && !other.left)
                {
                    final int at = other.inbox.add(local.name(i));
                    if (at != FleetSignals.NONE)
                    {
                        other.inbox.ttft(at).add(local.ttft(i));
                        other.inbox.tpot(at).add(local.tpot(i));
                    }
                }
            }
        }
        self.publishedNs = nowNs;
        // Read: the others' live counts, and the intervals that waited in this member's inbox.
        int live = 0;
        // The agent emptied the intervals after its last merge: start from no model.
        remote.clear();
        for (final Member other : members.values())
        {
            if (other == self || !other.live(nowNs, expiryNs()))
            {
                continue;
            }
            live++;
            for (int i = 0; i < other.counts.size(); i++)
            {
                final int index = remote.add(other.counts.name(i));
                if (index != FleetSignals.NONE)
                {
                    remote.inflight(index, remote.inflight(index) + other.counts.inflight(i));
                }
            }
        }
        for (int i = 0; i < self.inbox.size(); i++)
        {
            final int index = remote.add(self.inbox.name(i));
            if (index != FleetSignals.NONE)
            {
                remote.ttft(index).add(self.inbox.ttft(i));
                remote.tpot(index).add(self.inbox.tpot(i));
            }
        }
        self.inbox.clear();
        self.liveRemote = live;
        return FleetExchange.EXCHANGED;
    }

    synchronized int liveRemoteReplicas(final String replicaId)
    {
        final Member self = members.get(replicaId);
        return self == null ? 0 : self.liveRemote;
    }

    synchronized void leave(final String replicaId)
    {
        final Member self = members.get(replicaId);
        if (self != null)
        {
            // Like a replica killed with kill -9: its last counts stay until they expire.
            self.left = true;
            self.inbox.clear();
        }
    }

    private long expiryNs()
    {
        return FleetExchange.EXPIRY_PERIODS * periodNs;
    }

    private static final class Member
    {
        final FleetSignals counts;
        final FleetSignals inbox;
        long publishedNs = Long.MIN_VALUE;
        long readNs;
        int liveRemote;
        boolean left;

        Member(final int modelCapacity)
        {
            counts = new FleetSignals(modelCapacity);
            inbox = new FleetSignals(modelCapacity);
        }

        boolean live(final long nowNs, final long expiryNs)
        {
            return publishedNs != Long.MIN_VALUE && nowNs - publishedNs <= expiryNs;
        }
    }
}
