package io.multifactor.tools;

import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.config.ConfigLoader;
import io.multifactor.config.model.FleetConfig;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.fleet.FleetAgent;
import io.multifactor.redis.RedisFleetExchange;
import io.multifactor.redis.RedisFleetSettings;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.SleepingMillisIdleStrategy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * How {@code bin/mf serve} and {@code bin/mf envoy} join the fleet their configuration names (its {@code fleet:}
 * block): a {@link RedisFleetExchange} built from {@code redis}, {@code cluster} and {@code exchange_every}, run
 * beside the engine by a {@link FleetAgent} on its own thread, so that the replicas of one cluster share their
 * in-flight counts and latency windows. The block is read once, at start: a reload does not move a running replica to
 * another Redis or cluster.
 * <p>
 * This class is threadsafe: {@link #close()} may be called from any thread, more than once.
 */
final class FleetJoin implements AutoCloseable
{
    private final RedisFleetSettings settings;
    private final RedisFleetExchange exchange;
    private final AgentRunner runner;
    private final AtomicBoolean closed = new AtomicBoolean();

    private FleetJoin(final RedisFleetSettings settings, final RedisFleetExchange exchange, final AgentRunner runner)
    {
        this.settings = settings;
        this.exchange = exchange;
        this.runner = runner;
    }

    /**
     * @param config the configuration file.
     * @param overlayOrNull its overlay, or {@code null}.
     * @return the {@code fleet:} block of the two, {@link FleetConfig#NONE} when they name no fleet.
     * @throws InvalidConfigurationException with every problem of both files.
     */
    static FleetConfig configured(final Path config, final Path overlayOrNull) throws InvalidConfigurationException
    {
        return ConfigLoader.load(config, overlayOrNull, null, MultiFactorEngine.DEFAULT_COUNTER_CAPACITY).config().fleet();
    }

    /**
     * Joins the configured fleet, when there is one. The exchange connects on its first period: a Redis that is down
     * at start is retried with a backoff while the engine runs on its own signals.
     *
     * @param fleet the configuration's {@code fleet:} block.
     * @param engine the engine whose signals are shared.
     * @return the running membership, or {@code null} when the configuration names no fleet.
     * @throws IllegalArgumentException when a fleet value is out of range (the message never holds credentials).
     */
    static FleetJoin startOrNull(final FleetConfig fleet, final MultiFactorEngine engine)
    {
        if (!fleet.enabled())
        {
            return null;
        }
        final RedisFleetSettings settings =
            RedisFleetSettings.of(fleet.redisUrl(), fleet.cluster(), Duration.ofNanos(fleet.exchangeEveryNs()));
        final RedisFleetExchange exchange = RedisFleetExchange.create(settings);
        final AgentRunner runner = new AgentRunner(new SleepingMillisIdleStrategy(1), Throwable::printStackTrace, null,
            FleetAgent.of(engine, exchange));
        AgentRunner.startOnThread(runner);
        return new FleetJoin(settings, exchange, runner);
    }

    /**
     * Closes a membership, if there is one.
     *
     * @param fleetOrNull what {@link #startOrNull} returned.
     */
    static void leave(final FleetJoin fleetOrNull)
    {
        if (fleetOrNull != null)
        {
            fleetOrNull.close();
        }
    }

    /** @return for the start-up line: the cluster, the Redis (without credentials) and this replica's id. */
    String description()
    {
        return "fleet " + settings.cluster() + " at " + settings.redactedUrl() + " as replica " + settings.replicaId();
    }

    /**
     * Stops exchanging (the other replicas forget this one's counts within 4 periods) and closes the connection.
     * Close it before the engine.
     */
    @Override
    public void close()
    {
        if (closed.compareAndSet(false, true))
        {
            runner.close();
            exchange.close();
        }
    }
}
