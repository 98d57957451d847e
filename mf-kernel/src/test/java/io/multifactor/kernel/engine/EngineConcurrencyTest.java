package io.multifactor.kernel.engine;

import io.multifactor.api.Factor;
import io.multifactor.api.InflightTracker;
import io.multifactor.api.LatencyRecorder;
import io.multifactor.api.Outcome;
import io.multifactor.api.Selection;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import org.agrona.concurrent.SystemNanoClock;
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

class EngineConcurrencyTest
{
    private static final int MODELS = 4;

    private static Plans plans()
    {
        final PlansBuilder builder = new PlansBuilder();
        for (int m = 0; m < MODELS; m++)
        {
            builder.model("m" + m, 0.1 * (m + 1), 1.0 + m);
        }
        return builder
            .decision("d").candidates("m0", "m1", "m2", "m3").slo(500.0, 2_000.0, 0.0, 1_000).add()
            .build();
    }

    private static Thread start(final List<Thread> threads, final ConcurrentLinkedQueue<Throwable> errors,
        final CountDownLatch go, final Runnable body)
    {
        final Thread thread = new Thread(() ->
        {
            try
            {
                go.await();
                body.run();
            }
            catch (final Throwable t)
            {
                errors.add(t);
            }
        });
        threads.add(thread);
        thread.start();
        return thread;
    }

    @Test
    void shouldCountEveryLeaseOutExactlyOnceUnderStress() throws Exception
    {
        final MultiFactorEngine engine = MultiFactorEngine.builder(plans())
            .clock(SystemNanoClock.INSTANCE)
            .settings(new SignalSettings(TimeUnit.MILLISECONDS.toNanos(50), TimeUnit.MILLISECONDS.toNanos(1),
                TimeUnit.MINUTES.toNanos(10)))
            .leaseCapacity(1 << 12)
            .build();
        final int[] models = new int[MODELS];
        for (int m = 0; m < MODELS; m++)
        {
            models[m] = engine.modelId("m" + m);
        }
        final int d = engine.decisionId("d");

        final int leaseThreads = 4;
        final int pairsPerThread = 300_000;
        final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        final CountDownLatch go = new CountDownLatch(1);
        final AtomicBoolean running = new AtomicBoolean(true);
        final AtomicLong begun = new AtomicLong();
        final AtomicLong ended = new AtomicLong();
        final AtomicLong secondEnds = new AtomicLong();
        final AtomicLong selections = new AtomicLong();
        final List<Thread> workers = new ArrayList<>();
        final List<Thread> background = new ArrayList<>();

        for (int t = 0; t < leaseThreads; t++)
        {
            final int seed = t;
            start(workers, errors, go, () ->
            {
                final SplittableRandom random = new SplittableRandom(seed);
                final long[] held = new long[8];
                long localBegun = 0;
                long localEnded = 0;
                for (int done = 0; done < pairsPerThread; done += held.length)
                {
                    for (int i = 0; i < held.length; i++)
                    {
                        held[i] = engine.begin(models[random.nextInt(MODELS)]);
                        if (held[i] != InflightTracker.NO_LEASE)
                        {
                            localBegun++;
                        }
                    }
                    for (int i = 0; i < held.length; i++)
                    {
                        if (engine.end(held[i]))
                        {
                            localEnded++;
                        }
                        if ((i & 3) == 0 && engine.end(held[i]))
                        {
                            secondEnds.incrementAndGet();
                        }
                    }
                }
                begun.addAndGet(localBegun);
                ended.addAndGet(localEnded);
            });
        }
        start(background, errors, go, () ->
        {
            final SplittableRandom random = new SplittableRandom(99);
            do
            {
                final int model = models[random.nextInt(MODELS)];
                engine.recordTpotMicros(model, 1 + random.nextInt(1_000_000));
                engine.recordTtftMicros(model, 1 + random.nextInt(3_000_000));
                engine.recordTtftMicros(model, -random.nextInt(5));
            }
            while (running.get());
        });
        start(background, errors, go, () ->
        {
            final Selection out = new Selection();
            long count = 0;
            do
            {
                engine.select(d, null, out);
                if (out.outcome() == Outcome.FAILED || out.candidateCount() != MODELS)
                {
                    throw new AssertionError("unexpected outcome " + out.outcome());
                }
                for (int i = 0; i < MODELS; i++)
                {
                    if (out.inflight(i) < 0)
                    {
                        throw new AssertionError("negative in-flight count " + out.inflight(i));
                    }
                }
                count++;
            }
            while (running.get());
            selections.set(count);
        });
        start(background, errors, go, () ->
        {
            while (running.get())
            {
                engine.refresh();
                Thread.yield();
            }
        });

        go.countDown();
        for (final Thread worker : workers)
        {
            worker.join(TimeUnit.SECONDS.toMillis(60));
        }
        running.set(false);
        for (final Thread thread : background)
        {
            thread.join(TimeUnit.SECONDS.toMillis(10));
        }
        // From here on the test thread alone refreshes: no late refresh can republish behind the checks below.
        for (final Thread thread : workers)
        {
            assertThat(thread.isAlive()).isFalse();
        }
        for (final Thread thread : background)
        {
            assertThat(thread.isAlive()).isFalse();
        }

        assertThat(errors).isEmpty();
        assertThat(begun.get()).isEqualTo((long)leaseThreads * pairsPerThread);
        assertThat(ended.get()).isEqualTo(begun.get());
        assertThat(secondEnds.get()).isZero();
        assertThat(selections.get()).isPositive();
        for (final int model : models)
        {
            assertThat(engine.inflight(model)).isZero();
        }
        assertThat(engine.leaseTableFullCount()).isZero();
        assertThat(engine.reclaimedLeaseCount()).isZero();
        assertThat(engine.refusedSampleCount()).isPositive();
        // The 50 ms window empties 40 to 50 ms after the recorder's last sample was drained, and joining and the checks
        // above can take that long on a loaded machine (EngineTest replays this on a cached clock): record one sample
        // now so that the refreshNow below, which drains it, publishes something whatever the pause was.
        assertThat(engine.recordTtftMicros(models[0], 1_000_000)).isEqualTo(LatencyRecorder.RECORDED);
        engine.refreshNow();
        final Selection out = new Selection();
        engine.select(d, null, out);
        assertThat(out.ttftMs(0)).isBetween(0.0, 3_030.0);
        engine.close();
    }

