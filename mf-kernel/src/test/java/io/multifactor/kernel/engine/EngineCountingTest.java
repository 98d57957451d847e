package io.multifactor.kernel.engine;

import io.multifactor.api.Exclusions;
import io.multifactor.api.Outcome;
import io.multifactor.api.Selection;
import io.multifactor.kernel.metrics.CounterBuffers;
import io.multifactor.kernel.metrics.CounterLabel;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Selections are counted per thread and published by the refresh cycle: not before it, all of them after it, and
 * threads that come and go reuse each other's blocks.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EngineCountingTest
{
    private static final long REFRESH_NS = TimeUnit.SECONDS.toNanos(1);

    @TempDir
    Path dir;

    private static Plans plans()
    {
        return new PlansBuilder()
            .model("fast", 0.5, 1.0)
            .model("smart", 0.9, 2.0)
            .decision("d").candidates("smart", "fast").weights(1.0, 0.0, 0.0, 0.0).add()
            .build();
    }

    private static String scored(final String model)
    {
        return MultiFactorEngine.selectedLabel("d", model, Outcome.SCORED);
    }

    private static String excludedDrops(final String model)
    {
        return CounterLabel.format("mf.drops", "model", model, "reason", "excluded");
    }

    @Test
    void shouldPublishCountsOnTheNextRefreshCycleAndNotBefore()
    {
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(REFRESH_NS * 1_000);
        final SignalSettings settings = new SignalSettings(TimeUnit.SECONDS.toNanos(60), REFRESH_NS, TimeUnit.MINUTES.toNanos(10));
        try (MultiFactorEngine engine = MultiFactorEngine.builder(plans()).clock(clock).settings(settings).build())
        {
            final int d = engine.decisionId("d");
            final Selection out = new Selection();
            engine.select(d, null, out);
            engine.select(d, new Exclusions().add(engine.modelId("smart")), out);
            assertThat(EngineMetricsTest.live(engine.countersReader())).containsEntry(scored("smart"), 0L);

            clock.advance(REFRESH_NS / 2);
            assertThat(engine.refresh()).as("no cycle due yet").isZero();
            assertThat(EngineMetricsTest.live(engine.countersReader())).containsEntry(scored("smart"), 0L);

            clock.advance(REFRESH_NS / 2);
            assertThat(engine.refresh()).isPositive();
            assertThat(EngineMetricsTest.live(engine.countersReader()))
                .containsEntry(scored("smart"), 1L)
                .containsEntry(scored("fast"), 1L)
                .containsEntry(excludedDrops("smart"), 1L)
                .containsEntry(excludedDrops("fast"), 0L);
        }
    }

    @Test
    void shouldFoldTheLastCountsIntoTheCountersFileWhenClosed()
    {
        final Path file = dir.resolve("closing.counters");
        final MultiFactorEngine engine = MultiFactorEngine.builder(plans()).countersFile(file).build();
        engine.select(engine.decisionId("d"), null, new Selection());
        engine.close();
        assertThat(EngineMetricsTest.live(CounterBuffers.openReader(file))).containsEntry(scored("smart"), 1L);
    }

    @Test
    void shouldCountExactlyWhenASelectionLastUsedByOneThreadIsUsedByAnotherWhileTheFirstKeepsCounting()
        throws Exception
    {
        try (MultiFactorEngine engine = MultiFactorEngine.builder(plans()).build())
        {
            final int d = engine.decisionId("d");
            final int selections = 200_000;
            final Selection handedOver = new Selection();
            final Selection own = new Selection();
            final java.util.concurrent.CountDownLatch handed = new java.util.concurrent.CountDownLatch(1);
            final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
            // The first thread selects once with the selection it then hands over (which keeps that thread's block),
            // and goes on counting with its own: were the second thread to count into the block kept in the handed-over
            // selection (the first's, still live), the two would lose counts to each other.
            final Thread first = new Thread(() ->
            {
                try
                {
                    engine.select(d, null, handedOver);
                    handed.countDown();
                    for (int i = 0; i < selections; i++)
                    {
                        engine.select(d, null, own);
                    }
                }
                catch (final Throwable ex)
                {
                    errors.add(ex);
                }
            });
            final Thread second = new Thread(() ->
            {
                try
                {
                    handed.await();
                    for (int i = 0; i < selections; i++)
                    {
                        engine.select(d, null, handedOver);
                    }
                }
                catch (final Throwable ex)
                {
                    errors.add(ex);
                }
            });
            first.start();
            second.start();
            first.join();
            second.join();
            engine.refreshNow();

            assertThat(errors).isEmpty();
            assertThat(EngineMetricsTest.live(engine.countersReader()))
                .containsEntry(scored("smart"), 2L * selections + 1);
            assertThat(engine.counterBlocks().blocksCreated()).as("one block per selecting thread").isEqualTo(2L);
        }
    }

    @Test
    void shouldCountEverySelectionOfTenThousandShortLivedThreadsInAFewBlocks() throws Exception
    {
        try (MultiFactorEngine engine = MultiFactorEngine.builder(plans()).build())
        {
            final int d = engine.decisionId("d");
            final int waves = 2_500;
            final int perWave = 4;
            final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
            for (int w = 0; w < waves; w++)
            {
                final List<Thread> wave = new ArrayList<>();
                for (int t = 0; t < perWave; t++)
                {
                    final Thread thread = new Thread(() ->
                    {
                        try
                        {
                            final Selection out = new Selection();
                            engine.select(d, null, out);
                            engine.select(d, null, out);
                        }
                        catch (final Throwable ex)
                        {
                            errors.add(ex);
                        }
                    });
                    thread.start();
                    wave.add(thread);
                }
                for (final Thread thread : wave)
                {
                    thread.join();
                }
                if (w % 16 == 15)
                {
                    engine.refreshNow();
                }
            }
            engine.refreshNow();

            assertThat(errors).isEmpty();
            final Map<String, Long> live = EngineMetricsTest.live(engine.countersReader());
            assertThat(live).containsEntry(scored("smart"), 2L * waves * perWave);
            final long blocks = engine.counterBlocks().blocksCreated();
            assertThat(blocks).as("blocks of the dead are reused").isLessThanOrEqualTo(4L * perWave);
            assertThat(engine.counterBlocks().liveBlocks()).isZero();
            System.out.println("EngineCountingTest: " + waves * perWave + " short-lived threads, " +
                live.get(scored("smart")) + " selections counted exactly in " + blocks + " counter blocks");
        }
    }
}
