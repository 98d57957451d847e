package io.multifactor.concurrency;

import io.multifactor.api.InflightTracker;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.engine.SignalSettings;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import org.junit.jupiter.api.Test;

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
 * The sweeper racing real ends: an engine whose leases are reclaimed after 20 ms, its refresh agent sweeping on its own
 * thread every 10 ms, and request threads that end most leases at once and hold some past the max age, so that the
 * sweep and the end of the same lease meet. Counts are never negative nor above the leases that can be open, every
 * lease is counted out exactly once (by its end or by the sweep), and everything returns to 0.
 */
class LeaseSweepStressTest
{
    private static final int THREADS = 4;
    private static final long RUN_NS = TimeUnit.MILLISECONDS.toNanos(1_500);
    private static final long MAX_AGE_NS = TimeUnit.MILLISECONDS.toNanos(20);

    @Test
    void shouldCountEveryLeaseOutExactlyOnceWhileTheSweeperRacesTheEnds() throws Exception
    {
        final Plans plans = new PlansBuilder()
            .model("a", 0.5, 1.0).model("b", 0.5, 1.0)
            .decision("d").candidates("a", "b").add()
            .build();
        final SignalSettings settings = new SignalSettings(
            TimeUnit.SECONDS.toNanos(60), TimeUnit.MILLISECONDS.toNanos(10), MAX_AGE_NS);
        try (MultiFactorEngine engine = MultiFactorEngine.builder(plans).settings(settings).leaseCapacity(64).build())
        {
            final int[] models = { engine.modelId("a"), engine.modelId("b") };
            final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
            final AtomicLong begun = new AtomicLong();
            final AtomicLong ended = new AtomicLong();
            final AtomicLong endedAfterSweep = new AtomicLong();
            final AtomicBoolean running = new AtomicBoolean(true);
            final CountDownLatch go = new CountDownLatch(1);
            final List<Thread> threads = new ArrayList<>();

            threads.add(thread(errors, go, () ->
            {
                while (running.get())
                {
                    engine.refresh();
                    for (final int model : models)
                    {
                        final long count = engine.inflight(model);
                        // Each request thread holds at most one lease; an end under way may count it a moment longer.
                        if (count < 0 || count > THREADS)
                        {
                            throw new AssertionError("in flight on model " + model + ": " + count);
                        }
                    }
                    Thread.onSpinWait();
                }
            }));
            for (int t = 0; t < THREADS; t++)
            {
                final SplittableRandom random = new SplittableRandom(t);
                threads.add(thread(errors, go, () ->
                {
                    final long endNs = System.nanoTime() + RUN_NS;
                    while (System.nanoTime() < endNs)
                    {
                        final long lease = engine.begin(models[random.nextInt(2)]);
                        if (lease == InflightTracker.NO_LEASE)
                        {
                            throw new AssertionError("lease table full");
                        }
                        begun.incrementAndGet();
                        if (random.nextInt(8) == 0)
                        {
                            // Past the max age, more or less: the sweep may take it first, or the end may.
                            TimeUnit.MICROSECONDS.sleep(MAX_AGE_NS / 1_000 + random.nextInt(25_000) - 5_000);
                        }
                        if (engine.end(lease))
                        {
                            ended.incrementAndGet();
                        }
                        else
                        {
                            endedAfterSweep.incrementAndGet();
                        }
                        if (engine.end(lease))
                        {
                            throw new AssertionError("a second end counted out again");
                        }
                    }
                }));
            }
            go.countDown();
            for (int i = 1; i < threads.size(); i++)
            {
                threads.get(i).join();
            }
            running.set(false);
            threads.get(0).join();

            assertThat(errors).isEmpty();
            assertThat(engine.inflight(models[0])).isZero();
            assertThat(engine.inflight(models[1])).isZero();
            assertThat(ended.get() + engine.reclaimedLeaseCount()).as("every lease counted out once").isEqualTo(begun.get());
            assertThat(endedAfterSweep.get()).as("ends that found their lease reclaimed")
                .isEqualTo(engine.reclaimedLeaseCount()).isPositive();
            assertThat(ended.get()).isPositive();
        }
    }

    private static Thread thread(
        final ConcurrentLinkedQueue<Throwable> errors, final CountDownLatch go, final ThrowingRunnable body)
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
    private interface ThrowingRunnable
    {
        void run() throws Exception;
    }
}
