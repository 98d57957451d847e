package io.multifactor.redis;

import io.multifactor.kernel.fleet.FleetExchange;
import io.multifactor.kernel.fleet.FleetSignals;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static io.multifactor.redis.RedisFleetExchange.LATENCY_EVERY_PERIODS;
import static io.multifactor.redis.RedisFleetExchange.MAX_ENTRIES;
import static io.multifactor.redis.RedisFleetExchange.MAX_ENTRIES_BYTES;
import static io.multifactor.redis.RedisFleetExchange.MAX_FIELDS;
import static io.multifactor.redis.RedisFleetExchange.MAX_INFLIGHT;
import static io.multifactor.redis.RedisFleetExchange.MAX_SCANNED_FIELDS;

/**
 * The period state machine of the Redis fleet exchange: what a replica writes and reads in each period, under which
 * keys, and how the replies become the remote signals. Periods are aligned on the wall clock
 * ({@code p = epochMs / period}); keys live under {@code mf:{CLUSTER}:} (one hash tag, so a Redis Cluster keeps them on
 * one node):
 * <pre>
 *   n:{p}   hash  model name -&gt; sum of the in-flight counts published in period p (HINCRBY by each replica)
 *   s:{p}   set   ids of the replicas whose counts are in n:{p}
 *   l:{e}   hash  replica id -&gt; its interval entry for latency period e (every 4 periods), FleetCodec format
 *   a:{e}   lock  the replica that aggregates latency period e (SET NX)
 *   f:{e}   blob  the fleet's merged intervals of latency period e, with the list of replicas merged
 * </pre>
 * At the start of period p a replica runs one Lua script ({@link FleetScript#PUBLISH}) that adds its counts into
 * {@code n:{p}}, its id into {@code s:{p}} and, every fourth period, the latency samples it recorded during the
 * previous latency period into {@code l:{e}} (its own field, retried at each period start until it succeeds), each key
 * with its expiry in the same atomic script; until {@code f:{e-1}} exists, one replica per period from the second
 * period of {@code e} on (a one-period lock) becomes the aggregator of {@code e-1}: it reads the entries
 * ({@link FleetScript#ENTRIES}: bounded in fields and bytes, smallest first), merges, writes {@code f:{e-1}}; a late
 * entry of {@code e-1} therefore still gets in. From the middle of the period it reads {@code n:{p}}
 * ({@link FleetScript#READ}: everyone's counts minus its own, when {@code s:{p}} holds its id) and, once per latency
 * period, {@code f:{e-1}} minus its own samples. Every key expires after 4 periods (latency keys after 4 latency
 * periods). Entries that do not decode, and fields or keys of the wrong kind, are skipped and counted.
 * <p>
 * This class is used by one fleet agent thread at a time; its counts ({@link #skippedCount}, {@link #aggregatedCount},
 * {@link #liveRemoteReplicas}) are readable from any thread.
 */
final class FleetPeriods
{
    /** Longest count value read, in bytes (a count has at most 9 digits; anything longer is not read). */
    private static final int MAX_COUNT_BYTES = 20;

    /** What {@link #step} returns when nothing was due at this tick: nothing was sent, nothing succeeded or failed. */
    static final int NOT_DUE = 2;

    private static final byte[] EMPTY = new byte[0];

    private final RedisConnection connection;
    private final String replicaId;
    private final byte[] replicaIdBytes;
    private final String keyPrefix;
    private final long periodMs;
    private final long expiryMs;
    private final long latencyExpiryMs;
    private final int modelCapacity;
    private final FleetCodec codec = new FleetCodec();
    // Latency samples: pending (recorded, for the next latency period), current (this latency period's entry, pushed
    // until it succeeds), previous (last period's entry, subtracted from the fleet aggregate that includes it).
    private FleetSignals pending;
    private FleetSignals current;
    private FleetSignals previous;
    private long currentEpoch = Long.MIN_VALUE;
    private boolean currentPushed;
    private long previousEpoch = Long.MIN_VALUE;
    private final FleetSignals ownCounts;
    private final FleetSignals merged;
    private final AtomicLong skippedCount = new AtomicLong();
    private final AtomicLong aggregatedCount = new AtomicLong();

    private long publishedPeriod = Long.MIN_VALUE;
    private long readPeriod = Long.MIN_VALUE;
    private long ownCountsPeriod = Long.MIN_VALUE;
    private long fleetEpochRead = Long.MIN_VALUE;
    private long aggregatedEpoch = Long.MIN_VALUE;
    private Throwable lastFailure;
    private volatile int liveRemoteReplicas;

