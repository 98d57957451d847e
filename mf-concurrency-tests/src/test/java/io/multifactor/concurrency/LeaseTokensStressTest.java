package io.multifactor.concurrency;

import io.multifactor.api.InflightTracker;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.engine.SignalSettings;
import io.multifactor.kernel.latency.LatencyEstimatorType;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
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
 * Token weights on real threads: request threads begin leases of random weights (and some without a weight, which
 * weigh {@code default_request_tokens}), end most at once, hold some past the max age and never end others (lost
 * ends), while the refresh agent sweeps on its own thread. The in-flight tokens are never negative nor above what the
 * open leases can weigh, and once every thread is done and the sweeper has reclaimed the lost leases they are exactly
 * 0 on every model, whatever the interleaving of begin, end and sweep.
 */
class LeaseTokensStressTest
{
    private static final int THREADS = 4;
    private static final long RUN_NS = TimeUnit.MILLISECONDS.toNanos(1_000);
    private static final long MAX_AGE_NS = TimeUnit.MILLISECONDS.toNanos(20);
    private static final long DEFAULT_TOKENS = 777;
    private static final long MAX_WEIGHT = 10_000;
    private static final int LOST_PER_THREAD = 8;

    @Test
    @Timeout(60)
    void shouldReturnEveryModelsTokensToZeroAfterBeginsEndsAndSweeps() throws Exception
    {
        final Plans plans = new PlansBuilder()
            .model("a", 0.5, 1.0).model("b", 0.5, 1.0)
            .decision("d").candidates("a", "b").add()
            .build();
        final SignalSettings settings = new SignalSettings(TimeUnit.SECONDS.toNanos(60),
            TimeUnit.MILLISECONDS.toNanos(10), MAX_AGE_NS, LatencyEstimatorType.WINDOW,
            SignalSettings.DEFAULT_EWMA_DECAY_NS, DEFAULT_TOKENS);
        try (MultiFactorEngine engine = MultiFactorEngine.builder(plans).settings(settings).leaseCapacity(256).build())
        {
            final int[] models = { engine.modelId("a"), engine.modelId("b") };
            final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
            final AtomicLong begun = new AtomicLong();
            final AtomicBoolean running = new AtomicBoolean(true);
            final CountDownLatch go = new CountDownLatch(1);
            final List<Thread> threads = new ArrayList<>();

            final Thread sweeper = thread(errors, go, () ->
            {
                while (running.get())
                {
                    engine.refresh();
                    for (final int model : models)
                    {
                        final long tokens = engine.inflightTokens(model);
                        // Open leases: one per thread at a time plus the lost ones, each weighing at most MAX_WEIGHT.
                        if (tokens < 0 || tokens > (long)THREADS * (LOST_PER_THREAD + 1) * MAX_WEIGHT)
                        {
                            throw new AssertionError("tokens in flight on model " + model + ": " + tokens);
                        }
                    }
                    Thread.onSpinWait();
                }
            });
            for (int t = 0; t < THREADS; t++)
            {
                final SplittableRandom random = new SplittableRandom(t);
                threads.add(thread(errors, go, () ->
                {
                    final long endNs = System.nanoTime() + RUN_NS;
                    int lost = 0;
                    while (System.nanoTime() < endNs)
                    {
                        final int model = models[random.nextInt(2)];
                        final long lease = random.nextInt(4) == 0 ? engine.begin(model) :
                            engine.begin(model, random.nextLong(MAX_WEIGHT + 1));
                        if (lease == InflightTracker.NO_LEASE)
                        {
                            throw new AssertionError("lease table full");
                        }
                        begun.incrementAndGet();
                        if (lost < LOST_PER_THREAD && random.nextInt(64) == 0)
                        {
                            lost++;
                            continue;
                        }
                        if (random.nextInt(8) == 0)
                        {
                            TimeUnit.MICROSECONDS.sleep(MAX_AGE_NS / 1_000 + random.nextInt(25_000) - 5_000);
                        }
                        engine.end(lease);
                        if (engine.end(lease))
                        {
                            throw new AssertionError("a second end counted out again");
                        }
                    }
                }));
            }
            go.countDown();
            for (final Thread thread : threads)
            {
                thread.join();
            }
            // The lost leases are reclaimed by the sweep within a few max ages: poll with a deadline.
            final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while ((engine.inflightTokens(models[0]) != 0 || engine.inflightTokens(models[1]) != 0) &&
                System.nanoTime() < deadlineNs)
            {
                TimeUnit.MILLISECONDS.sleep(5);
            }
            running.set(false);
            sweeper.join();

            assertThat(errors).isEmpty();
            assertThat(begun.get()).isPositive();
            assertThat(engine.reclaimedLeaseCount()).as("lost and late leases reclaimed by the sweep").isPositive();
            assertThat(engine.inflightTokens(models[0])).isZero();
            assertThat(engine.inflightTokens(models[1])).isZero();
            assertThat(engine.inflight(models[0])).isZero();
            assertThat(engine.inflight(models[1])).isZero();
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
