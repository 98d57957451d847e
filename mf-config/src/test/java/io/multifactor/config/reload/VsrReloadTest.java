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
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Hot reload and the file watcher take vLLM Semantic Router files (plain and Helm values) like the own format. */
class VsrReloadTest
{
    private static final String OWN = """
        models:
          - {name: small-chat, quality_score: 0.5}
        decisions:
          - name: chat_route
            modelRefs: [{model: small-chat}]
        """;

    /** Generous: the watcher's thread may wait long for a core on a loaded machine. */
    private static final long AWAIT_SECONDS = 60;

    @TempDir
    Path dir;

    private Path file;
    private MultiFactorEngine engine;
    private ConfigReloader reloader;

    @BeforeEach
    void setUp() throws Exception
    {
        file = Files.writeString(dir.resolve("config.yaml"), OWN);
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
    void shouldSwapInTheMultiFactorDecisionsOfAVsrFileKeepingHandlesAndLoad() throws IOException
    {
        final int smallChat = engine.modelId("small-chat");
        final int chatRoute = engine.decisionId("chat_route");
        engine.begin(smallChat);

        Files.writeString(file, resource("vsr/router-v0.3.yaml"));
        final ReloadResult result = reloader.reload(file);

        assertThat(result.applied()).isTrue();
        assertThat(result.problems()).isEmpty();
        assertThat(engine.modelId("small-chat")).isEqualTo(smallChat);
        assertThat(engine.decisionId("chat_route")).isEqualTo(chatRoute);
        assertThat(engine.decisionId("math_route")).isEqualTo(Handles.NONE);
        assertThat(engine.inflight(smallChat)).isEqualTo(1L);
        final Selection selection = new Selection();
        engine.select(engine.decisionId("privacy/local_only"), null, selection);
        assertThat(selection.outcome()).isEqualTo(Outcome.SCORED);
        assertThat(engine.plans().modelName(selection.selectedModel())).isIn("small-chat", "code-expert");
    }

    @Test
    void shouldKeepTheRunningPlansWhenAVsrFileIsBroken() throws IOException
    {
        final Plans running = engine.plans();
        Files.writeString(file, resource("vsr/router-helm-values.yaml")
            .replace("          - model: small-chat\n          - model: vision-lite",
                "          - model: small-chat\n          - model: vision-lit"));

        final ReloadResult result = reloader.reload(file);

        assertThat(result.applied()).isFalse();
        assertThat(result.problems()).extracting(Object::toString).containsExactly(
            file + ":193:20: config.routing.decisions[2].modelRefs[1].model: unknown model \"vision-lit\": defined " +
                "in neither providers.models nor routing.modelCards (did you mean vision-lite?)");
        assertThat(engine.plans()).isSameAs(running);
    }

    @Test
    void shouldReloadAWatchedVsrFileAndHelmValues() throws Exception
    {
        final LinkedBlockingQueue<ReloadResult> results = new LinkedBlockingQueue<>();
        reloader.watch(file, results::add);

        // Each new content appears at once (as an editor's save or a ConfigMap swap does), never half-written.
        replace(resource("vsr/recipes-only-v0.3.yaml"));
        assertThat(awaitApplied(results, "night/everyday")).isTrue();

        replace(resource("vsr/router-helm-values.yaml"));
        assertThat(awaitApplied(results, "burst/chat_route")).isTrue();

        final Plans running = engine.plans();
        replace(resource("vsr/router-v0.3.yaml").replace("version: v0.3", "version: v9"));
        assertThat(awaitRefused(results, "unsupported version")).isTrue();
        assertThat(engine.plans()).isSameAs(running);
    }

    private void replace(final String content) throws IOException
    {
        final Path next = Files.writeString(dir.resolve("next.tmp"), content);
        Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private boolean awaitApplied(final LinkedBlockingQueue<ReloadResult> results, final String decision)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(AWAIT_SECONDS);
        while (System.nanoTime() < deadline)
        {
            final ReloadResult result = results.poll(100, TimeUnit.MILLISECONDS);
            if (result != null && result.applied() && engine.decisionId(decision) != Handles.NONE)
            {
                return true;
            }
        }
        return false;
    }

    private static boolean awaitRefused(final LinkedBlockingQueue<ReloadResult> results, final String problem)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(AWAIT_SECONDS);
        while (System.nanoTime() < deadline)
        {
            final ReloadResult result = results.poll(100, TimeUnit.MILLISECONDS);
            if (result != null && !result.applied() && result.problems().toString().contains(problem))
            {
                return true;
            }
        }
        return false;
    }

    private static String resource(final String name) throws IOException
    {
        try (InputStream in = VsrReloadTest.class.getClassLoader().getResourceAsStream(name))
        {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