    @Test
    void shouldSelectFromOneWholePlanWhilePlansAreReplaced() throws Exception
    {
        // Two plans over the same models that differ in candidates, order, weights, percentile and decisions.
        final Plans a = new PlansBuilder()
            .model("m0", 0.9, 1.0).model("m1", 0.5, 2.0).model("m2", 0.3, 3.0).model("m3", 0.1, 4.0)
            .decision("d").candidates("m0", "m1").weights(1, 0, 0, 0).percentile(50).add()
            .decision("only-a").candidates("m2").add()
            .build();
        final Plans b = new PlansBuilder(a)
            .model("m0", 0.9, 1.0).model("m1", 0.5, 2.0).model("m2", 0.3, 3.0).model("m3", 0.1, 4.0)
            .decision("d").candidates("m3", "m2", "m1").weights(0, 1, 0, 0).percentile(99).add()
            .build();
        final MultiFactorEngine engine = MultiFactorEngine.builder(a).build();
        final int d = engine.decisionId("d");
        final int onlyA = engine.decisionId("only-a");
        for (int m = 0; m < 4; m++)
        {
            final int model = engine.modelId("m" + m);
            for (int v = 1; v <= 100; v++)
            {
                // Model m: TPOT samples (m + 1) * 1..100 ms; p50 and p99 differ per model.
                engine.recordTpotMs(model, (m + 1) * v);
            }
        }
        engine.refreshNow();

        final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        final CountDownLatch go = new CountDownLatch(1);
        final AtomicBoolean running = new AtomicBoolean(true);
        final AtomicLong seenA = new AtomicLong();
        final AtomicLong seenB = new AtomicLong();
        final AtomicLong swaps = new AtomicLong();
        final AtomicLong selectionCount = new AtomicLong();
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        final List<Thread> selectors = new ArrayList<>();
        final List<Thread> others = new ArrayList<>();
        for (int t = 0; t < 2; t++)
        {
            start(selectors, errors, go, () ->
            {
                final Selection out = new Selection();
                // Run until the swapper has swapped often and both plans were seen (bounded by a deadline).
                for (int i = 0; i < 200_000 || ((swaps.get() < 2_000 || seenA.get() == 0 || seenB.get() == 0) &&
                    System.nanoTime() < deadlineNs); i++)
                {
                    selectionCount.incrementAndGet();
                    engine.select(d, null, out);
                    if (matchesA(out))
                    {
                        seenA.incrementAndGet();
                    }
                    else if (matchesB(out))
                    {
                        seenB.incrementAndGet();
                    }
                    else
                    {
                        throw new AssertionError("selection matches neither plan: " + describe(out));
                    }
                    engine.select(onlyA, null, out);
                    final boolean wholeA = out.candidateCount() == 1 && out.outcome() == Outcome.SCORED;
                    final boolean wholeB = out.candidateCount() == 0 && out.outcome() == Outcome.FAILED;
                    if (!wholeA && !wholeB)
                    {
                        throw new AssertionError("only-a selection matches neither plan: " + describe(out));
                    }
                }
            });
        }
        start(others, errors, go, () ->
        {
            boolean toB = true;
            while (running.get())
            {
                engine.replacePlans(toB ? b : a);
                swaps.incrementAndGet();
                toB = !toB;
            }
        });
        start(others, errors, go, () ->
        {
            while (running.get())
            {
                engine.refreshNow();
            }
        });
        go.countDown();
        for (final Thread selector : selectors)
        {
            selector.join(TimeUnit.SECONDS.toMillis(60));
        }
        running.set(false);
        for (final Thread thread : others)
        {
            thread.join(TimeUnit.SECONDS.toMillis(10));
        }
        assertThat(errors).isEmpty();
        assertThat(seenA.get() + seenB.get()).isEqualTo(selectionCount.get());
        assertThat(swaps.get()).isGreaterThanOrEqualTo(2_000);
        assertThat(seenA.get()).isPositive();
        assertThat(seenB.get()).isPositive();
        engine.close();
    }

