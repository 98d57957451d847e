package io.multifactor.concurrency;

import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.kernel.clock.ManualClock;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.metrics.CounterLabel;
import io.multifactor.kernel.metrics.CounterTypes;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import io.multifactor.kernel.plan.SessionPolicy;
import io.multifactor.kernel.session.SessionTable;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The session table on 8 real threads, over more keys than {@code max_sessions} while it evicts. The invariants:
 * <ul>
 *   <li>a key is never held twice (at most one way of its set holds it), seen by a checker thread while the writers run
 *       and over every key at the end;</li>
 *   <li>live entries never exceed {@code max_sessions};</li>
 *   <li>a key's turns never exceed the updates attempted with it (no increment is invented or applied twice), and, on
 *       keys that never compete for a way (no eviction), equal exactly the updates that were not given up
 *       ({@link SessionTable#SKIPPED}): no increment is lost;</li>
 *   <li>{@code select} with sessions allocates nothing after warm-up (the fewest of three rounds per thread),
 *       measured with its allocated bytes, and every session selection is counted under exactly one rule.</li>
 * </ul>
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SessionTableStressTest
{
    private static final int THREADS = 8;
    private static final long IDLE_NS = Long.MAX_VALUE / 4;
    private static final int MAX_SESSIONS = 64;

    @Test
    void shouldNeverHoldAKeyTwiceNorInventTurnsWhileEightThreadsEvict() throws Exception
    {
        final SessionTable table = new SessionTable(MAX_SESSIONS);
        final int keys = 8 * MAX_SESSIONS;
        final AtomicLongArray attempted = new AtomicLongArray(keys);
        final AtomicBoolean running = new AtomicBoolean(true);
        final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        final CountDownLatch go = new CountDownLatch(1);
        final long[] evicted = new long[THREADS];
        final List<Thread> writers = new ArrayList<>();
        for (int t = 0; t < THREADS; t++)
        {
            final int thread = t;
            writers.add(CounterBlocksStressTest.start(errors, go, () ->
            {
                final SplittableRandom random = new SplittableRandom(thread);
                for (int i = 0; i < 200_000; i++)
                {
                    final int k = random.nextInt(keys);
                    // Counted before the update: a checker that sees the turn sees the attempt.
                    attempted.incrementAndGet(k);
                    // Each key keeps one model, so its turns only grow while it stays in the table.
                    if (table.update(key(k), k % 4, i, IDLE_NS) == SessionTable.EVICTED)
                    {
                        evicted[thread]++;
                    }
                }
            }));
        }
        final Thread checker = CounterBlocksStressTest.start(errors, null, () ->
        {
            final SplittableRandom random = new SplittableRandom(99);
            while (running.get())
            {
                final int k = random.nextInt(keys);
                assertThat(table.occurrences(key(k))).isLessThanOrEqualTo(1);
                final long entry = table.lookup(key(k), 0, IDLE_NS);
                if (entry != SessionTable.NO_ENTRY)
                {
                    assertThat(SessionTable.modelId(entry)).isEqualTo(k % 4);
                    assertThat((long)SessionTable.turns(entry)).isLessThanOrEqualTo(attempted.get(k));
                }
                assertThat(table.liveCount(0, IDLE_NS)).isLessThanOrEqualTo(MAX_SESSIONS);
            }
        });
        go.countDown();
        for (final Thread writer : writers)
        {
            writer.join();
        }
        running.set(false);
        checker.join();
        assertThat(errors).isEmpty();
        int held = 0;
        for (int k = 0; k < keys; k++)
        {
            assertThat(table.occurrences(key(k))).isLessThanOrEqualTo(1);
            held += table.occurrences(key(k));
        }
        assertThat(held).isEqualTo(MAX_SESSIONS).isEqualTo(table.liveCount(0, IDLE_NS));
        long evictions = 0;
        for (final long count : evicted)
        {
            evictions += count;
        }
        assertThat(evictions).as("the table evicted").isGreaterThan(100_000);
    }

    @Test
    void shouldLoseNoTurnOnKeysThatFitTheirSets() throws Exception
    {
        final SessionTable table = new SessionTable(MAX_SESSIONS);
        // Keys chosen so that no set holds more than its ways: none is ever evicted.
        final Map<Integer, Integer> perSet = new HashMap<>();
        final long[] chosen = new long[48];
        int found = 0;
        for (long candidate = 1; found < chosen.length; candidate++)
        {
            final int set = table.setOf(candidate);
            if (perSet.merge(set, 1, Integer::sum) <= table.waysOf(set))
            {
                chosen[found++] = candidate;
            }
        }
        final long[][] skipped = new long[THREADS][chosen.length];
        final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        final CountDownLatch go = new CountDownLatch(1);
        final int rounds = 5_000;
        final List<Thread> writers = new ArrayList<>();
        for (int t = 0; t < THREADS; t++)
        {
            final int thread = t;
            writers.add(CounterBlocksStressTest.start(errors, go, () ->
            {
                for (int r = 0; r < rounds; r++)
                {
                    for (int k = 0; k < chosen.length; k++)
                    {
                        final int result = table.update(chosen[k], 1, r, IDLE_NS);
                        assertThat(result).isNotEqualTo(SessionTable.EVICTED);
                        skipped[thread][k] += result == SessionTable.SKIPPED ? 1 : 0;
                    }
                }
            }));
        }
        go.countDown();
        for (final Thread writer : writers)
        {
            writer.join();
        }
        assertThat(errors).isEmpty();
        for (int k = 0; k < chosen.length; k++)
        {
            long notGivenUp = (long)THREADS * rounds;
            for (int t = 0; t < THREADS; t++)
            {
                notGivenUp -= skipped[t][k];
            }
            final long entry = table.lookup(chosen[k], rounds, IDLE_NS);
            assertThat(table.occurrences(chosen[k])).isEqualTo(1);
            assertThat((long)SessionTable.turns(entry)).as("key %d", chosen[k]).isEqualTo(notGivenUp);
        }
    }

    @Test
    void shouldSelectWithSessionsWithoutAllocatingAndCountEveryRequestOnce() throws Exception
    {
        final ManualClock clock = new ManualClock(1_000_000_000L);
        final Plans plans = new PlansBuilder()
            .model("a", 0.5, 1.0).model("b", 0.5, 1.0).model("c", 0.4, 1.0)
            .decision("d").candidates("a", "b", "c").weights(0.5, 0.0, 0.0, 0.5)
            .session(new SessionPolicy(0.1, 0.05, 1, TimeUnit.SECONDS.toNanos(300), 256)).add()
            .build();
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final int warmUp = 20_000;
        final int measured = 30_000;
        try (MultiFactorEngine engine = MultiFactorEngine.builder(plans).clock(clock).build())
        {
            final int decision = engine.requireDecisionId("d");
            final long[] allocated = new long[THREADS];
            final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
            final CountDownLatch go = new CountDownLatch(1);
            final List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < THREADS; t++)
            {
                final int thread = t;
                workers.add(CounterBlocksStressTest.start(errors, go, () ->
                {
                    final Request request = new Request().decision(decision).seed(thread);
                    final Selection selection = new Selection();
                    final SplittableRandom random = new SplittableRandom(thread);
                    // The fewest bytes of three measured rounds after the warm-up: steady-state allocation shows in
                    // every round, while a method deoptimized once (its scalar-replaced objects rematerialized on the
                    // heap, 1,528 bytes seen once on a busy machine) shows in one.
                    long fewest = Long.MAX_VALUE;
                    long before = 0;
                    for (int i = 0; i < warmUp + measured; i++)
                    {
                        if (i >= warmUp && (i - warmUp) % (measured / 3) == 0)
                        {
                            final long now = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
                            fewest = i == warmUp ? fewest : Math.min(fewest, now - before);
                            before = now;
                        }
                        // 4,096 keys over a table of 256: the table evicts all along.
                        engine.end(engine.selectAndBegin(request.session(random.nextInt(4_096)), selection));
                    }
                    allocated[thread] = Math.min(fewest,
                        threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - before);
                }));
            }
            go.countDown();
            for (final Thread worker : workers)
            {
                worker.join();
            }
            assertThat(errors).isEmpty();
            assertThat(allocated).as("bytes allocated per thread after warm-up").containsOnly(0L);
            engine.refreshNow();
            final Map<String, Long> counters = live(engine.countersReader());
            long counted = 0;
            for (final String rule : new String[] {"new", "stay", "switch", "handoff"})
            {
                counted += counters.get(CounterLabel.format("mf.sessions", "decision", "d", "rule", rule));
            }
            assertThat(counted).isEqualTo((long)THREADS * (warmUp + measured));
            assertThat(counters.get(CounterLabel.format("mf.sessions", "decision", "d", "rule", "evicted")))
                .isPositive();
            assertThat(counters.get(CounterLabel.format("mf.sessions.live", "decision", "d"))).isBetween(1L, 256L);
        }
    }

    private static long key(final int k)
    {
        return k * 0x9E3779B97F4A7C15L + 17;
    }

    private static Map<String, Long> live(final CountersReader reader)
    {
        final Map<String, Long> live = new HashMap<>();
        reader.forEach((counterId, typeId, keyBuffer, label) ->
        {
            if (keyBuffer.getInt(CounterTypes.KEY_STATE_OFFSET) == CounterTypes.KEY_LIVE)
            {
                live.put(label, reader.getCounterValue(counterId));
            }
        });
        return live;
    }
}
