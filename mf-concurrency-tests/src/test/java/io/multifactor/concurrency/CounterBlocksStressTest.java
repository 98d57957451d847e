package io.multifactor.concurrency;

import io.multifactor.kernel.metrics.CounterBuffers;
import io.multifactor.kernel.metrics.CounterTypes;
import io.multifactor.kernel.metrics.PerThreadCounterBlocks;
import io.multifactor.kernel.metrics.SingleWriterCounterBlock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Per-thread counter blocks on real threads: counting threads hammer their own blocks while an aggregator thread
 * folds them into the shared counters as fast as it can. While they run, no shared counter ever decreases or runs
 * ahead of the counts made so far; after a final aggregation every shared counter equals exactly what was counted.
 * 10,000 short-lived threads in waves reuse the blocks of the dead, so the number of blocks stays that of the threads
 * alive at once.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CounterBlocksStressTest
{
    private static final int COUNTERS = 24;

    private final CounterBuffers counters = CounterBuffers.inMemory(COUNTERS + 8);
    private final int[] ids = new int[COUNTERS];
    private final PerThreadCounterBlocks blocks = new PerThreadCounterBlocks(counters.values());

    CounterBlocksStressTest()
    {
        for (int i = 0; i < COUNTERS; i++)
        {
            ids[i] = counters.allocate("mf.selected{c" + i + "}", CounterTypes.SELECTED);
        }
    }

    @Test
    void shouldNeverLoseOrInventACountWhileTheAggregatorRacesTheWriters() throws Exception
    {
        final int threads = 4;
        final int perThread = 400_000;
        final AtomicLongArray begun = new AtomicLongArray(COUNTERS);
        final AtomicBoolean writing = new AtomicBoolean(true);
        final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        final CountDownLatch go = new CountDownLatch(1);
        final List<Thread> writers = new ArrayList<>();
        for (int t = 0; t < threads; t++)
        {
            final SplittableRandom random = new SplittableRandom(t);
            writers.add(start(errors, go, () ->
            {
                final SingleWriterCounterBlock block = blocks.forCurrentThread();
                for (int k = 0; k < perThread; k++)
                {
                    final int c = random.nextInt(COUNTERS);
                    // Announced before counted: the shared counter may never run ahead of the announcements.
                    begun.incrementAndGet(c);
                    block.increment(ids[c]);
                    if ((k & 0xFFFF) == 0)
                    {
                        // A block may grow under the aggregator's feet: a high id, announced and counted like the others.
                        begun.incrementAndGet(COUNTERS - 1);
                        block.increment(ids[COUNTERS - 1]);
                    }
                }
            }));
        }
        final long[] previous = new long[COUNTERS];
        final long[] aggregations = new long[1];
        final Thread aggregator = start(errors, go, () ->
        {
            while (writing.get())
            {
                blocks.aggregate();
                aggregations[0]++;
                for (int c = 0; c < COUNTERS; c++)
                {
                    final long shared = counters.value(ids[c]);
                    // Read after the shared value: announcements only grow, so this bound is never early.
                    final long announced = begun.get(c);
                    if (shared < previous[c] || shared > announced)
                    {
                        throw new AssertionError("counter " + c + ": " + shared + " after " + previous[c] +
                            ", " + announced + " counts begun");
                    }
                    previous[c] = shared;
                }
            }
        });
        go.countDown();
        for (final Thread writer : writers)
        {
            writer.join();
        }
        writing.set(false);
        aggregator.join();
        blocks.aggregate();

        assertThat(errors).isEmpty();
        long total = 0;
        for (int c = 0; c < COUNTERS; c++)
        {
            assertThat(counters.value(ids[c])).as("counter %d", c).isEqualTo(begun.get(c));
            total += counters.value(ids[c]);
        }
        assertThat(total).isGreaterThanOrEqualTo((long)threads * perThread);
        assertThat(aggregations[0]).as("the aggregator ran while the writers did").isGreaterThan(1);
        System.out.println("CounterBlocksStressTest: " + total + " counts by " + threads + " threads, " +
            aggregations[0] + " concurrent aggregations, totals exact");
    }

    @Test
    void shouldReuseTheBlocksOfTenThousandShortLivedThreads() throws Exception
    {
        final int waves = 1_250;
        final int perWave = 8;
        final long[] expected = new long[COUNTERS];
        final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        int maxBlocks = 0;
        for (int w = 0; w < waves; w++)
        {
            final List<Thread> wave = new ArrayList<>();
            for (int t = 0; t < perWave; t++)
            {
                final int c = (w * perWave + t) % COUNTERS;
                final int times = 1 + t;
                expected[c] += times;
                wave.add(start(errors, null, () ->
                {
                    final SingleWriterCounterBlock block = blocks.forCurrentThread();
                    for (int k = 0; k < times; k++)
                    {
                        block.increment(ids[c]);
                    }
                }));
            }
            for (final Thread thread : wave)
            {
                thread.join();
            }
            // Aggregate after every fourth wave only: between aggregations, new threads take over dead owners' blocks.
            if (w % 4 == 3)
            {
                blocks.aggregate();
            }
            maxBlocks = Math.max(maxBlocks, blocks.liveBlocks() + blocks.freeBlocks());
        }
        blocks.aggregate();

        assertThat(errors).isEmpty();
        for (int c = 0; c < COUNTERS; c++)
        {
            assertThat(counters.value(ids[c])).as("counter %d", c).isEqualTo(expected[c]);
        }
        assertThat(blocks.liveBlocks()).isZero();
        // Blocks are reused: at most a few waves' worth was ever allocated, not one per thread.
        assertThat(blocks.blocksCreated()).isLessThanOrEqualTo(4L * perWave);
        assertThat(maxBlocks).isLessThanOrEqualTo(4 * perWave);
        System.out.println("CounterBlocksStressTest: " + waves * perWave + " short-lived threads used " +
            blocks.blocksCreated() + " blocks (at most " + maxBlocks + " held at once), totals exact");
    }

    static Thread start(
        final ConcurrentLinkedQueue<Throwable> errors, final CountDownLatch goOrNull, final Body body)
    {
        final Thread thread = new Thread(() ->
        {
            try
            {
                if (goOrNull != null)
                {
                    goOrNull.await();
                }
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
    interface Body
    {
        void run() throws Exception;
    }
}