    FleetPeriods(final RedisFleetSettings settings, final RedisConnection connection, final int modelCapacity)
    {
        this.connection = connection;
        this.modelCapacity = modelCapacity;
        replicaId = settings.replicaId();
        replicaIdBytes = replicaId.getBytes(StandardCharsets.UTF_8);
        keyPrefix = "mf:{" + settings.cluster() + "}:";
        periodMs = settings.period().toMillis();
        expiryMs = FleetExchange.EXPIRY_PERIODS * periodMs;
        latencyExpiryMs = FleetExchange.EXPIRY_PERIODS * LATENCY_EVERY_PERIODS * periodMs;
        pending = new FleetSignals(modelCapacity);
        current = new FleetSignals(modelCapacity);
        previous = new FleetSignals(modelCapacity);
        ownCounts = new FleetSignals(modelCapacity);
        merged = new FleetSignals(modelCapacity);
    }

    /** @param local the samples the replica recorded since the last call, kept for its next latency entry. */
    void accumulate(final FleetSignals local)
    {
        addIntervals(pending, local);
    }

    /**
     * One tick on a connected exchange: publishes at the start of a period, reads once from its middle on.
     *
     * @param nowMs the wall clock's time.
     * @param local this replica's signals (counts and intervals).
     * @param remote filled with the other replicas' signals when this tick reads.
     * @return {@link FleetExchange#EXCHANGED} when it read, {@link FleetExchange#IDLE} when it published,
     *     {@link FleetExchange#FAILED} when Redis failed ({@link #lastFailure()} says why), {@link #NOT_DUE} when
     *     nothing was due.
     */
    int step(final long nowMs, final FleetSignals local, final FleetSignals remote)
    {
        final long period = Math.floorDiv(nowMs, periodMs);
        final long phaseMs = nowMs - period * periodMs;
        if (period != publishedPeriod)
        {
            publishedPeriod = period;
            return outcome(publish(period, local), FleetExchange.IDLE);
        }
        if (phaseMs >= periodMs / 2 && period != readPeriod)
        {
            readPeriod = period;
            return outcome(read(period, remote), FleetExchange.EXCHANGED);
        }
        return NOT_DUE;
    }

    /** @return why the last {@link #step} failed. */
    Throwable lastFailure()
    {
        return lastFailure;
    }

    /** @return the other replicas counted in the last period read. */
    int liveRemoteReplicas()
    {
        return liveRemoteReplicas;
    }

    /** @return entries, fields and keys skipped so far (they did not decode, or were of the wrong kind). */
    long skippedCount()
    {
        return skippedCount.get();
    }

    /** @return latency periods this replica aggregated for the fleet. */
    long aggregatedCount()
    {
        return aggregatedCount.get();
    }

    private int outcome(final Throwable failure, final int success)
    {
        lastFailure = failure;
        return failure == null ? success : FleetExchange.FAILED;
    }

    private static void addIntervals(final FleetSignals pending, final FleetSignals local)
    {
        for (int i = 0; i < local.size(); i++)
        {
            if (local.ttft(i).getTotalCount() == 0 && local.tpot(i).getTotalCount() == 0)
            {
                continue;
            }
            final int index = pending.add(local.name(i));
            if (index != FleetSignals.NONE)
            {
                pending.ttft(index).add(local.ttft(i));
                pending.tpot(index).add(local.tpot(i));
            }
        }
    }

    private Throwable publish(final long period, final FleetSignals local)
    {
        try
        {
            connection.requireOpen();
            final long epoch = Math.floorDiv(period, LATENCY_EVERY_PERIODS);
            if (epoch != currentEpoch)
            {
                startLatencyPeriod(epoch);
            }
            // What this replica adds in period p: a reader subtracts it when the replica set says it landed.
            ownCounts.clear();
            ownCountsPeriod = period;
            final List<byte[]> counts = new ArrayList<>();
            for (int i = 0; i < local.size(); i++)
            {
                final long count = local.inflight(i);
                if (count > 0)
                {
                    final int index = ownCounts.add(local.name(i));
                    if (index == FleetSignals.NONE)
                    {
                        continue;
                    }
                    ownCounts.inflight(index, count);
                    counts.add(utf8(local.name(i)));
                    counts.add(utf8(Long.toString(count)));
                }
            }
            final boolean push = !currentPushed;
            // Not in the first period of a latency period: an entry of the previous one sent late still gets in.
            // Until the aggregate of the previous latency period exists, one replica per period (a lock that lasts
            // one period) tries to build it; a failed or dead aggregator is replaced the next period.
            final boolean tryAggregate =
                aggregatedEpoch != epoch - 1 && Math.floorMod(period, LATENCY_EVERY_PERIODS) != 0;
            final byte[][] keys = {key("n:", period), key("s:", period), key("l:", epoch), key("f:", epoch - 1),
                key("a:", epoch - 1)};
            final byte[][] args = new byte[9 + counts.size()][];
            args[0] = utf8(Long.toString(expiryMs));
            args[1] = replicaIdBytes;
            args[2] = utf8(Long.toString(latencyExpiryMs));
            args[3] = utf8(Long.toString(periodMs));
            args[4] = utf8(Long.toString(MAX_INFLIGHT));
            args[5] = utf8(push ? "1" : "0");
            // One field per replica: a push retried after a timeout replaces itself instead of counting twice.
            args[6] = push ? codec.encode(FleetCodec.KIND_REPLICA, replicaId, List.of(), current) : EMPTY;
            args[7] = utf8(tryAggregate ? "1" : "0");
            args[8] = utf8(Integer.toString(counts.size() / 2));
            for (int i = 0; i < counts.size(); i++)
            {
                args[9 + i] = counts.get(i);
            }
            final List<Object> reply = connection.run(FleetScript.PUBLISH, keys, args);
            addSkipped(reply.get(0));
            if (push && Long.valueOf(1).equals(reply.get(1)))
            {
                currentPushed = true;
            }
            if (tryAggregate && Long.valueOf(1).equals(reply.get(2)))
            {
                aggregatedEpoch = epoch - 1;
            }
            else if (tryAggregate && Long.valueOf(1).equals(reply.get(3)))
            {
                aggregate(epoch - 1);
                aggregatedEpoch = epoch - 1;
            }
            return null;
        }
        catch (final Exception ex)
        {
            return ex;
        }
    }

