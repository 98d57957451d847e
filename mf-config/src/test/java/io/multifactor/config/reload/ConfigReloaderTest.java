package io.multifactor.config.reload;

import io.multifactor.api.Handles;
import io.multifactor.api.Outcome;
import io.multifactor.api.Selection;
import io.multifactor.config.ConfigLoader;
import io.multifactor.config.LoadedConfig;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.plan.Plans;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class ConfigReloaderTest
{
    private static final String A = """
        models:
          - {name: a, quality_score: 0.9}
          - {name: b, quality_score: 0.5}
        decisions:
          - name: d
            modelRefs: [{model: a}, {model: b}]
        """;

    private static final String B = """
        models:
          - {name: c, quality_score: 0.1}
          - {name: a, quality_score: 0.2}
        decisions:
          - name: d
            modelRefs: [{model: c}, {model: a}]
          - name: e
            modelRefs: [{model: a}]
        """;

    private static final String BAD = """
        models:
          - {name: a, quality_score: -1}
        decisions:
          - name: d
            modelRefs: [{model: zz}]
        """;

    @TempDir
    Path dir;

    private Path file;
    private MultiFactorEngine engine;
    private ConfigReloader reloader;

    @BeforeEach
    void setUp() throws Exception
    {
        file = Files.writeString(dir.resolve("router.yaml"), A);
        final LoadedConfig loaded = ConfigLoader.load(file);
        engine = MultiFactorEngine.builder(loaded.plans()).clock(new CachedNanoClock())
            .settings(loaded.signalSettings()).build();
        reloader = new ConfigReloader(engine);
    }

    @AfterEach
    void tearDown()
    {
        reloader.close();
        engine.close();
    }

    @Test
    void shouldSwapPlansAndKeepTheSignalsOfModelsThatKeepTheirNames() throws IOException
    {
        final int a = engine.modelId("a");
        engine.begin(a);
        engine.begin(a);
        engine.recordTpotMs(a, 40.0);
        engine.refreshNow();

        Files.writeString(file, B);
        final ReloadResult result = reloader.reload(file);

        assertThat(result.applied()).isTrue();
        assertThat(result.problems()).isEmpty();
        assertThat(engine.modelId("a")).isEqualTo(a);
        assertThat(engine.modelId("b")).isEqualTo(Handles.NONE);
        assertThat(engine.modelId("c")).isNotEqualTo(Handles.NONE);
        assertThat(engine.inflight(a)).isEqualTo(2L);
        final Selection selection = new Selection();
        engine.select(engine.decisionId("e"), null, selection);
        assertThat(selection.outcome()).isEqualTo(Outcome.SCORED);
        assertThat(selection.tpotMs(0)).isCloseTo(40.0, org.assertj.core.data.Percentage.withPercentage(1));
        assertThat(selection.quality(0)).isEqualTo(0.2);
        assertThat(selection.inflight(0)).isEqualTo(2L);
    }

    @Test
    void aReloadShouldHandTheEngineTheServersToScrapeKeepingTheSignalsOfThoseThatStay() throws IOException
    {
        final String servers = String.join("\n",
            "models:",
            "  - {name: a, quality_score: 0.9, server: vllm, backend_refs: [{endpoint: '10.0.0.1:8000'}, " +
                "{endpoint: '10.0.0.2:8000'}]}",
            "  - {name: b, quality_score: 0.5}",
            "decisions:",
            "  - name: d",
            "    modelRefs: [{model: a}, {model: b}]",
            "    algorithm: {type: multi_factor, multi_factor: {weights: {queue: 1.0}, slo: {max_queue: 8}}}",
            "signals:",
            "  server_metrics: {every: 500ms, stale_after: 1h}",
            "");
        Files.writeString(file, servers);
        assertThat(reloader.reload(file).applied()).isTrue();
        assertThat(engine.serverSignals().backends()).hasSize(2);
        final int a = engine.modelId("a");
        assertThat(engine.reportServerLoad(a, "http://10.0.0.1:8000", 12, Double.NaN, 0.5)).isTrue();
        engine.refreshNow();
        final Selection selection = new Selection();
        engine.select(engine.decisionId("d"), null, selection);
        assertThat(selection.dropReason(0)).isEqualTo(io.multifactor.api.DropReason.QUEUE);

        // 10.0.0.2 leaves; 10.0.0.1 stays with its answer.
        Files.writeString(file, servers.replace(", {endpoint: '10.0.0.2:8000'}", ""));
        assertThat(reloader.reload(file).applied()).isTrue();
        assertThat(engine.serverSignals().backends()).hasSize(1);
        engine.select(engine.decisionId("d"), null, selection);
        assertThat(selection.queue(0)).isEqualTo(12.0);
        assertThat(selection.dropReason(0)).isEqualTo(io.multifactor.api.DropReason.QUEUE);

        // Without signals.server_metrics nothing is scraped any more.
        Files.writeString(file, A);
        assertThat(reloader.reload(file).applied()).isTrue();
        assertThat(engine.serverSignals().settings()).isNull();
        assertThat(engine.serverSignals().backends()).isEmpty();
    }

    @Test
    void shouldKeepTheRunningPlansAndReportEveryProblemOfABadFile() throws IOException
    {
        final Plans running = engine.plans();
        Files.writeString(file, BAD);

        final ReloadResult result = reloader.reload(file);

        assertThat(result.applied()).isFalse();
        assertThat(result.problems()).extracting(Object::toString).containsExactly(
            file + ":2:30: models[0].quality_score: must be >= 0, got -1",
            file + ":5:25: decisions[0].modelRefs[0].model: unknown model \"zz\" (the configuration's models: a)");
        assertThat(engine.plans()).isSameAs(running);
        assertThat(engine.reloadsRefused()).isEqualTo(1);
        assertThat(engine.reloadsApplied()).isZero();
    }

    @Test
    void shouldWarnThatChangedSignalSettingsWaitForARestart() throws IOException
    {
        Files.writeString(file, A + "signals: {latency_window: 30s}\n");

        final ReloadResult result = reloader.reload(file);

        assertThat(result.applied()).isTrue();
        assertThat(result.warnings()).singleElement().satisfies(w ->
            assertThat(w.message()).contains("take effect on restart"));
    }

    @Test
    void shouldReloadUnderConcurrentSelectionsWithoutErrorsAndABadFileChangesNothing() throws Exception
    {
        final Path fileA = Files.writeString(dir.resolve("a.yaml"), A);
        final Path fileB = Files.writeString(dir.resolve("b.yaml"), B);
        final Path bad = Files.writeString(dir.resolve("bad.yaml"), BAD);
        final AtomicBoolean running = new AtomicBoolean(true);
        final List<Throwable> failures = new CopyOnWriteArrayList<>();
        final AtomicLong selections = new AtomicLong();
        final List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 2; t++)
        {
            final Thread thread = new Thread(() ->
            {
                final Selection selection = new Selection();
                try
                {
                    while (running.get())
                    {
                        final int decision = engine.decisionId("d");
                        engine.select(decision, null, selection);
                        final long lease = engine.begin(selection.selectedModel());
                        // Both files give d two candidates and no ceiling: always scored, on one whole plan.
                        if (selection.outcome() != Outcome.SCORED || selection.candidateCount() != 2 ||
                            selection.selectedModel() < 0 ||
                            selection.modelId(selection.selectedIndex()) != selection.selectedModel())
                        {
                            throw new AssertionError("outcome " + selection.outcome() + " model " +
                                selection.selectedModel());
                        }
                        engine.recordTpotMs(selection.selectedModel(), 10.0);
                        engine.end(lease);
                        selections.incrementAndGet();
                    }
                }
                catch (final Throwable ex)
                {
                    failures.add(ex);
                }
            });
            threads.add(thread);
            thread.start();
        }
        try
        {
            for (int i = 0; i < 50; i++)
            {
                final ReloadResult good = reloader.reload(i % 2 == 0 ? fileB : fileA);
                assertThat(good.applied()).isTrue();
                final Plans before = engine.plans();
                final ReloadResult refused = reloader.reload(bad);
                assertThat(refused.applied()).isFalse();
                assertThat(engine.plans()).isSameAs(before);
                engine.refreshNow();
            }
        }
        finally
        {
            running.set(false);
            for (final Thread thread : threads)
            {
                thread.join(10_000);
            }
        }
        assertThat(failures).isEmpty();
        assertThat(selections.get()).isPositive();
        for (final String name : List.of("a", "b"))
        {
            assertThat(engine.inflight(engine.modelId(name))).as("in flight of " + name).isZero();
        }
    }

    @Test
    void shouldReloadWhenTheWatchedFileChanges() throws Exception
    {
        final LinkedBlockingQueue<ReloadResult> results = new LinkedBlockingQueue<>();
        reloader.watch(file, results::add);

        Files.writeString(file, B);
        assertThat(awaitResult(results, true)).isTrue();
        assertThat(engine.modelId("c")).isNotEqualTo(Handles.NONE);

        final Plans running = engine.plans();
        Files.writeString(file, BAD);
        assertThat(awaitResult(results, false)).isTrue();
        assertThat(engine.plans()).isSameAs(running);
    }

    @Test
    void shouldKeepReloadingThroughAConfigMapVolumeAfterTheListenerThrows() throws Exception
    {
        final Path mount = Files.createDirectory(dir.resolve("mount"));
        final Path v1 = Files.createDirectory(mount.resolve("..2026_11_30_09_00_00.1"));
        Files.writeString(v1.resolve("router.yaml"), A);
        Files.createSymbolicLink(mount.resolve("..data"), v1.getFileName());
        final Path linked = Files.createSymbolicLink(mount.resolve("router.yaml"), Path.of("..data/router.yaml"));
        final LinkedBlockingQueue<ReloadResult> results = new LinkedBlockingQueue<>();
        final AtomicLong calls = new AtomicLong();
        // The simulated failure is logged once: captured and asserted on, not printed on the build's console.
        try (CapturedLog log = CapturedLog.of(ConfigReloader.class.getPackageName()))
        {
            watchThroughAConfigMapVolume(mount, linked, results, calls);
            assertThat(log.records()).hasSize(1);
            assertThat(log.records().get(0).getThrown()).isInstanceOf(OutOfMemoryError.class)
                .hasMessage("simulated: the listener's own failure");
        }
    }

    private void watchThroughAConfigMapVolume(
        final Path mount, final Path linked, final LinkedBlockingQueue<ReloadResult> results, final AtomicLong calls)
        throws Exception
    {
        reloader.watch(linked, result ->
        {
            results.add(result);
            if (calls.incrementAndGet() == 1)
            {
                throw new OutOfMemoryError("simulated: the listener's own failure");
            }
        }, 20);

        final Path v2 = Files.createDirectory(mount.resolve("..2026_11_30_09_05_00.2"));
        Files.writeString(v2.resolve("router.yaml"), B);
        java.nio.file.Files.move(Files.createSymbolicLink(mount.resolve("..data_tmp"), v2.getFileName()),
            mount.resolve("..data"), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        assertThat(awaitResult(results, true)).isTrue();
        assertThat(engine.decisionId("e")).isNotEqualTo(Handles.NONE);

        final Path v3 = Files.createDirectory(mount.resolve("..2026_11_30_09_10_00.3"));
        Files.writeString(v3.resolve("router.yaml"), A);
        java.nio.file.Files.move(Files.createSymbolicLink(mount.resolve("..data_tmp"), v3.getFileName()),
            mount.resolve("..data"), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        assertThat(awaitResult(results, true)).isTrue();
        assertThat(engine.decisionId("e")).isEqualTo(Handles.NONE);
        assertThat(reloader.watchFailureCount()).isEqualTo(1L);
    }

    private static boolean awaitResult(final LinkedBlockingQueue<ReloadResult> results, final boolean applied)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline)
        {
            final ReloadResult result = results.poll(100, TimeUnit.MILLISECONDS);
            if (result != null && result.applied() == applied && (applied || result.problems().size() == 2))
            {
                return true;
            }
        }
        return false;
    }
}
