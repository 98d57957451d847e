package io.multifactor.redis;

import io.multifactor.kernel.fleet.FleetExchange;
import io.multifactor.kernel.fleet.FleetSignals;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.SystemEpochClock;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The fleet exchange through Redis (Lettuce), built so that each replica's traffic does not grow with the number of
 * replicas: the kernel's {@link FleetExchange}, put together from three parts. {@link FleetPeriods} is the period
 * state machine (what is written and read in each period, under which keys, and how the replies become the remote
 * signals); {@link FleetScript} holds its Lua scripts (resources of this package, read once); {@link RedisConnection}
 * is the connection and its reconnection. Each tick is at most one round trip (one Lua script, sent by digest; the
 * aggregator of a latency period makes two more); every key expires after 4 periods (latency keys after 4 latency
 * periods), so a replica killed with {@code kill -9} stops counting within 2 periods and nothing in Redis grows; reads
 * are bounded by Lua guards (hash size, entry size, bytes per aggregation), so a forged key cannot make a replica
 * allocate without bound; entries that do not decode, and fields or keys of the wrong kind (replaced when the replica
 * writes there), are skipped and counted ({@link #skippedEntryCount()}).
 * <p>
 * Redis down or slow: commands fail fast (the connection rejects commands while disconnected, a bounded request queue,
 * a command timeout of half a period); the exchange returns {@link FleetExchange#FAILED}, counts it, logs one warning
 * per outage, and reconnects with an exponential backoff (100 ms doubling to 5 s); the exchange resumes by itself. No
 * log or exception message holds a credential.
 * <p>
 * This class is used by one fleet agent thread at a time; {@link #close()} may come from another thread once the agent
 * stopped. The counters are readable from any thread.
 */
public final class RedisFleetExchange implements FleetExchange
{
    /** Latency intervals are exchanged every this many periods (1 s at the default 250 ms). */
    public static final int LATENCY_EVERY_PERIODS = 4;

    /** Most model names read from one count hash. */
    public static final int MAX_FIELDS = 4096;

    /** Most replica entries merged by an aggregator per latency period. */
    public static final int MAX_ENTRIES = 1024;

    /** Largest in-flight count accepted for one model in one period (all replicas together). */
    public static final long MAX_INFLIGHT = 100_000_000L;

    /** Most bytes of replica entries one aggregation reads (smallest first); the rest are skipped and counted. */
    public static final int MAX_ENTRIES_BYTES = 8 << 20;

    /** Most fields of a latency hash looked at by one aggregation (a larger hash is sampled). */
    public static final int MAX_SCANNED_FIELDS = 4 * MAX_ENTRIES;

    private static final System.Logger LOG = System.getLogger(RedisFleetExchange.class.getName());

    private final RedisFleetSettings settings;
    private final EpochClock clock;
    private final long periodMs;
    private final RedisConnection connection;
    private final FleetPeriods periods;
    private final AtomicLong failedCount = new AtomicLong();
    private boolean outage;
    private long outageFailures;
    private volatile boolean closed;

    private RedisFleetExchange(final RedisFleetSettings settings, final EpochClock clock, final int modelCapacity)
    {
        this.settings = settings;
        this.clock = clock;
        periodMs = settings.period().toMillis();
        connection = new RedisConnection(settings, clock);
        periods = new FleetPeriods(settings, connection, modelCapacity);
    }

    /**
     * An exchange on the system's wall clock holding at most 256 model names per exchange. Connects on the first
     * exchange (a Redis that is down at start is retried with a backoff).
     *
     * @param settings URL, cluster, period, replica id.
     * @return the exchange, for a {@link io.multifactor.kernel.fleet.FleetAgent}.
     */
    public static RedisFleetExchange create(final RedisFleetSettings settings)
    {
        return create(settings, SystemEpochClock.INSTANCE, 256);
    }

    /**
     * @param settings URL, cluster, period, replica id.
     * @param clock wall clock (periods are aligned on it across replicas).
     * @param modelCapacity the most model names per exchange; match the agent's.
     * @return the exchange.
     */
    public static RedisFleetExchange create(
        final RedisFleetSettings settings, final EpochClock clock, final int modelCapacity)
    {
        return new RedisFleetExchange(settings, clock, modelCapacity);
    }

    @Override
    public int exchange(final long nowNs, final FleetSignals local, final FleetSignals remote)
    {
        if (closed)
        {
            return FAILED;
        }
        periods.accumulate(local);
        final RuntimeException notConnected = connection.connect();
        if (notConnected != null)
        {
            // Nothing was sent: try again at the next tick (the period's publication is not skipped).
            return report(FAILED, notConnected);
        }
        // The time after connecting: a slow connection must not make this replica write into a period already over.
        final int result = periods.step(clock.time(), local, remote);
        // A tick with nothing due neither ends nor extends an outage.
        return result == FleetPeriods.NOT_DUE ? IDLE : report(result, periods.lastFailure());
    }

    @Override
    public long periodNs()
    {
        return TimeUnit.MILLISECONDS.toNanos(periodMs);
    }

    @Override
    public long tickNs()
    {
        return periodNs() / 8;
    }

    @Override
    public int liveRemoteReplicas()
    {
        return periods.liveRemoteReplicas();
    }

    @Override
    public long skippedEntryCount()
    {
        return periods.skippedCount();
    }

    /** @return exchanges (publications or reads) that failed. */
    public long failedCount()
    {
        return failedCount.get();
    }

    /** @return latency periods this replica aggregated for the fleet. */
    public long aggregatedCount()
    {
        return periods.aggregatedCount();
    }

    /** @return the settings (their {@code toString} holds no credential). */
    public RedisFleetSettings settings()
    {
        return settings;
    }

    @Override
    public void close()
    {
        closed = true;
        connection.close();
    }

    // Counts a failure and warns once per outage; says when the exchange recovers (a publication or read succeeded).
    private int report(final int result, final Throwable failureOrNull)
    {
        if (result != FAILED)
        {
            if (outage)
            {
                outage = false;
                LOG.log(System.Logger.Level.INFO, "fleet exchange of replica " + settings.replicaId() + " with " +
                    settings.redactedUrl() + " recovered after " + outageFailures + " failed exchanges");
            }
            return result;
        }
        failedCount.incrementAndGet();
        if (!outage)
        {
            outage = true;
            outageFailures = 0;
            LOG.log(System.Logger.Level.WARNING, "fleet exchange of replica " + settings.replicaId() + " with " +
                settings.redactedUrl() + " failed; running on local signals until it recovers: " +
                connection.describe(failureOrNull));
        }
        outageFailures++;
        return FAILED;
    }
}