    private void addSkipped(final Object count)
    {
        if (count instanceof Long skipped && skipped > 0)
        {
            skippedCount.addAndGet(skipped);
        }
    }

    private void startLatencyPeriod(final long epoch)
    {
        final FleetSignals free = previous;
        free.clear();
        if (currentPushed)
        {
            previous = current;
            previousEpoch = currentEpoch;
        }
        else
        {
            // Never pushed (Redis was down through its latency period): its samples wait for this period's entry.
            addIntervals(pending, current);
            current.clear();
            previous = current;
            previousEpoch = Long.MIN_VALUE;
        }
        current = pending;
        pending = free;
        currentEpoch = epoch;
        currentPushed = !hasSamples(current);
    }

    private void aggregate(final long epoch) throws Exception
    {
        final List<Object> reply = connection.run(FleetScript.ENTRIES, new byte[][] {key("l:", epoch)}, new byte[][] {
            utf8(Integer.toString(MAX_ENTRIES)), utf8(Integer.toString(FleetCodec.MAX_ENTRY_BYTES)),
            utf8(Integer.toString(MAX_ENTRIES_BYTES)), utf8(Integer.toString(FleetCodec.MAX_NAME_BYTES)),
            utf8(Integer.toString(MAX_SCANNED_FIELDS))});
        addSkipped(reply.get(1));
        final List<?> items = reply.get(0) instanceof List<?> list ? list : List.of();
        merged.clear();
        final List<String> contributors = new ArrayList<>();
        for (final Object item : items)
        {
            final FleetCodec.Entry entry = item instanceof byte[] ? codec.decode((byte[])item, modelCapacity) : null;
            if (entry == null || entry.kind() != FleetCodec.KIND_REPLICA || contributors.contains(entry.id()))
            {
                skippedCount.incrementAndGet();
                continue;
            }
            contributors.add(entry.id());
            for (int i = 0; i < entry.names().size(); i++)
            {
                final int index = merged.add(entry.names().get(i));
                if (index == FleetSignals.NONE)
                {
                    continue;
                }
                addIfPresent(merged.ttft(index), entry.ttft().get(i));
                addIfPresent(merged.tpot(index), entry.tpot().get(i));
            }
        }
        connection.set(key("f:", epoch), codec.encode(FleetCodec.KIND_FLEET, replicaId, contributors, merged),
            latencyExpiryMs);
        aggregatedCount.incrementAndGet();
    }

    private Throwable read(final long period, final FleetSignals remote)
    {
        try
        {
            connection.requireOpen();
            final long fleetEpoch = Math.floorDiv(period, LATENCY_EVERY_PERIODS) - 1;
            final boolean wantFleet = fleetEpoch != fleetEpochRead;
            final List<Object> parts = connection.run(FleetScript.READ,
                new byte[][] {key("n:", period), key("s:", period), key("f:", fleetEpoch)},
                new byte[][] {utf8(Integer.toString(MAX_FIELDS)), utf8(Integer.toString(FleetCodec.MAX_ENTRY_BYTES)),
                    utf8(wantFleet ? "1" : "0"), replicaIdBytes, utf8(Integer.toString(FleetCodec.MAX_NAME_BYTES)),
                    utf8(Integer.toString(MAX_COUNT_BYTES))});
            remote.clear();
            // Its own counts are in the hash exactly when it is in the replica set (both written by one script).
            final boolean selfCounted = Long.valueOf(1).equals(parts.get(2));
            readCounts(parts.get(0), selfCounted && ownCountsPeriod == period, remote);
            final long replicas = parts.get(1) instanceof Long number ? number : 0;
            liveRemoteReplicas = (int)Math.max(0, Math.min(Integer.MAX_VALUE, replicas - (selfCounted ? 1 : 0)));
            addSkipped(parts.get(4));
            if (wantFleet && parts.get(3) instanceof byte[] fleet && fleet.length > 0)
            {
                fleetEpochRead = fleetEpoch;
                readFleet(fleet, fleetEpoch, remote);
            }
            return null;
        }
        catch (final Exception ex)
        {
            return ex;
        }
    }