    @Test
    void shouldBalanceLeasesOfModelsRetiredAndRestoredWhileInFlight() throws Exception
    {
        final Plans all = plans();
        final Plans withoutM3 = new PlansBuilder(all)
            .model("m0", 0.1, 1.0).model("m1", 0.2, 2.0).model("m2", 0.3, 3.0)
            .decision("d").candidates("m0", "m1", "m2").add()
            .build();
        final MultiFactorEngine engine = MultiFactorEngine.builder(all).leaseCapacity(1 << 10).build();
        final int[] models = new int[MODELS];
        for (int m = 0; m < MODELS; m++)
        {
            models[m] = engine.modelId("m" + m);
        }
        final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        final CountDownLatch go = new CountDownLatch(1);
        final AtomicBoolean running = new AtomicBoolean(true);
        final AtomicLong begun = new AtomicLong();
        final AtomicLong ended = new AtomicLong();
        final AtomicLong refused = new AtomicLong();
        final List<Thread> workers = new ArrayList<>();
        final List<Thread> swapper = new ArrayList<>();
        for (int t = 0; t < 2; t++)
        {
            final int seed = t;
            start(workers, errors, go, () ->
            {
                final SplittableRandom random = new SplittableRandom(seed);
                final long[] held = new long[4];
                for (int round = 0; round < 50_000; round++)
                {
                    for (int i = 0; i < held.length; i++)
                    {
                        // Model m3 is retired half of the time: begin then gives NO_LEASE.
                        held[i] = engine.begin(models[random.nextInt(MODELS)]);
                        if (held[i] == InflightTracker.NO_LEASE)
                        {
                            refused.incrementAndGet();
                        }
                        else
                        {
                            begun.incrementAndGet();
                        }
                    }
                    for (final long lease : held)
                    {
                        if (engine.end(lease))
                        {
                            ended.incrementAndGet();
                        }
                    }
                }
            });
        }
        start(swapper, errors, go, () ->
        {
            boolean retire = true;
            do
            {
                engine.replacePlans(retire ? withoutM3 : all);
                retire = !retire;
            }
            while (running.get());
            engine.replacePlans(all);
        });
        go.countDown();
        for (final Thread worker : workers)
        {
            worker.join(TimeUnit.SECONDS.toMillis(60));
        }
        running.set(false);
        swapper.get(0).join(TimeUnit.SECONDS.toMillis(10));

        assertThat(errors).isEmpty();
        assertThat(ended.get()).isEqualTo(begun.get());
        assertThat(begun.get() + refused.get()).isEqualTo(2L * 50_000 * 4);
        for (final int model : models)
        {
            assertThat(engine.inflight(model)).isZero();
        }
        final List<Long> values = new ArrayList<>();
        engine.countersReader().forEach((value, counterId, label) ->
        {
            if (label.startsWith("mf.inflight{"))
            {
                values.add(value);
            }
        });
        assertThat(values).hasSize(MODELS).containsOnly(0L);
        engine.close();
    }

    private static boolean near(final double actual, final double expected)
    {
        return actual >= expected && actual <= expected * 1.01;
    }

    private static boolean matchesA(final Selection out)
    {
        return out.candidateCount() == 2 &&
            out.modelId(0) == 0 && out.modelId(1) == 1 &&
            out.weight(Factor.QUALITY) == 1.0 && out.weight(Factor.LATENCY) == 0.0 &&
            near(out.tpotMs(0), 50.0) && near(out.tpotMs(1), 100.0) &&
            out.selectedModel() == 0;
    }

    private static boolean matchesB(final Selection out)
    {
        return out.candidateCount() == 3 &&
            out.modelId(0) == 3 && out.modelId(1) == 2 && out.modelId(2) == 1 &&
            out.weight(Factor.QUALITY) == 0.0 && out.weight(Factor.LATENCY) == 1.0 &&
            near(out.tpotMs(0), 4 * 99.0) && near(out.tpotMs(1), 3 * 99.0) && near(out.tpotMs(2), 2 * 99.0) &&
            out.selectedModel() == 1;
    }

    private static String describe(final Selection out)
    {
        final StringBuilder text = new StringBuilder("candidates=").append(out.candidateCount());
        for (int i = 0; i < out.candidateCount(); i++)
        {
            text.append(" [model=").append(out.modelId(i)).append(" tpot=").append(out.tpotMs(i)).append(']');
        }
        return text.append(" weights=").append(out.weight(Factor.QUALITY)).append('/')
            .append(out.weight(Factor.LATENCY)).append(" selected=").append(out.selectedModel()).toString();
    }
}
