package io.multifactor.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.StaticCredentialsProvider;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.multifactor.kernel.fleet.FleetExchange;
import io.multifactor.kernel.fleet.FleetSignals;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.SystemEpochClock;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The fleet exchange through Redis (Lettuce), built so that each replica's traffic does not grow with the number of
 * replicas. Periods are aligned on the wall clock ({@code p = epochMs / period}); keys live under
 * {@code mf:{CLUSTER}:} (one hash tag, so a Redis Cluster keeps them on one node):
 * <pre>
 *   n:{p}   hash  model name -&gt; sum of the in-flight counts published in period p (HINCRBY by each replica)
 *   s:{p}   set   ids of the replicas whose counts are in n:{p}
 *   l:{e}   hash  replica id -&gt; its interval entry for latency period e (every 4 periods), FleetCodec format
 *   a:{e}   lock  the replica that aggregates latency period e (SET NX)
 *   f:{e}   blob  the fleet's merged intervals of latency period e, with the list of replicas merged
 * </pre>
 * At the start of period p a replica runs one Lua script that adds its counts into {@code n:{p}}, its id into
 * {@code s:{p}} and, every fourth period, the latency samples it recorded during the previous latency period into
 * {@code l:{e}} (its own field, retried at each period start until it succeeds), each key with its expiry in the same
 * atomic script; until {@code f:{e-1}} exists, one replica per period from the second period of {@code e} on (a
 * one-period lock) becomes the aggregator of {@code e-1}: it reads the entries (bounded in fields and bytes, smallest
 * first), merges, writes {@code f:{e-1}}; a late entry of {@code e-1} therefore still gets in. From the middle of the
 * period it reads {@code n:{p}} (everyone's counts minus its own, when {@code s:{p}} holds its id) and, once per
 * latency period, {@code f:{e-1}} minus its own samples. Every key expires after 4 periods (latency keys after 4
 * latency periods), so a replica killed with {@code kill -9} stops counting within 2 periods and nothing in Redis
 * grows. Each tick is one round trip (one Lua script, sent by digest); reads are bounded by Lua guards (hash size,
 * entry size, bytes per aggregation), so a forged key cannot make a replica allocate without bound; entries that do
 * not decode, and fields or keys of the wrong kind (replaced when the replica writes there), are skipped and counted
 * ({@link #skippedEntryCount()}).
 * <p>
 * Redis down or slow: commands fail fast (the connection rejects commands while disconnected, a bounded request queue,
 * a command timeout of half a period); the exchange returns {@link FleetExchange#FAILED}, counts it, logs one warning
 * per outage, and reconnects with an exponential backoff (100 ms doubling to 5 s); the exchange resumes by itself. No log or exception message holds a credential.
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

    /** Longest count value read, in bytes (a count has at most 9 digits; anything longer is not read). */
    private static final int MAX_COUNT_BYTES = 20;

    private static final System.Logger LOG = System.getLogger(RedisFleetExchange.class.getName());

    // One atomic script per period start: every write carries its expiry in the same script, so no cut (a full request
    // queue, a timeout, a failed command) can leave a key without one; each count field is incremented on its own
    // (pcall), and a field or key that holds what this exchange never writes is replaced and counted (UNLINK, Redis 4
    // or later, frees a large forged key off the main thread), so one damaged entry can neither fail the publication
    // nor make the counts wrong. Membership of the replica set is atomic with the counts: a reader subtracts its own
    // counts exactly when they landed, whatever happened to the reply.
    private static final Script PUBLISH = new Script(String.join("\n",
        "local skipped = 0",
        "local function own(key, kind)",
        "  local t = redis.call('TYPE', key).ok",
        "  if t ~= 'none' and t ~= kind then redis.call('UNLINK', key) skipped = skipped + 1 end",
        "end",
        "own(KEYS[1], 'hash')",
        "own(KEYS[2], 'set')",
        "local max = tonumber(ARGV[5])",
        "local k = tonumber(ARGV[9])",
        "for i = 1, k do",
        "  local name = ARGV[8 + 2 * i]",
        "  local n = ARGV[9 + 2 * i]",
        "  local r = redis.pcall('HINCRBY', KEYS[1], name, n)",
        "  if type(r) ~= 'number' or r > max then",
        "    redis.call('HSET', KEYS[1], name, n)",
        "    skipped = skipped + 1",
        "  end",
        "end",
        "redis.call('PEXPIRE', KEYS[1], ARGV[1])",
        "redis.call('SADD', KEYS[2], ARGV[2])",
        "redis.call('PEXPIRE', KEYS[2], ARGV[1])",
        "local pushed = 0",
        "if ARGV[6] == '1' then",
        "  own(KEYS[3], 'hash')",
        "  redis.call('HSET', KEYS[3], ARGV[2], ARGV[7])",
        "  redis.call('PEXPIRE', KEYS[3], ARGV[3])",
        "  pushed = 1",
        "end",
        "local fleet = 0",
        "local lock = 0",
        "if ARGV[8] == '1' then",
        "  fleet = redis.call('EXISTS', KEYS[4])",
        "  if fleet == 0 and redis.call('SET', KEYS[5], ARGV[2], 'NX', 'PX', ARGV[4]) then lock = 1 end",
        "end",
        "return {skipped, pushed, fleet, lock}"));

    // Mid-period read: the counts (names and values checked by size before they are read), the replica set's size and
    // whether this replica is in it, and, once per latency period, the fleet entry (by size first).
    private static final Script READ = new Script(String.join("\n",
        "local counts = {}",
        "local skipped = 0",
        "local t = redis.call('TYPE', KEYS[1]).ok",
        "if t == 'hash' then",
        "  if redis.call('HLEN', KEYS[1]) <= tonumber(ARGV[1]) then",
        "    for _, name in ipairs(redis.call('HKEYS', KEYS[1])) do",
        "      if #name > 0 and #name <= tonumber(ARGV[5]) and",
        "        redis.call('HSTRLEN', KEYS[1], name) <= tonumber(ARGV[6]) then",
        "        counts[#counts + 1] = name",
        "        counts[#counts + 1] = redis.call('HGET', KEYS[1], name)",
        "      else skipped = skipped + 1 end",
        "    end",
        "  else skipped = skipped + 1 end",
        "elseif t ~= 'none' then skipped = skipped + 1 end",
        "local replicas = 0",
        "local self = 0",
        "t = redis.call('TYPE', KEYS[2]).ok",
        "if t == 'set' then",
        "  replicas = redis.call('SCARD', KEYS[2])",
        "  self = redis.call('SISMEMBER', KEYS[2], ARGV[4])",
        "elseif t ~= 'none' then skipped = skipped + 1 end",
        "local f = ''",
        "if ARGV[3] == '1' then",
        "  t = redis.call('TYPE', KEYS[3]).ok",
        "  if t == 'string' then",
        "    if redis.call('STRLEN', KEYS[3]) <= tonumber(ARGV[2]) then f = redis.call('GET', KEYS[3])",
        "    else skipped = skipped + 1 end",
        "  elseif t ~= 'none' then skipped = skipped + 1 end",
        "end",
        "return {counts, replicas, self, f, skipped}"));

    // The aggregator's read of one latency period's entries, bounded in fields and bytes whatever the hash holds:
    // sizes first (HSTRLEN, nothing copied), then the smallest entries up to the budget, so a few huge forged fields
    // cannot crowd the replicas' entries out; everything left is counted.
    private static final Script ENTRIES = new Script(String.join("\n",
        "local t = redis.call('TYPE', KEYS[1]).ok",
        "if t == 'none' then return {{}, 0} end",
        "if t ~= 'hash' then return {{}, 1} end",
        "local n = redis.call('HLEN', KEYS[1])",
        "local names",
        "local skipped = 0",
        "if n > tonumber(ARGV[5]) then",
        "  names = redis.pcall('HRANDFIELD', KEYS[1], tonumber(ARGV[5]))",
        "  if type(names) ~= 'table' or names.err then return {{}, n} end",
        "  skipped = n - #names",
        "else names = redis.call('HKEYS', KEYS[1]) end",
        "local sizes = {}",
        "for _, name in ipairs(names) do",
        "  local len = redis.call('HSTRLEN', KEYS[1], name)",
        "  if #name > 0 and #name <= tonumber(ARGV[4]) and len > 0 and len <= tonumber(ARGV[2]) then",
        "    sizes[#sizes + 1] = {name, len}",
        "  else skipped = skipped + 1 end",
        "end",
        "table.sort(sizes, function(a, b) return a[2] < b[2] end)",
        "local out = {}",
        "local total = 0",
        "for _, e in ipairs(sizes) do",
        "  if #out < tonumber(ARGV[1]) and total + e[2] <= tonumber(ARGV[3]) then",
        "    total = total + e[2]",
        "    out[#out + 1] = redis.call('HGET', KEYS[1], e[1])",
        "  else skipped = skipped + 1 end",
        "end",
        "return {out, skipped}"));

    private static final byte[] EMPTY = new byte[0];

    private final RedisFleetSettings settings;
    private final EpochClock clock;
    private final long periodMs;
    private final long expiryMs;
    private final long latencyExpiryMs;
    private final Duration commandTimeout;
    private final Duration connectTimeout;
    private final String password;
    private final byte[] replicaIdBytes;
    private final String keyPrefix;
    private final RedisClient client;
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
    private final int modelCapacity;
    private final AtomicLong failedCount = new AtomicLong();
    private final AtomicLong skippedCount = new AtomicLong();
    private final AtomicLong aggregatedCount = new AtomicLong();

    private StatefulRedisConnection<byte[], byte[]> connection;
    private long nextConnectMs;
    private long connectBackoffMs;
    private long publishedPeriod = Long.MIN_VALUE;
    private long readPeriod = Long.MIN_VALUE;
    private long ownCountsPeriod = Long.MIN_VALUE;
    private long fleetEpochRead = Long.MIN_VALUE;
    private long aggregatedEpoch = Long.MIN_VALUE;
    private boolean outage;
    private RuntimeException connectFailure;
    private long outageFailures;
    private volatile int liveRemoteReplicas;
    private volatile boolean closed;

    private RedisFleetExchange(final RedisFleetSettings settings, final EpochClock clock, final int modelCapacity)
    {
        this.settings = settings;
        this.clock = clock;
        this.modelCapacity = modelCapacity;
        periodMs = settings.period().toMillis();
        expiryMs = EXPIRY_PERIODS * periodMs;
        latencyExpiryMs = EXPIRY_PERIODS * LATENCY_EVERY_PERIODS * periodMs;
        commandTimeout = Duration.ofMillis(Math.max(10L, periodMs / 2));
        connectTimeout = Duration.ofMillis(Math.max(1_000L, periodMs));
        replicaIdBytes = settings.replicaId().getBytes(StandardCharsets.UTF_8);
        keyPrefix = "mf:{" + settings.cluster() + "}:";
        pending = new FleetSignals(modelCapacity);
        current = new FleetSignals(modelCapacity);
        previous = new FleetSignals(modelCapacity);
        ownCounts = new FleetSignals(modelCapacity);
        merged = new FleetSignals(modelCapacity);

        final RedisURI uri = RedisURI.create(settings.redisUrl());
        String urlPassword = passwordOf(settings.redisUrl());
        final String envPassword = System.getenv(RedisFleetSettings.PASSWORD_ENV);
        if (urlPassword == null && envPassword != null && !envPassword.isEmpty())
        {
            uri.setCredentialsProvider(new StaticCredentialsProvider(null, envPassword.toCharArray()));
            urlPassword = envPassword;
        }
        password = urlPassword;
        uri.setTimeout(connectTimeout);
        // The client owns its resources (event loops): shutdown() releases both.
        client = RedisClient.create(uri);
        // Reconnection is this class's own (backoff, one warning per outage): Lettuce neither buffers nor reconnects.
        client.setOptions(ClientOptions.builder()
            .autoReconnect(false)
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
            .requestQueueSize(1024)
            .timeoutOptions(TimeoutOptions.enabled(commandTimeout))
            .socketOptions(SocketOptions.builder().connectTimeout(connectTimeout).build())
            .build());
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
        accumulate(local);
        if (!connected())
        {
            // Nothing was sent: try again at the next tick (the period's publication is not skipped).
            return outcome(connectFailure, IDLE);
        }
        // The time after connecting: a slow connection must not make this replica write into a period already over.
        final long nowMs = clock.time();
        final long period = Math.floorDiv(nowMs, periodMs);
        final long phaseMs = nowMs - period * periodMs;
        if (period != publishedPeriod)
        {
            publishedPeriod = period;
            return outcome(publish(period, local), IDLE);
        }
        if (phaseMs >= periodMs / 2 && period != readPeriod)
        {
            readPeriod = period;
            return outcome(read(period, remote), EXCHANGED);
        }
        return IDLE;
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
        return liveRemoteReplicas;
    }

    @Override
    public long skippedEntryCount()
    {
        return skippedCount.get();
    }

    /** @return exchanges (publications or reads) that failed. */
    public long failedCount()
    {
        return failedCount.get();
    }

    /** @return latency periods this replica aggregated for the fleet. */
    public long aggregatedCount()
    {
        return aggregatedCount.get();
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
        final StatefulRedisConnection<byte[], byte[]> c = connection;
        connection = null;
        try
        {
            if (c != null)
            {
                c.close();
            }
        }
        finally
        {
            client.shutdown();
        }
    }

    private void accumulate(final FleetSignals local)
    {
        addIntervals(pending, local);
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

    private int outcome(final Throwable failure, final int success)
    {
        if (failure == null)
        {
            if (outage)
            {
                outage = false;
                LOG.log(System.Logger.Level.INFO, "fleet exchange of replica " + settings.replicaId() + " with " +
                    settings.redactedUrl() + " recovered after " + outageFailures + " failed exchanges");
            }
            return success;
        }
        failedCount.incrementAndGet();
        if (!outage)
        {
            outage = true;
            outageFailures = 0;
            LOG.log(System.Logger.Level.WARNING, "fleet exchange of replica " + settings.replicaId() + " with " +
                settings.redactedUrl() + " failed; running on local signals until it recovers: " + describe(failure));
        }
        outageFailures++;
        return FAILED;
    }

    private String describe(final Throwable failure)
    {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root)
        {
            root = root.getCause();
        }
        String message = failure.getClass().getSimpleName() + ": " + failure.getMessage() +
            (root == failure ? "" : " (" + root.getClass().getSimpleName() + ": " + root.getMessage() + ")");
        if (password != null && !password.isEmpty())
        {
            message = message.replace(password, "***");
        }
        return message.replaceAll("(rediss?://)[^@/\\s]*@", "$1");
    }

    private boolean connected()
    {
        try
        {
            commands();
            connectFailure = null;
            return true;
        }
        catch (final RuntimeException ex)
        {
            connectFailure = ex;
            return false;
        }
    }

    private RedisAsyncCommands<byte[], byte[]> commands()
    {
        if (connection != null && connection.isOpen())
        {
            return connection.async();
        }
        final long nowMs = clock.time();
        if (connection != null)
        {
            // Lost (server gone, reset): reconnect now, then with a backoff while it keeps failing.
            connection.close();
            connection = null;
            nextConnectMs = nowMs;
        }
        if (nowMs - nextConnectMs < 0)
        {
            throw new IllegalStateException("not connected; next attempt in " + (nextConnectMs - nowMs) + "ms");
        }
        try
        {
            final StatefulRedisConnection<byte[], byte[]> c = client.connect(ByteArrayCodec.INSTANCE);
            c.setAutoFlushCommands(false);
            connection = c;
            connectBackoffMs = 0;
            return c.async();
        }
        catch (final RuntimeException ex)
        {
            connectBackoffMs = Math.min(5_000L, Math.max(100L, connectBackoffMs * 2));
            nextConnectMs = nowMs + connectBackoffMs;
            throw ex;
        }
    }

    private Throwable publish(final long period, final FleetSignals local)
    {
        try
        {
            final RedisAsyncCommands<byte[], byte[]> redis = commands();
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
            final boolean tryAggregate = aggregatedEpoch != epoch - 1 && Math.floorMod(period, LATENCY_EVERY_PERIODS) != 0;
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
            args[6] = push ? codec.encode(FleetCodec.KIND_REPLICA, settings.replicaId(), List.of(), current) : EMPTY;
            args[7] = utf8(tryAggregate ? "1" : "0");
            args[8] = utf8(Integer.toString(counts.size() / 2));
            for (int i = 0; i < counts.size(); i++)
            {
                args[9 + i] = counts.get(i);
            }
            final List<Object> reply = run(redis, PUBLISH, keys, args);
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
                aggregate(redis, epoch - 1);
                aggregatedEpoch = epoch - 1;
            }
            return null;
        }
        catch (final Exception ex)
        {
            return ex;
        }
    }

    // Runs a script by its digest (a few bytes a period instead of its text), loading it when the server lacks it.
    private List<Object> run(final RedisAsyncCommands<byte[], byte[]> redis, final Script script, final byte[][] keys,
        final byte[][] args) throws InterruptedException, ExecutionException, TimeoutException
    {
        RedisFuture<List<Object>> reply = redis.evalsha(script.digest, ScriptOutputType.MULTI, keys, args);
        connection.flushCommands();
        try
        {
            await(List.of(reply));
        }
        catch (final ExecutionException ex)
        {
            if (!(ex.getCause() instanceof RedisNoScriptException))
            {
                throw ex;
            }
            reply = redis.eval(script.source, ScriptOutputType.MULTI, keys, args);
            connection.flushCommands();
            await(List.of(reply));
        }
        return reply.get();
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

    private void aggregate(final RedisAsyncCommands<byte[], byte[]> redis, final long epoch) throws Exception
    {
        final List<Object> reply = run(redis, ENTRIES, new byte[][] {key("l:", epoch)}, new byte[][] {
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
        final RedisFuture<String> set = redis.set(key("f:", epoch),
            codec.encode(FleetCodec.KIND_FLEET, settings.replicaId(), contributors, merged),
            SetArgs.Builder.px(latencyExpiryMs));
        connection.flushCommands();
        await(List.of(set));
        aggregatedCount.incrementAndGet();
    }

    private Throwable read(final long period, final FleetSignals remote)
    {
        try
        {
            final RedisAsyncCommands<byte[], byte[]> redis = commands();
            final long fleetEpoch = Math.floorDiv(period, LATENCY_EVERY_PERIODS) - 1;
            final boolean wantFleet = fleetEpoch != fleetEpochRead;
            final List<Object> parts = run(redis, READ,
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
        final boolean subtractOwn = previousEpoch == epoch && entry.contributors().contains(settings.replicaId());
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

    // The password of redis://[user:]password@host..., or null.
    private static String passwordOf(final String url)
    {
        final int scheme = url.indexOf("://");
        final int slash = url.indexOf('/', scheme + 3);
        final String authority = url.substring(scheme + 3, slash < 0 ? url.length() : slash);
        final int at = authority.lastIndexOf('@');
        if (at < 0)
        {
            return null;
        }
        final String userInfo = authority.substring(0, at);
        final int colon = userInfo.indexOf(':');
        final String password = colon < 0 ? userInfo : userInfo.substring(colon + 1);
        return password.isEmpty() ? null : java.net.URLDecoder.decode(password, StandardCharsets.UTF_8);
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

    private void await(final List<? extends RedisFuture<?>> futures)
        throws InterruptedException, ExecutionException, TimeoutException
    {
        final long deadlineNs = System.nanoTime() + commandTimeout.toNanos();
        for (final RedisFuture<?> future : futures)
        {
            future.get(Math.max(0L, deadlineNs - System.nanoTime()), TimeUnit.NANOSECONDS);
        }
    }

    private byte[] key(final String kind, final long index)
    {
        return utf8(keyPrefix + kind + index);
    }

    private static byte[] utf8(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** A Lua script and its SHA-1 digest (hex), as {@code EVALSHA} names it. Instances are immutable. */
    private static final class Script
    {
        final String source;
        final String digest;

        Script(final String source)
        {
            this.source = source;
            try
            {
                final byte[] sha = MessageDigest.getInstance("SHA-1").digest(utf8(source));
                final StringBuilder hex = new StringBuilder(40);
                for (final byte b : sha)
                {
                    hex.append(Character.forDigit((b >> 4) & 0xF, 16)).append(Character.forDigit(b & 0xF, 16));
                }
                this.digest = hex.toString();
            }
            catch (final NoSuchAlgorithmException ex)
            {
                throw new IllegalStateException("every JVM has SHA-1", ex);
            }
        }
    }
}
