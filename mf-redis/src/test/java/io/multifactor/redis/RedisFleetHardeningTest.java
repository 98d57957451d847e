package io.multifactor.redis;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.multifactor.api.Selection;
import io.multifactor.kernel.fleet.FleetAgent;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.engine.SignalSettings;
import io.multifactor.kernel.fleet.FleetExchange;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import org.HdrHistogram.Histogram;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.CachedEpochClock;
import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * What broke the Redis exchange when tried adversarially, against a real redis-server: one damaged count field or
 * key, a server stopped (SIGSTOP) for 10 s, one forged latency entry of 300 MB.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class RedisFleetHardeningTest
{
    private static final long PERIOD_MS = 1_000;
    private static RedisServer server;

    private final List<AutoCloseable> closeables = new ArrayList<>();

    @BeforeAll
    static void startServer()
    {
        server = new RedisServer(null).start();
    }

    @AfterAll
    static void stopServer()
    {
        server.close();
    }

    @AfterEach
    void closeAll() throws Exception
    {
        for (int i = closeables.size() - 1; i >= 0; i--)
        {
            closeables.get(i).close();
        }
        closeables.clear();
    }

    private static Plans plans(final int models)
    {
        final PlansBuilder builder = new PlansBuilder();
        final String[] names = new String[models];
        for (int m = 0; m < models; m++)
        {
            names[m] = "m" + (m < 10 ? "0" : "") + m;
            builder.model(names[m], 0.9 - m * 0.001, 1.0);
        }
        return builder.decision("d").candidates(names).weights(0.5, 0.0, 0.0, 0.5).slo(0.0, 0.0, 0.0, 1_000).add()
            .build();
    }

    private MultiFactorEngine engine(final int models, final NanoClock clock)
    {
        final MultiFactorEngine engine = MultiFactorEngine.builder(plans(models)).clock(clock)
            .settings(new SignalSettings(60_000_000_000L, 50_000_000L, 600_000_000_000L)).build();
        closeables.add(engine);
        return engine;
    }

    private RedisFleetExchange exchange(final String cluster, final String id, final long periodMs,
        final org.agrona.concurrent.EpochClock clock)
    {
        final RedisFleetExchange exchange = RedisFleetExchange.create(
            RedisFleetSettings.of(server.url(), cluster, Duration.ofMillis(periodMs), id), clock, 64);
        closeables.add(exchange);
        return exchange;
    }

    /** Two replicas on one wall clock driven by the test, each with 3 leases on m07 and 1 on m01. */
    private final class Pair
    {
        final CachedEpochClock wall = new CachedEpochClock();
        final CachedNanoClock nanos = new CachedNanoClock();
        final MultiFactorEngine e1;
        final MultiFactorEngine e2;
        final RedisFleetExchange x1;
        final RedisFleetExchange x2;
        final FleetAgent a1;
        final FleetAgent a2;

        Pair(final String cluster)
        {
            nanos.update(1_000_000_000_000L);
            e1 = engine(8, nanos);
            e2 = engine(8, nanos);
            x1 = exchange(cluster, "one", PERIOD_MS, wall);
            x2 = exchange(cluster, "two", PERIOD_MS, wall);
            a1 = new FleetAgent(e1, x1, nanos, 64);
            a2 = new FleetAgent(e2, x2, nanos, 64);
            for (final MultiFactorEngine e : List.of(e1, e2))
            {
                for (int i = 0; i < 3; i++)
                {
                    e.begin(e.modelId("m07"));
                }
                e.begin(e.modelId("m01"));
            }
        }

        /**
         * Publishes at the start of period p, reads in its middle; both replicas.
         *
         * @return the outcomes: publication of one, of two, read of one, of two.
         */
        List<Integer> period(final long p)
        {
            wall.update(p * PERIOD_MS);
            final int publish1 = a1.exchangeNow(nanos.nanoTime());
            final int publish2 = a2.exchangeNow(nanos.nanoTime());
            wall.update(p * PERIOD_MS + PERIOD_MS / 2);
            return List.of(publish1, publish2, a1.exchangeNow(nanos.nanoTime()), a2.exchangeNow(nanos.nanoTime()));
        }
    }

    private void shouldKeepCountsRightWhen(final String cluster, final String what,
        final Consumer<RedisCommands<byte[], byte[]>> damage, final long p0)
    {
        final Pair pair = new Pair(cluster);
        assertThat(pair.period(p0)).containsExactly(
            FleetExchange.IDLE, FleetExchange.IDLE, FleetExchange.EXCHANGED, FleetExchange.EXCHANGED);
        assertThat(pair.e1.inflight(pair.e1.modelId("m07"))).isEqualTo(6);
        try (Raw raw = new Raw())
        {
            damage.accept(raw.redis);
        }

        final List<Integer> outcomes = pair.period(p0 + 1);
        final long skipped = pair.x1.skippedEntryCount() + pair.x2.skippedEntryCount();
        System.out.println(what + ": in-flight m07 " + pair.e1.inflight(pair.e1.modelId("m07")) + " and " +
            pair.e2.inflight(pair.e2.modelId("m07")) + " for 6 leases, m01 " +
            pair.e1.inflight(pair.e1.modelId("m01")) + " for 2, live remote replicas " +
            pair.a1.liveRemoteReplicas() + " and " + pair.a2.liveRemoteReplicas() + ", skipped " + skipped +
            ", outcomes " + outcomes + " (" + FleetExchange.IDLE + " idle, " + FleetExchange.EXCHANGED + " exchanged, " +
            FleetExchange.FAILED + " failed)");
        assertThat(outcomes).as(what + ": outcomes").containsExactly(
            FleetExchange.IDLE, FleetExchange.IDLE, FleetExchange.EXCHANGED, FleetExchange.EXCHANGED);
        for (final MultiFactorEngine e : List.of(pair.e1, pair.e2))
        {
            assertThat(e.inflight(e.modelId("m07"))).as(what + ": m07").isEqualTo(6);
            assertThat(e.inflight(e.modelId("m01"))).as(what + ": m01").isEqualTo(2);
            assertThat(e.localInflight(e.modelId("m07"))).isEqualTo(3);
        }
        assertThat(pair.a1.liveRemoteReplicas()).as(what + ": live remote replicas of one").isEqualTo(1);
        assertThat(pair.a2.liveRemoteReplicas()).as(what + ": live remote replicas of two").isEqualTo(1);
        assertThat(skipped).as(what + ": counted").isPositive();
    }

    @Test
    void shouldKeepCountsRightWhenACountFieldOfTheComingPeriodIsNotANumber()
    {
        final long p0 = 5_000_000L;
        shouldKeepCountsRightWhen("bad-field", "HSET n:{p+1} m07 12abc", redis ->
            redis.hset(bytes("mf:{bad-field}:n:" + (p0 + 1)), bytes("m07"), bytes("12abc")), p0);
    }

    @Test
    void shouldKeepCountsRightWhenTheReplicaKeyOfTheComingPeriodIsAHash()
    {
        final long p0 = 5_000_100L;
        shouldKeepCountsRightWhen("bad-replicas", "a hash where the replica key is expected", redis ->
        {
            for (final String kind : List.of("r:", "s:"))
            {
                redis.hset(bytes("mf:{bad-replicas}:" + kind + (p0 + 1)), bytes("x"), bytes("1"));
            }
        }, p0);
    }

    @Test
    void shouldKeepCountsRightWhenTheCountKeyOfTheComingPeriodIsAString()
    {
        final long p0 = 5_000_200L;
        shouldKeepCountsRightWhen("bad-counts", "a string at the count key", redis ->
            redis.set(bytes("mf:{bad-counts}:n:" + (p0 + 1)), bytes("not a hash")), p0);
    }

    @Test
    void shouldNotCountItselfTwiceWhenItsPublicationTimedOutButRanLater() throws Exception
    {
        final long p0 = 5_000_300L;
        final List<LogRecord> logged = captureExchangeLog();
        final Pair pair = new Pair("late");
        pair.period(p0);
        assertThat(pair.e1.inflight(pair.e1.modelId("m07"))).isEqualTo(6);

        // Stopped while the next period's publications are sent: they time out here, and run once it goes on.
        final List<Integer> publications = new ArrayList<>();
        server.pause();
        try
        {
            pair.wall.update((p0 + 1) * PERIOD_MS);
            publications.add(pair.a1.exchangeNow(pair.nanos.nanoTime()));
            publications.add(pair.a2.exchangeNow(pair.nanos.nanoTime()));
        }
        finally
        {
            server.resume();
        }
        Thread.sleep(200);
        pair.wall.update((p0 + 1) * PERIOD_MS + PERIOD_MS / 2);
        final int read1 = pair.a1.exchangeNow(pair.nanos.nanoTime());
        final int read2 = pair.a2.exchangeNow(pair.nanos.nanoTime());
        System.out.println("publication timed out (" + publications + ") but ran: in-flight m07 " +
            pair.e1.inflight(pair.e1.modelId("m07")) + " and " + pair.e2.inflight(pair.e2.modelId("m07")) +
            " for 6 leases, live remote replicas " + pair.a1.liveRemoteReplicas() + " and " +
            pair.a2.liveRemoteReplicas());
        assertThat(publications).containsExactly(FleetExchange.FAILED, FleetExchange.FAILED);
        assertThat(List.of(read1, read2)).containsExactly(FleetExchange.EXCHANGED, FleetExchange.EXCHANGED);
        for (final MultiFactorEngine e : List.of(pair.e1, pair.e2))
        {
            assertThat(e.inflight(e.modelId("m07"))).isEqualTo(6);
            assertThat(e.inflight(e.modelId("m01"))).isEqualTo(2);
        }
        assertThat(pair.a1.liveRemoteReplicas()).isEqualTo(1);
        assertThat(pair.a2.liveRemoteReplicas()).isEqualTo(1);
        assertThat(logged).anySatisfy(r -> assertThat(r.getLevel()).isEqualTo(Level.WARNING));
    }

    @Test
    void shouldLeaveNoKeyWithoutExpiryAfterTheServerWasStoppedForTenSeconds() throws Exception
    {
        final String cluster = "stopped";
        final List<LogRecord> logged = captureExchangeLog();
        final List<MultiFactorEngine> engines = new ArrayList<>();
        for (int r = 0; r < 2; r++)
        {
            final MultiFactorEngine engine = engine(64, SystemNanoClock.INSTANCE);
            engines.add(engine);
            final RedisFleetExchange exchange = exchange(cluster, "replica-" + r, 100, SystemEpochClock.INSTANCE);
            final FleetAgent agent = new FleetAgent(engine, exchange, SystemNanoClock.INSTANCE, 64);
            final AgentRunner fleet = new AgentRunner(new SleepingMillisIdleStrategy(1), Throwable::printStackTrace,
                null, agent);
            final AgentRunner refresh = new AgentRunner(new SleepingMillisIdleStrategy(1),
                Throwable::printStackTrace, null, engine.agent());
            AgentRunner.startOnThread(fleet);
            AgentRunner.startOnThread(refresh);
            closeables.add(fleet);
            closeables.add(refresh);
            for (int m = 0; m < 64; m++)
            {
                engine.begin(m);
            }
        }
        awaitInflight(engines.get(0), 63, 2, 10_000);

        server.pause();
        try
        {
            Thread.sleep(10_000);
        }
        finally
        {
            server.resume();
        }
        // What the server was sent while stopped runs now; then the replicas exchange again.
        awaitInflight(engines.get(0), 63, 2, 10_000);
        Thread.sleep(1_000);

        int keys = 0;
        final List<String> withoutExpiry = new ArrayList<>();
        try (Raw raw = new Raw())
        {
            ScanCursor cursor = ScanCursor.INITIAL;
            do
            {
                final KeyScanCursor<byte[]> page =
                    raw.redis.scan(cursor, ScanArgs.Builder.matches("mf:{" + cluster + "}:*").limit(1_000));
                for (final byte[] key : page.getKeys())
                {
                    keys++;
                    final long ttl = raw.redis.pttl(key);
                    if (ttl == -1)
                    {
                        final String name = new String(key, StandardCharsets.UTF_8);
                        withoutExpiry.add(name + (raw.redis.type(key).equals("hash") ?
                            " (hash of " + raw.redis.hlen(key) + " fields)" : ""));
                    }
                }
                cursor = page;
            }
            while (!cursor.isFinished());
        }
        System.out.println("after a 10 s SIGSTOP: " + keys + " keys of the cluster, " + withoutExpiry.size() +
            " without expiry " + withoutExpiry);
        assertThat(keys).isPositive();
        assertThat(withoutExpiry).isEmpty();
        // The outage was seen (one warning per replica) and left behind.
        assertThat(logged).anySatisfy(r -> assertThat(r.getLevel()).isEqualTo(Level.WARNING));
    }

    @Test
    void shouldMergeTheReplicasEntriesDespiteAForgedEntryOf300Fields() throws Exception
    {
        final String cluster = "forged";
        final CachedEpochClock wall = new CachedEpochClock();
        final CachedNanoClock nanos = new CachedNanoClock();
        nanos.update(1_000_000_000_000L);
        final MultiFactorEngine e1 = engine(8, nanos);
        final MultiFactorEngine e2 = engine(8, nanos);
        final RedisFleetExchange x1 = exchange(cluster, "one", PERIOD_MS, wall);
        final RedisFleetExchange x2 = exchange(cluster, "two", PERIOD_MS, wall);
        final FleetAgent a1 = new FleetAgent(e1, x1, nanos, 64);
        final FleetAgent a2 = new FleetAgent(e2, x2, nanos, 64);
        final Histogram all = new Histogram(1, 60_000_000L, 2);
        for (int i = 1; i <= 500; i++)
        {
            e1.recordTpotMicros(e1.modelId("m00"), 10_000L + i);
            e2.recordTpotMicros(e2.modelId("m00"), 40_000L + i * 10);
            all.recordValue(10_000L + i);
            all.recordValue(40_000L + i * 10);
        }
        final long p0 = 6_000_000L;
        final long e0 = p0 / RedisFleetExchange.LATENCY_EVERY_PERIODS;
        wall.update(p0 * PERIOD_MS);
        a1.exchangeNow(nanos.nanoTime());
        a2.exchangeNow(nanos.nanoTime());
        try (Raw raw = new Raw())
        {
            // The previous latency period's aggregate exists, so only e0 is aggregated below.
            raw.redis.set(bytes("mf:{" + cluster + "}:f:" + (e0 - 1)), bytes("garbage"));
            final SplittableRandom random = new SplittableRandom(8);
            final byte[] mb = new byte[1_000_000];
            for (int i = 0; i < 300; i++)
            {
                for (int b = 0; b < mb.length; b += 8)
                {
                    final long r = random.nextLong();
                    for (int k = 0; k < 8 && b + k < mb.length; k++)
                    {
                        mb[b + k] = (byte)(r >>> (8 * k));
                    }
                }
                raw.redis.hset(bytes("mf:{" + cluster + "}:l:" + e0), bytes("forged-" + i), mb);
            }
        }

        long slowestMs = 0;
        final List<Integer> reads = new ArrayList<>();
        for (int p = 1; p <= RedisFleetExchange.LATENCY_EVERY_PERIODS + 1; p++)
        {
            wall.update((p0 + p) * PERIOD_MS);
            final long startNs = System.nanoTime();
            a1.exchangeNow(nanos.nanoTime());
            a2.exchangeNow(nanos.nanoTime());
            slowestMs = Math.max(slowestMs, (System.nanoTime() - startNs) / 1_000_000);
            wall.update((p0 + p) * PERIOD_MS + PERIOD_MS / 2);
            reads.add(a1.exchangeNow(nanos.nanoTime()));
            reads.add(a2.exchangeNow(nanos.nanoTime()));
        }
        final long skipped = x1.skippedEntryCount() + x2.skippedEntryCount();
        System.out.println("forged latency hash of 300 x 1 MB: aggregated " + (x1.aggregatedCount() +
            x2.aggregatedCount()) + " period(s), slowest period start " + slowestMs + " ms, skipped " + skipped +
            ", failed exchanges " + (x1.failedCount() + x2.failedCount()) + ", reads " + reads);
        assertThat(reads).containsOnly(FleetExchange.EXCHANGED);
        assertThat(x1.aggregatedCount() + x2.aggregatedCount()).isEqualTo(1);
        // Every forged field is skipped: most unread (beyond the bytes an aggregation may read), the rest undecodable.
        assertThat(skipped).isGreaterThanOrEqualTo(300);

        final double expectedMs = all.getValueAtPercentile(95) / 1000.0;
        final Selection out = new Selection();
        for (final MultiFactorEngine engine : List.of(e1, e2))
        {
            engine.refreshNow();
            engine.select(engine.decisionId("d"), null, out);
            final int m00 = indexOf(out, engine.modelId("m00"));
            assertThat(out.tpotMs(m00)).isCloseTo(expectedMs, within(expectedMs * 0.01));
        }
    }

    /** The outage of a test is expected: the exchange's warnings go to a list, not to the console of a passing build. */
    private List<LogRecord> captureExchangeLog()
    {
        final List<LogRecord> logged = new CopyOnWriteArrayList<>();
        final Logger logger = Logger.getLogger(RedisFleetExchange.class.getName());
        final Handler handler = new Handler()
        {
            @Override
            public void publish(final LogRecord record)
            {
                logged.add(record);
            }

            @Override
            public void flush()
            {
            }

            @Override
            public void close()
            {
            }
        };
        final boolean parents = logger.getUseParentHandlers();
        logger.addHandler(handler);
        logger.setUseParentHandlers(false);
        closeables.add(() ->
        {
            logger.removeHandler(handler);
            logger.setUseParentHandlers(parents);
        });
        return logged;
    }

    private static int indexOf(final Selection out, final int model)
    {
        for (int i = 0; i < out.candidateCount(); i++)
        {
            if (out.modelId(i) == model)
            {
                return i;
            }
        }
        throw new AssertionError("model " + model + " not among the candidates");
    }

    private static void awaitInflight(final MultiFactorEngine engine, final int model, final long expected,
        final long timeoutMs) throws InterruptedException
    {
        final long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (engine.inflight(model) != expected && System.nanoTime() < deadline)
        {
            Thread.sleep(5);
        }
        assertThat(engine.inflight(model)).isEqualTo(expected);
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** A plain Lettuce connection that writes what a hostile or broken replica could write. */
    private static final class Raw implements AutoCloseable
    {
        final RedisClient client = RedisClient.create(server.url());
        final StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE);
        final RedisCommands<byte[], byte[]> redis = connection.sync();

        @Override
        public void close()
        {
            connection.close();
            client.shutdown();
        }
    }
}
