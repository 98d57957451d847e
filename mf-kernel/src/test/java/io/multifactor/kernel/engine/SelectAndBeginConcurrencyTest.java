package io.multifactor.kernel.engine;

import io.multifactor.api.InflightTracker;
import io.multifactor.api.Outcome;
import io.multifactor.api.Selection;
import io.multifactor.kernel.plan.NoCandidatesPolicy;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reserve property (docs/semantics.md) on real threads: with {@code on_no_candidates: fail}, 8 threads calling
 * {@code selectAndBegin} and {@code end} in a loop never see a model above {@code max_inflight} (checked at every
 * lease and by a watcher thread), and every lease ends.
 */
class SelectAndBeginConcurrencyTest
{
    private static final int THREADS = 8;
    private static final int ITERATIONS = 20_000;
    private static final long MAX_INFLIGHT = 5;

    private static Plans plans()
    {
        // "a" ranks first everywhere (quality only); "pair" overflows to "b", "single" has nowhere to go.
        return new PlansBuilder()
            .model("a", 0.9, 1.0)
            .model("b", 0.5, 1.0)
            .decision("pair").candidates("b", "a").weights(1.0, 0.0, 0.0, 0.0)
            .slo(0.0, 0.0, 0.0, MAX_INFLIGHT).policy(NoCandidatesPolicy.FAIL).add()
            .decision("single").candidates("a").weights(1.0, 0.0, 0.0, 0.0)
            .slo(0.0, 0.0, 0.0, MAX_INFLIGHT).policy(NoCandidatesPolicy.FAIL).add()
            .build();
    }

    @Test
    void shouldNeverLeaseAModelAboveMaxInflightAndEndEveryLease() throws Exception
    {
        try (MultiFactorEngine engine = MultiFactorEngine.builder(plans()).build())
        {
            final int[] models = { engine.modelId("a"), engine.modelId("b") };
            final int[] decisions = { engine.decisionId("pair"), engine.decisionId("single") };
            final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
            final AtomicLongArray leasesPerModel = new AtomicLongArray(2);
            final AtomicLongArray highestAtLease = new AtomicLongArray(2);
            final AtomicLong failed = new AtomicLong();
            final AtomicLong watched = new AtomicLong();
            final AtomicLong highestWatched = new AtomicLong();
            final AtomicBoolean running = new AtomicBoolean(true);
            final CountDownLatch go = new CountDownLatch(1);
            final List<Thread> workers = new ArrayList<>();

            final Thread watcher = new Thread(() ->
            {
                while (running.get())
                {
                    for (final int model : models)
                    {
                        final long count = engine.inflight(model);
                        highestWatched.accumulateAndGet(count, Math::max);
                        if (count > MAX_INFLIGHT || count < 0)
                        {
                            errors.add(new AssertionError("watcher saw " + count + " in flight on model " + model));
                        }
                    }
                    watched.incrementAndGet();
                }
            });
            watcher.start();

            for (int t = 0; t < THREADS; t++)
            {
                final int seed = t;
                final Thread worker = new Thread(() ->
                {
                    final Selection out = new Selection();
                    try
                    {
                        go.await();
                        for (int i = 0; i < ITERATIONS; i++)
                        {
                            final long lease = engine.selectAndBegin(decisions[(i + seed) & 1], null, out);
                            if (!out.hasSelection())
                            {
                                failed.incrementAndGet();
                                if (lease != InflightTracker.NO_LEASE || out.outcome() != Outcome.FAILED)
                                {
                                    throw new AssertionError("a failed selection leased " + lease);
                                }
                                continue;
                            }
                            final int slot = out.selectedModel() == models[0] ? 0 : 1;
                            final long count = engine.inflight(out.selectedModel());
                            highestAtLease.accumulateAndGet(slot, count, Math::max);
                            if (lease == InflightTracker.NO_LEASE || out.lease() != lease || count > MAX_INFLIGHT ||
                                count < 1)
                            {
                                throw new AssertionError("lease " + lease + " on model " + slot + " at count " + count);
                            }
                            leasesPerModel.incrementAndGet(slot);
                            // Hold the lease a little, so that threads pile up on the ceiling.
                            for (int spin = (i * 7 + seed) % 64; spin > 0; spin--)
                            {
                                Thread.onSpinWait();
                            }
                            if (!engine.end(lease))
                            {
                                throw new AssertionError("lease " + lease + " did not end");
                            }
                        }
                    }
                    catch (final Throwable ex)
                    {
                        errors.add(ex);
                    }
                });
                workers.add(worker);
                worker.start();
            }
            go.countDown();
            for (final Thread worker : workers)
            {
                worker.join();
            }
            running.set(false);
            watcher.join();

            assertThat(errors).isEmpty();
            assertThat(engine.inflight(models[0])).isZero();
            assertThat(engine.inflight(models[1])).isZero();
            assertThat(leasesPerModel.get(0) + leasesPerModel.get(1) + failed.get())
                .isEqualTo((long)THREADS * ITERATIONS);
            // The ceiling was reached: "single" failed and "pair" overflowed to "b" at least once.
            assertThat(failed.get()).isPositive();
            assertThat(leasesPerModel.get(1)).isPositive();
            assertThat(highestAtLease.get(0)).isEqualTo(MAX_INFLIGHT);
            assertThat(highestWatched.get()).isLessThanOrEqualTo(MAX_INFLIGHT);
            assertThat(watched.get()).isPositive();
        }
    }
}
