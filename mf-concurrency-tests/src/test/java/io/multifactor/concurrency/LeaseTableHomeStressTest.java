package io.multifactor.concurrency;

import io.multifactor.api.InflightTracker;
import io.multifactor.kernel.metrics.CounterBuffers;
import io.multifactor.kernel.inflight.LeaseTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lease table's home lines on real threads, crowded: four threads on a table of 64 slots (16 lines), each holding
 * up to twelve leases at once on three counters (more than the {@value LeaseTable#FAST_PROBES} slots from its home, so
 * claims spill into other threads' lines and the random slow path), a quarter of the leases ended by another thread
 * (as an asynchronous completion does) and every lease ended twice. No counter ever goes negative, every lease granted
 * is counted out exactly once, and the table ends empty.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LeaseTableHomeStressTest
{
    private static final int THREADS = 4;
    private static final int ROUNDS = 20_000;
    private static final int MOST_HELD = 12;

    @Test
    void shouldCountEveryLeaseOutOnceWhenThreadsCrowdEachOthersHomes() throws Exception
    {
        final CounterBuffers counters = CounterBuffers.inMemory(8);
        final int[] models = new int[3];
        for (int m = 0; m < models.length; m++)
        {
            models[m] = CounterBuffers.valueOffset(counters.allocate("inflight " + m, CounterBuffers.INFLIGHT_TYPE_ID));
        }
        final LeaseTable table = new LeaseTable(64, counters.values(),
            CounterBuffers.valueOffset(counters.allocate("full", CounterBuffers.EVENT_TYPE_ID)),
            CounterBuffers.valueOffset(counters.allocate("reclaimed", CounterBuffers.EVENT_TYPE_ID)));
        final ConcurrentLinkedQueue<Long> handedOver = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        final AtomicLong granted = new AtomicLong();
        final AtomicLong ended = new AtomicLong();
        final AtomicBoolean running = new AtomicBoolean(true);
        final CountDownLatch go = new CountDownLatch(1);
        final List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++)
        {
            final SplittableRandom random = new SplittableRandom(t);
            threads.add(start(errors, go, () ->
            {
                final long[] held = new long[MOST_HELD];
                for (int round = 0; round < ROUNDS; round++)
                {
                    final int count = 1 + random.nextInt(MOST_HELD);
                    for (int i = 0; i < count; i++)
                    {
                        held[i] = table.acquire(models[random.nextInt(models.length)], round);
                        if (held[i] != InflightTracker.NO_LEASE)
                        {
                            granted.incrementAndGet();
                        }
                    }
                    for (int i = 0; i < count; i++)
                    {
                        if (held[i] == InflightTracker.NO_LEASE)
                        {
                            continue;
                        }
                        if (random.nextInt(4) == 0)
                        {
                            handedOver.add(held[i]);
                        }
                        else
                        {
                            endTwice(table, held[i], ended);
                        }
                    }
                    for (Long lease = handedOver.poll(); lease != null; lease = handedOver.poll())
                    {
                        endTwice(table, lease, ended);
                    }
                }
            }));
        }
        final Thread checker = start(errors, go, () ->
        {
            while (running.get())
            {
                for (final int model : models)
                {
                    final long value = counters.values().getLongVolatile(model);
                    if (value < 0 || value > (long)THREADS * MOST_HELD)
                    {
                        throw new AssertionError("in flight on " + model + ": " + value);
                    }
                }
                Thread.onSpinWait();
            }
        });
        go.countDown();
        for (final Thread thread : threads)
        {
            thread.join();
        }
        running.set(false);
        checker.join();
        for (Long lease = handedOver.poll(); lease != null; lease = handedOver.poll())
        {
            endTwice(table, lease, ended);
        }

        assertThat(errors).isEmpty();
        assertThat(ended.get()).as("every granted lease ended once").isEqualTo(granted.get());
        for (final int model : models)
        {
            assertThat(counters.values().getLongVolatile(model)).isZero();
        }
        assertThat(table.liveCount()).isZero();
        assertThat(granted.get()).isPositive();
        System.out.println("LeaseTableHomeStressTest: " + granted.get() + " leases granted and ended once, " +
            table.fullCount() + " refused as full");
    }

    private static void endTwice(final LeaseTable table, final long lease, final AtomicLong ended)
    {
        if (!table.release(lease))
        {
            throw new AssertionError("the first end of a live lease did not count it out");
        }
        ended.incrementAndGet();
        if (table.release(lease))
        {
            throw new AssertionError("a second end counted out again");
        }
    }

    private static Thread start(final ConcurrentLinkedQueue<Throwable> errors, final CountDownLatch go, final Body body)
    {
        final Thread thread = new Thread(() ->
        {
            try
            {
                go.await();
                body.run();
            }
            catch (final Throwable ex)
            {
                errors.add(ex);
            }
        });
        thread.start();
        return thread;
    }

    /** A test thread's body. Not threadsafe: one thread runs it. */
    @FunctionalInterface
    private interface Body
    {
        void run() throws Exception;
    }
}
