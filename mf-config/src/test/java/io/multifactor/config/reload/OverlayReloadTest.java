package io.multifactor.config.reload;

import io.multifactor.config.ConfigLoader;
import io.multifactor.config.LoadedConfig;
import io.multifactor.config.model.ModelConfig;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.signal.ServerKind;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A reloader built with an overlay applies it on every reload (a reload of the vLLM Semantic Router file keeps the
 * overlay's values), refuses a reload whose overlay is broken, and its watcher reloads on an edit of either file.
 */
class OverlayReloadTest
{
    private static final String VSR = String.join("\n",
        "version: v0.3",
        "providers:",
        "  models:",
        "    - name: small",
        "      backend_refs: [{endpoint: 10.0.0.1:8000}]",
        "    - name: large",
        "      backend_refs: [{endpoint: 10.0.0.2:8000}]",
        "routing:",
        "  modelCards:",
        "    - {name: small, quality_score: 0.5}",
        "    - {name: large, quality_score: 0.9}",
        "  decisions:",
        "    - name: d",
        "      modelRefs: [{model: small}, {model: large}]",
        "      algorithm: {type: multi_factor}",
        "");

    private static final String OVERLAY = String.join("\n",
        "models:",
        "  - name: large",
        "    server: sglang",
        "    backend_refs: [{endpoint: 10.0.0.3:30000}]",
        "");

    /** Generous: the watcher's thread may wait long for a core on a loaded machine. */
    private static final long AWAIT_SECONDS = 60;

    @TempDir
    Path dir;

    private Path file;
    private Path overlay;
    private MultiFactorEngine engine;
    private ConfigReloader reloader;

    @BeforeEach
    void setUp() throws Exception
    {
        file = Files.writeString(dir.resolve("config.yaml"), VSR);
        overlay = Files.writeString(dir.resolve("overlay.yaml"), OVERLAY);
        final LoadedConfig loaded =
            ConfigLoader.load(file, overlay, null, MultiFactorEngine.DEFAULT_COUNTER_CAPACITY);
        engine = MultiFactorEngine.builder(loaded.plans()).clock(new CachedNanoClock())
            .settings(loaded.signalSettings()).build();
        reloader = new ConfigReloader(engine, overlay);
    }

    @AfterEach
    void tearDown()
    {
        reloader.close();
        engine.close();
    }

    @Test
    void aReloadOfTheConfigurationShouldKeepTheOverlaysValues() throws Exception
    {
        // The vSR file changes (a third model); the overlay's server and backends of "large" must stay.
        Files.writeString(file, VSR.replace("    - {name: large, quality_score: 0.9}",
            "    - {name: large, quality_score: 0.9}\n    - {name: tiny, quality_score: 0.1}"));
        final AtomicReference<LoadedConfig> applied = new AtomicReference<>();

        final ReloadResult result = reloader.reload(file, applied::set);

        assertThat(result.applied()).as("%s", result.problems()).isTrue();
        assertThat(reloader.overlay()).isEqualTo(overlay);
        final ModelConfig large = model(applied.get(), "large");
        assertThat(large.server()).isEqualTo(ServerKind.SGLANG);
        assertThat(large.backendRefs()).extracting(b -> b.authority()).containsExactly("10.0.0.3:30000");
        assertThat(model(applied.get(), "small").backendRefs()).extracting(b -> b.authority())
            .containsExactly("10.0.0.1:8000");
        assertThat(engine.modelId("tiny")).isNotNegative();
    }

    @Test
    void aReloadWithoutTheOverlayShouldLoseItsValuesWhichIsWhatTheOverlayReloaderPrevents() throws Exception
    {
        // The control: the same reload through a reloader without the overlay takes the vSR file's backends.
        final AtomicReference<LoadedConfig> applied = new AtomicReference<>();
        try (ConfigReloader plain = new ConfigReloader(engine))
        {
            assertThat(plain.reload(file, applied::set).applied()).isTrue();
        }
        assertThat(model(applied.get(), "large").server()).isNull();
        assertThat(model(applied.get(), "large").backendRefs()).extracting(b -> b.authority())
            .containsExactly("10.0.0.2:8000");
    }

    @Test
    void aBrokenOverlayShouldBeRefusedInItsOwnNameAndKeepTheRunningPlans() throws Exception
    {
        final Plans running = engine.plans();
        Files.writeString(overlay, OVERLAY.replace("name: large", "name: lrge"));

        final ReloadResult result = reloader.reload(file);

        assertThat(result.applied()).isFalse();
        assertThat(result.problems()).extracting(Object::toString)
            .anySatisfy(p -> assertThat(p).startsWith(overlay + ":2:11: models[0].name: unknown model \"lrge\""));
        assertThat(engine.plans()).isSameAs(running);
    }

    @Test
    void theWatcherShouldReloadOnAnEditOfTheOverlay() throws Exception
    {
        final LinkedBlockingQueue<ReloadResult> results = new LinkedBlockingQueue<>();
        final List<LoadedConfig> applied = new ArrayList<>();
        reloader.watch(file, results::add, 50, loaded ->
        {
            synchronized (applied)
            {
                applied.add(loaded);
            }
        });

        final Path next = Files.writeString(dir.resolve("next.tmp"), OVERLAY.replace("10.0.0.3:30000", "10.0.0.9:30000"));
        Files.move(next, overlay, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);

        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(AWAIT_SECONDS);
        String seen = null;
        while (System.nanoTime() < deadline && !"10.0.0.9:30000".equals(seen))
        {
            final ReloadResult result = results.poll(100, TimeUnit.MILLISECONDS);
            if (result != null && result.applied())
            {
                synchronized (applied)
                {
                    seen = model(applied.get(applied.size() - 1), "large").backendRefs().get(0).authority();
                }
            }
        }
        assertThat(seen).isEqualTo("10.0.0.9:30000");
    }

    private static ModelConfig model(final LoadedConfig loaded, final String name)
    {
        return loaded.config().models().stream().filter(m -> m.name().equals(name)).findFirst().orElseThrow();
    }
}
