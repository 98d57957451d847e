package io.multifactor.config.reliability;

import io.multifactor.api.InflightTracker;
import io.multifactor.api.Selection;
import io.multifactor.config.ConfigLoader;
import io.multifactor.config.LoadedConfig;
import io.multifactor.config.reload.ConfigReloader;
import io.multifactor.config.reload.ReloadResult;
import io.multifactor.kernel.engine.MultiFactorEngine;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The adversarial run of the issue at a size that fits the build: 2 selector threads (one selects then begins, one
 * calls selectAndBegin), 2 signal threads (samples, begin/end of any model, retired ones included), the refresh agent
 * on an {@link AgentRunner}, and a reloader cycling through two valid files and a bad one, for a few seconds
 * ({@code -Dmf.reliability.seconds=20} for the length). Invariants: no selection from a torn plan, no negative
 * in-flight count, every lease ends exactly once, and every count is back to 0 at the end (none lost).
 */
class ConcurrentRunTest
{
    private static final long RUN_NS = TimeUnit.SECONDS.toNanos(Long.getLong("mf.reliability.seconds", 4L));

    @TempDir
    Path dir;

    @Test
    void shouldKeepEveryInvariantUnderSelectorsSignalsRefreshAndReloads() throws Exception
    {
        final Path fileA = Files.writeString(dir.resolve("a.yaml"), ReliabilityFixture.A);
        final Path fileB = Files.writeString(dir.resolve("b.yaml"), ReliabilityFixture.B);
        final Path bad = Files.writeString(dir.resolve("bad.yaml"), ReliabilityFixture.BAD);
        final LoadedConfig loaded = ConfigLoader.load(fileA);
        final List<Throwable> failures = new CopyOnWriteArrayList<>();
        final ErrorHandler agentErrors = failures::add;
        try (MultiFactorEngine engine = MultiFactorEngine.builder(loaded.plans()).settings(loaded.signalSettings())
                .build();
            ConfigReloader reloader = new ConfigReloader(engine);
            AgentRunner refresh = new AgentRunner(new SleepingMillisIdleStrategy(1), agentErrors, null, engine.agent()))
        {
            final int a = engine.modelId("a");
            final int b = engine.modelId("b");
            final int c = engine.modelId("c");
            // The handle e will get: the next in the lineage, as the reload computes it.
            final int e = ConfigLoader.load(fileB, engine.plans()).plans().modelId("e");
            final int chat = engine.decisionId("chat");
            final int batch = engine.decisionId("batch");
            final int[] models = {a, b, c, e};
            AgentRunner.startOnThread(refresh);

            final AtomicBoolean running = new AtomicBoolean(true);
            final AtomicLong begun = new AtomicLong();
            final AtomicLong ended = new AtomicLong();
            final AtomicLong selections = new AtomicLong();
            final AtomicLong samples = new AtomicLong();
            final List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 2; t++)
            {
                final boolean reserve = t == 1;
                threads.add(new Thread(() -> guard(failures, () ->
                {
                    final Selection out = new Selection();
                    final long[] held = new long[16];
                    int next = 0;
                    long iteration = 0;
                    while (running.get())
                    {
                        final boolean onChat = (iteration++ & 3) != 0;
                        final long lease;
                        if (reserve)
                        {
                            lease = engine.selectAndBegin(onChat ? chat : batch, null, out);
                        }
                        else
                        {
                            engine.select(onChat ? chat : batch, null, out);
                            lease = out.hasSelection() ? engine.begin(out.selectedModel()) : InflightTracker.NO_LEASE;
                        }
                        final String torn = onChat ? ReliabilityFixture.tornChat(out, a, b, c, e) :
                            ReliabilityFixture.tornBatch(out, b, c);
                        if (torn != null)
                        {
                            throw new AssertionError(torn);
                        }
                        selections.incrementAndGet();
                        if (lease != InflightTracker.NO_LEASE)
                        {
                            begun.incrementAndGet();
                            if (held[next] != InflightTracker.NO_LEASE)
                            {
                                endOnce(engine, held[next], ended);
                            }
                            held[next] = lease;
                            next = (next + 1) & (held.length - 1);
                        }
                    }
                    for (final long lease : held)
                    {
                        if (lease != InflightTracker.NO_LEASE)
                        {
                            endOnce(engine, lease, ended);
                        }
                    }
                }), "selector-" + t));
            }
            for (int t = 0; t < 2; t++)
            {
                final long seed = t;
                threads.add(new Thread(() -> guard(failures, () ->
                {
                    final SplittableRandom random = new SplittableRandom(seed);
                    while (running.get())
                    {
                        final int model = models[random.nextInt(models.length)];
                        engine.recordTpotMs(model, 5.0 + random.nextDouble() * 300.0);
                        engine.recordTtftMicros(model, 1 + random.nextInt(2_000_000));
                        samples.addAndGet(2);
                        final long lease = engine.begin(model);
                        if (engine.inflight(model) < 0)
                        {
                            throw new AssertionError("negative in-flight count of model " + model);
                        }
                        if (lease != InflightTracker.NO_LEASE)
                        {
                            begun.incrementAndGet();
                            endOnce(engine, lease, ended);
                        }
                    }
                }), "signals-" + t));
            }
            threads.forEach(Thread::start);

            long applied = 0;
            long refused = 0;
            final Path[] cycle = {fileB, bad, fileA, bad};
            final long startNs = System.nanoTime();
            final long endNs = startNs + RUN_NS;
            final long capNs = startNs + TimeUnit.SECONDS.toNanos(120);
            // At least two rounds of the cycle, however starved the reloader is on a busy machine.
            for (int i = 0; (System.nanoTime() - endNs < 0 || i < 2 * cycle.length) && System.nanoTime() - capNs < 0 &&
                failures.isEmpty(); i++)
            {
                final ReloadResult result = reloader.reload(cycle[i % cycle.length]);
                if (result.applied())
                {
                    applied++;
                }
                else
                {
                    refused++;
                    assertThat(result.problems()).isNotEmpty();
                }
                LockSupport.parkNanos(200_000);
            }
            running.set(false);
            for (final Thread thread : threads)
            {
                thread.join(TimeUnit.SECONDS.toMillis(60));
                assertThat(thread.isAlive()).as(thread.getName() + " still running").isFalse();
            }
            assertThat(failures).isEmpty();

            // Back on a file with every model: nothing is in flight, so every count is 0, none lost.
            final Path all = Files.writeString(dir.resolve("all.yaml"), ReliabilityFixture.A.replace(
                "  - {name: c,", "  - {name: e, quality_score: 0.8}\n  - {name: c,"));
            assertThat(reloader.reload(all).applied()).isTrue();
            for (final int model : models)
            {
                assertThat(engine.inflight(model)).as("in flight of model " + model + " at the end").isZero();
            }
            assertThat(ended.get()).as("leases ended").isEqualTo(begun.get());
            System.out.printf(Locale.ROOT, "ConcurrentRunTest: %.1f s, %d selections, %d leases begun and ended " +
                "once each, %d samples, %d reloads applied and %d refused, 0 torn plans, 0 negative counts%n",
                (System.nanoTime() - startNs) / 1e9, selections.get(), begun.get(), samples.get(), applied, refused);
            assertThat(selections.get()).isPositive();
            assertThat(applied).isGreaterThanOrEqualTo(4);
            assertThat(refused).isGreaterThanOrEqualTo(4);
        }
    }

    private static void endOnce(final MultiFactorEngine engine, final long lease, final AtomicLong ended)
    {
        if (!engine.end(lease))
        {
            throw new AssertionError("a lease held by its thread did not end (the sweep must not reclaim it)");
        }
        if (engine.end(lease))
        {
            throw new AssertionError("a lease ended twice");
        }
        ended.incrementAndGet();
    }

    private static void guard(final List<Throwable> failures, final Runnable body)
    {
        try
        {
            body.run();
        }
        catch (final Throwable ex)
        {
            failures.add(ex);
        }
    }
}
