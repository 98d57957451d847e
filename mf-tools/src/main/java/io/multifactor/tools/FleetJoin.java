package io.multifactor.tools;

import io.multifactor.config.model.FleetConfig;
import io.multifactor.kernel.fleet.FleetExchange;
import io.multifactor.redis.RedisFleetExchange;
import io.multifactor.redis.RedisFleetSettings;

import java.time.Duration;

/**
 * How {@code bin/mf serve} and {@code bin/mf envoy} join the fleet their configuration names (its {@code fleet:}
 * block): a {@link RedisFleetExchange} built from {@code redis}, {@code cluster} and {@code exchange_every}, handed to
 * the engine's host, which runs it on its fleet agent's thread and closes it, so that the replicas of one cluster share
 * their in-flight counts and latency windows. The block is read once, at start: a reload does not move a running
 * replica to another Redis or cluster.
 * <p>
 * Instances are immutable and threadsafe; the exchange they hold belongs to the engine's host once handed over.
 */
final class FleetJoin
{
    private final RedisFleetSettings settings;
    private final RedisFleetExchange exchange;

    private FleetJoin(final RedisFleetSettings settings, final RedisFleetExchange exchange)
    {
        this.settings = settings;
        this.exchange = exchange;
    }

    /**
     * Builds the exchange of the configured fleet, when there is one. It connects on its first period: a Redis that is
     * down at start is retried with a backoff while the engine runs on its own signals.
     *
     * @param fleet the configuration's {@code fleet:} block.
     * @return the membership, or {@code null} when the configuration names no fleet.
     * @throws IllegalArgumentException when a fleet value is out of range (the message never holds credentials).
     */
    static FleetJoin ofOrNull(final FleetConfig fleet)
    {
        if (!fleet.enabled())
        {
            return null;
        }
        final RedisFleetSettings settings =
            RedisFleetSettings.of(fleet.redisUrl(), fleet.cluster(), Duration.ofNanos(fleet.exchangeEveryNs()));
        return new FleetJoin(settings, RedisFleetExchange.create(settings));
    }

    /**
     * @param fleetOrNull what {@link #ofOrNull} returned.
     * @return its exchange, to hand to the engine's host, or {@code null} for none.
     */
    static FleetExchange exchangeOrNull(final FleetJoin fleetOrNull)
    {
        return fleetOrNull == null ? null : fleetOrNull.exchange;
    }

    /**
     * @param fleetOrNull what {@link #ofOrNull} returned.
     * @return for the start-up line: the cluster, the Redis (without credentials) and this replica's id; empty for none.
     */
    static String joined(final FleetJoin fleetOrNull)
    {
        return fleetOrNull == null ? "" : "; joined fleet " + fleetOrNull.settings.cluster() + " at " +
            fleetOrNull.settings.redactedUrl() + " as replica " + fleetOrNull.settings.replicaId();
    }
}
