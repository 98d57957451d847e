package io.multifactor.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.multifactor.api.Selection;
import io.multifactor.kernel.fleet.FleetAgent;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.engine.SignalSettings;
import io.multifactor.kernel.fleet.FleetExchange;
import io.multifactor.kernel.fleet.FleetSignals;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import org.HdrHistogram.Histogram;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.CachedEpochClock;
import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The Redis exchange in one process against a real redis-server (password in the URL). */
class RedisFleetExchangeTest
{
    private static final String PASSWORD = "pw-7f3c-fleet";
    private static RedisServer server;

    private final List<AutoCloseable> closeables = new ArrayList<>();

    @BeforeAll
    static void startServer()
    {
        server = new RedisServer(PASSWORD).start();
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
    }

    private static Plans plans()
    {
        return new PlansBuilder()
            .model("a", 0.9, 1.0)
            .model("b", 0.5, 1.0)
            .decision("d")
            .candidates("a", "b")
            .weights(0.5, 0.0, 0.0, 0.5)
            .slo(0.0, 0.0, 0.0, 1_000)
            .add()
            .build();
    }

    private MultiFactorEngine engine(final org.agrona.concurrent.NanoClock clock)
    {
        final MultiFactorEngine engine = MultiFactorEngine.builder(plans()).clock(clock)
            .settings(new SignalSettings(60_000_000_000L, 50_000_000L, 600_000_000_000L)).build();
        closeables.add(engine);
        return engine;
    }

    private RedisFleetExchange exchange(final String cluster, final String id, final long periodMs,
        final org.agrona.concurrent.EpochClock clock, final int capacity)
    {
        final RedisFleetExchange exchange = RedisFleetExchange.create(
            RedisFleetSettings.of(server.url(), cluster, Duration.ofMillis(periodMs), id), clock, capacity);
        closeables.add(exchange);
        return exchange;
    }

    private void run(final MultiFactorEngine engine, final FleetAgent agent)
    {
        final AgentRunner fleet = new AgentRunner(new SleepingMillisIdleStrategy(1), Throwable::printStackTrace, null,
            agent);
        final AgentRunner refresh = new AgentRunner(new SleepingMillisIdleStrategy(1), Throwable::printStackTrace, null,
            engine.agent());
        AgentRunner.startOnThread(fleet);
        AgentRunner.startOnThread(refresh);
        closeables.add(fleet);
        closeables.add(refresh);
    }

    @Test
    void shouldGiveEveryReplicaAFleetPercentileWithinOnePercentOfAllSamples()
    {
        final Histogram all = new Histogram(1, 60_000_000L, 2);
        final List<MultiFactorEngine> engines = new ArrayList<>();
        final SplittableRandom random = new SplittableRandom(3);
        for (int r = 0; r < 3; r++)
        {
            final MultiFactorEngine engine = engine(SystemNanoClock.INSTANCE);
            engines.add(engine);
            final RedisFleetExchange exchange =
                exchange("pct", "replica-" + r, 500, org.agrona.concurrent.SystemEpochClock.INSTANCE, 16);
            run(engine, new FleetAgent(engine, exchange, SystemNanoClock.INSTANCE, 16));
            for (int i = 0; i < 2_000; i++)
            {
                // Each replica sees a different latency: its own p95 is far from the fleet's.
                final long micros = 20_000L * (r + 1) + random.nextLong(10_000L * (r + 1));
                engine.recordTpotMicros(engine.modelId("a"), micros);
                all.recordValue(micros);
            }
        }
        final double expectedMs = all.getValueAtPercentile(95) / 1000.0;
        final Selection out = new Selection();
        // Several latency periods of 2 s: a loaded machine fails some exchanges, a later period gets them through.
        final long deadline = System.nanoTime() + 30_000_000_000L;
        boolean agreed = false;
        while (!agreed && System.nanoTime() < deadline)
        {
            RedisServer.sleep(50);
            agreed = true;
            for (final MultiFactorEngine engine : engines)
            {
                engine.select(engine.decisionId("d"), null, out);
                agreed &= Math.abs(out.tpotMs(0) - expectedMs) <= expectedMs * 0.01;
            }
        }
        for (final MultiFactorEngine engine : engines)
        {
            engine.select(engine.decisionId("d"), null, out);
            assertThat(out.tpotMs(0)).isCloseTo(expectedMs, within(expectedMs * 0.01));
        }
    }