    private void readCounts(final Object counts, final boolean subtractOwn, final FleetSignals remote)
    {
        if (!(counts instanceof List<?> fields))
        {
            return;
        }
        for (int i = 0; i + 1 < fields.size(); i += 2)
        {
            final Object field = fields.get(i);
            final long count = parseCount(fields.get(i + 1));
            if (!(field instanceof byte[] bytes) || bytes.length == 0 || bytes.length > FleetCodec.MAX_NAME_BYTES ||
                count < 0)
            {
                skippedCount.incrementAndGet();
                continue;
            }
            final String name = new String(bytes, StandardCharsets.UTF_8);
            long others = count;
            if (subtractOwn)
            {
                final int own = ownCounts.indexOf(name);
                others -= own == FleetSignals.NONE ? 0 : ownCounts.inflight(own);
            }
            if (others <= 0)
            {
                continue;
            }
            final int index = remote.add(name);
            if (index == FleetSignals.NONE)
            {
                skippedCount.incrementAndGet();
                continue;
            }
            remote.inflight(index, others);
        }
    }

    private void readFleet(final byte[] bytes, final long epoch, final FleetSignals remote)
    {
        final FleetCodec.Entry entry = codec.decode(bytes, modelCapacity);
        if (entry == null || entry.kind() != FleetCodec.KIND_FLEET)
        {
            skippedCount.incrementAndGet();
            return;
        }
        final boolean subtractOwn = previousEpoch == epoch && entry.contributors().contains(replicaId);
        for (int i = 0; i < entry.names().size(); i++)
        {
            final String name = entry.names().get(i);
            final int own = subtractOwn ? previous.indexOf(name) : FleetSignals.NONE;
            final Histogram ttft = minus(entry.ttft().get(i), own == FleetSignals.NONE ? null : previous.ttft(own));
            final Histogram tpot = minus(entry.tpot().get(i), own == FleetSignals.NONE ? null : previous.tpot(own));
            if (ttft == null && tpot == null)
            {
                continue;
            }
            final int index = remote.add(name);
            if (index == FleetSignals.NONE)
            {
                skippedCount.incrementAndGet();
                continue;
            }
            addIfPresent(remote.ttft(index), ttft);
            addIfPresent(remote.tpot(index), tpot);
        }
    }

    // The aggregate's samples less this replica's own (never below 0 in a bucket), or null when nothing is left.
    private static Histogram minus(final Histogram fleet, final Histogram own)
    {
        if (fleet == null)
        {
            return null;
        }
        if (own == null || own.getTotalCount() == 0)
        {
            return fleet;
        }
        final Histogram others = FleetSignals.newIntervalHistogram();
        for (final HistogramIterationValue value : fleet.recordedValues())
        {
            final long at = value.getValueIteratedTo();
            final long left = value.getCountAtValueIteratedTo() - own.getCountAtValue(at);
            if (left > 0)
            {
                others.recordValueWithCount(at, left);
            }
        }
        return others.getTotalCount() == 0 ? null : others;
    }

    private static void addIfPresent(final Histogram into, final Histogram from)
    {
        if (from != null)
        {
            into.add(from);
        }
    }

    private static boolean hasSamples(final FleetSignals signals)
    {
        for (int i = 0; i < signals.size(); i++)
        {
            if (signals.ttft(i).getTotalCount() != 0 || signals.tpot(i).getTotalCount() != 0)
            {
                return true;
            }
        }
        return false;
    }

    private static long parseCount(final Object value)
    {
        if (value instanceof Long number)
        {
            return number >= 0 && number <= MAX_INFLIGHT ? number : -1;
        }
        if (!(value instanceof byte[] bytes) || bytes.length == 0 || bytes.length > 12)
        {
            return -1;
        }
        long result = 0;
        for (final byte b : bytes)
        {
            if (b < '0' || b > '9')
            {
                return -1;
            }
            result = result * 10 + (b - '0');
        }
        return result <= MAX_INFLIGHT ? result : -1;
    }

    private byte[] key(final String kind, final long index)
    {
        return utf8(keyPrefix + kind + index);
    }

    private static byte[] utf8(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }

}