    @Test
    void shouldKeepSelectingThroughAnOutageWarnOnceAndComeBackAfterARestart()
    {
        final List<LogRecord> logged = new ArrayList<>();
        final Logger logger = Logger.getLogger(RedisFleetExchange.class.getName());
        final Handler handler = new Handler()
        {
            @Override
            public synchronized void publish(final LogRecord record)
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
        logger.addHandler(handler);
        // Captured, not printed: the outage's warnings are asserted on below, and a passing build shows none of them.
        final boolean parentHandlers = logger.getUseParentHandlers();
        logger.setUseParentHandlers(false);
        closeables.add(() ->
        {
            logger.removeHandler(handler);
            logger.setUseParentHandlers(parentHandlers);
        });

        final MultiFactorEngine one = engine(SystemNanoClock.INSTANCE);
        final MultiFactorEngine two = engine(SystemNanoClock.INSTANCE);
        final RedisFleetExchange x1 = exchange("outage", "one", 100, org.agrona.concurrent.SystemEpochClock.INSTANCE, 16);
        final RedisFleetExchange x2 = exchange("outage", "two", 100, org.agrona.concurrent.SystemEpochClock.INSTANCE, 16);
        final FleetAgent agentTwo = new FleetAgent(two, x2, SystemNanoClock.INSTANCE, 16);
        run(one, new FleetAgent(one, x1, SystemNanoClock.INSTANCE, 16));
        run(two, agentTwo);
        final int a = one.modelId("a");
        for (int i = 0; i < 7; i++)
        {
            one.begin(a);
        }
        two.begin(a);
        awaitInflight(two, a, 8, 5_000);

        final AtomicBoolean running = new AtomicBoolean(true);
        final AtomicLong selections = new AtomicLong();
        final Thread selector = new Thread(() ->
        {
            final Selection out = new Selection();
            final int d = two.decisionId("d");
            while (running.get())
            {
                two.select(d, null, out);
                selections.incrementAndGet();
            }
        });
        selector.start();
        closeables.add(() ->
        {
            running.set(false);
            selector.join();
        });

        synchronized (handler)
        {
            // Count the warnings of the outage below only (a slow first connection may have warned already).
            logged.clear();
        }
        server.kill();
        final long killedAt = System.nanoTime();
        awaitInflight(two, a, 1, 5_000);
        // The remote count is forgotten once no exchange succeeded for 4 periods (plus a second for a loaded machine).
        assertThat((System.nanoTime() - killedAt) / 1_000_000).isLessThan(4 * 100 + 1_000);
        final long during = selections.get();
        RedisServer.sleep(500);
        assertThat(selections.get()).isGreaterThan(during);
        assertThat(agentTwo.failedCount()).isPositive();
        final long failedBeforeRestart = x2.failedCount();
        final List<String> warningsDuringOutage = new ArrayList<>();
        synchronized (handler)
        {
            for (final LogRecord record : logged)
            {
                if (record.getLevel() == Level.WARNING)
                {
                    warningsDuringOutage.add(record.getMessage());
                }
            }
        }

        server.start();
        awaitInflight(two, a, 8, 10_000);
        assertThat(agentTwo.liveRemoteReplicas()).isEqualTo(1);
        assertThat(selections.get()).isGreaterThan(during);

        // Many failures, one warning per replica for the whole outage (none if it was already in one), no password.
        assertThat(failedBeforeRestart).isGreaterThanOrEqualTo(3);
        assertThat(warningsDuringOutage).isNotEmpty();
        assertThat(warningsDuringOutage.stream().filter(m -> m.contains("replica two ")).count()).isLessThanOrEqualTo(1);
        assertThat(warningsDuringOutage.stream().filter(m -> m.contains("replica one ")).count()).isLessThanOrEqualTo(1);
        assertThat(warningsDuringOutage.get(0)).contains("redis://127.0.0.1:" + server.port());
        synchronized (handler)
        {
            for (final LogRecord record : logged)
            {
                assertThat(record.getMessage()).doesNotContain(PASSWORD);
            }
        }
    }

    private static void awaitInflight(final MultiFactorEngine engine, final int model, final long expected,
        final long timeoutMs)
    {
        final long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (engine.inflight(model) != expected && System.nanoTime() < deadline)
        {
            RedisServer.sleep(5);
        }
        assertThat(engine.inflight(model)).isEqualTo(expected);
    }

    @Test
    void shouldSkipAndCountWhatDoesNotDecodeAndKeepTheWindowsClean()
    {
        final long periodMs = 1_000;
        final CachedEpochClock wall = new CachedEpochClock();
        final CachedNanoClock nanos = new CachedNanoClock();
        nanos.update(1_000_000_000_000L);
        final MultiFactorEngine e1 = engine(nanos);
        final MultiFactorEngine e2 = engine(nanos);
        final RedisFleetExchange x1 = exchange("untrusted", "one", periodMs, wall, 4);
        final RedisFleetExchange x2 = exchange("untrusted", "two", periodMs, wall, 4);
        final FleetAgent a1 = new FleetAgent(e1, x1, nanos, 4);
        final FleetAgent a2 = new FleetAgent(e2, x2, nanos, 4);
        final Histogram all = new Histogram(1, 60_000_000L, 2);
        for (int i = 1; i <= 500; i++)
        {
            e1.recordTpotMicros(e1.modelId("a"), 10_000L + i);
            e2.recordTpotMicros(e2.modelId("a"), 40_000L + i * 10);
            all.recordValue(10_000L + i);
            all.recordValue(40_000L + i * 10);
        }
        e1.begin(e1.modelId("a"));
        final long p0 = 4_000_000L;
        final long e0 = p0 / RedisFleetExchange.LATENCY_EVERY_PERIODS;
        final long t0 = p0 * periodMs;

        wall.update(t0);
        assertThat(a1.exchangeNow(nanos.nanoTime())).isEqualTo(FleetExchange.IDLE);
        assertThat(a2.exchangeNow(nanos.nanoTime())).isEqualTo(FleetExchange.IDLE);

        final FleetCodec codec = new FleetCodec();
        final FleetSignals five = new FleetSignals(5);
        for (int m = 0; m < 5; m++)
        {
            five.tpot(five.add("m" + m)).recordValue(1_000);
        }
        final byte[] tooMany = codec.encode(FleetCodec.KIND_REPLICA, "mallory", List.of(), five);
        final byte[] unknownVersion = codec.encode(FleetCodec.KIND_REPLICA, "mallory", List.of(), signalsOf("a", 1));
        unknownVersion[2] = 2;
        try (Raw raw = new Raw())
        {
            final RedisCommands<byte[], byte[]> redis = raw.redis;
            final String prefix = "mf:{untrusted}:";
            redis.hset(bytes(prefix + "n:" + p0), bytes("b"), bytes("not-a-number"));
            redis.hset(bytes(prefix + "n:" + p0), bytes("c"), bytes("-5"));
            redis.hset(bytes(prefix + "n:" + p0), bytes("d"), bytes("99999999999999"));
            redis.set(bytes(prefix + "f:" + (e0 - 1)), bytes("garbage that is not an entry"));
            final byte[] entries = bytes(prefix + "l:" + e0);
            redis.hset(entries, bytes("m1"), bytes("garbage"));
            redis.hset(entries, bytes("m2"), unknownVersion);
            redis.hset(entries, bytes("m3"), tooMany);
            redis.hset(entries, bytes("m4"), new byte[FleetCodec.MAX_ENTRY_BYTES + 10]);
        }

        wall.update(t0 + periodMs / 2);
        assertThat(a1.exchangeNow(nanos.nanoTime())).isEqualTo(FleetExchange.EXCHANGED);
        assertThat(a2.exchangeNow(nanos.nanoTime())).isEqualTo(FleetExchange.EXCHANGED);
        assertThat(e2.inflight(e2.modelId("a"))).isEqualTo(1);
        assertThat(e2.inflight(e2.modelId("b"))).isZero();
        // Three bad count fields and one bad fleet entry, seen by each replica.
        assertThat(x1.skippedEntryCount()).isEqualTo(4);
        assertThat(x2.skippedEntryCount()).isEqualTo(4);

        for (int p = 1; p <= RedisFleetExchange.LATENCY_EVERY_PERIODS + 1; p++)
        {
            wall.update(t0 + p * periodMs);
            a1.exchangeNow(nanos.nanoTime());
            a2.exchangeNow(nanos.nanoTime());
            wall.update(t0 + p * periodMs + periodMs / 2);
            assertThat(a1.exchangeNow(nanos.nanoTime())).isEqualTo(FleetExchange.EXCHANGED);
            assertThat(a2.exchangeNow(nanos.nanoTime())).isEqualTo(FleetExchange.EXCHANGED);
        }
        // The aggregator of e0 skipped the four bad entries; e0 - 1 was not aggregated (the garbage written as its
        // fleet entry already existed), e0 once.
        assertThat(x1.skippedEntryCount() + x2.skippedEntryCount()).isEqualTo(8 + 4);
        assertThat(x1.aggregatedCount() + x2.aggregatedCount()).isEqualTo(1);

        final double expectedMs = all.getValueAtPercentile(95) / 1000.0;
        final Selection out = new Selection();
        for (final MultiFactorEngine engine : List.of(e1, e2))
        {
            engine.refreshNow();
            engine.select(engine.decisionId("d"), null, out);
            assertThat(out.tpotMs(0)).isCloseTo(expectedMs, within(expectedMs * 0.01));
            assertThat(out.tpotMs(1)).isNaN();
        }
    }

    private static FleetSignals signalsOf(final String model, final long micros)
    {
        final FleetSignals signals = new FleetSignals(1);
        signals.tpot(signals.add(model)).recordValue(micros);
        return signals;
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
