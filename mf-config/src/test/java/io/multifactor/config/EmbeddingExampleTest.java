package io.multifactor.config;

import io.multifactor.api.Exclusions;
import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.api.Selection;
import io.multifactor.config.reload.ConfigReloader;
import io.multifactor.config.reload.ReloadResult;
import io.multifactor.kernel.engine.MultiFactorEngine;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The embedding snippets, compiled and run here: "Embedding in a router" of docs/embedding.md (between the README
 * markers) and the README's own (between the FIRST-PAGE markers); tests check that the pages hold them verbatim.
 */
class EmbeddingExampleTest
{
    @TempDir
    Path dir;

    // README:BEGIN
    static String route(final Path routerYaml) throws InvalidConfigurationException
    {
        // Parse, validate (every problem at once, located) and compile the YAML into plans.
        final LoadedConfig config = ConfigLoader.load(routerYaml);
        try (MultiFactorEngine engine = MultiFactorEngine.builder(config.plans())
                .settings(config.signalSettings())
                .build();
            AgentRunner refresh = new AgentRunner(
                new SleepingMillisIdleStrategy(1), Throwable::printStackTrace, null, engine.agent());
            ConfigReloader reloader = new ConfigReloader(engine))
        {
            AgentRunner.startOnThread(refresh);   // rotates latency windows, republishes percentiles

            // Once, at startup: names to handles; per thread: a reusable result and exclusion set.
            final int decision = engine.requireDecisionId("quality_policy_decision");
            final Selection selection = new Selection();
            final Exclusions exclusions = new Exclusions();

            // Per request: select and lease in one step (no allocation, no lock), then feed the signals back.
            exclusions.clear();
            final long lease = engine.selectAndBegin(decision, exclusions, selection);
            if (!selection.hasSelection())
            {
                return null;                         // outcome FAILED: on_no_candidates: fail
            }
            final int model = selection.selectedModel();  // one more request in flight to it, within max_inflight
            try
            {
                // ... send the request to engine.plans().modelName(model), then:
                engine.recordTtftMs(model, 310.0);   // time to first token, ms
                engine.recordTpotMs(model, 42.0);    // time per output token, ms
            }
            finally
            {
                engine.end(lease);
            }

            // Hot reload: a bad file keeps the running plans and says why.
            final ReloadResult reload = reloader.reload(routerYaml);
            if (!reload.applied())
            {
                reload.problems().forEach(System.err::println);
            }
            return engine.plans().modelName(model);
        }
    }
    // README:END

    // FIRST-PAGE:BEGIN
    static String choose(final Path routerYaml) throws InvalidConfigurationException
    {
        final LoadedConfig config = ConfigLoader.load(routerYaml);               // every problem at once, located
        try (MultiFactorEngine engine =
            MultiFactorEngine.builder(config.plans()).settings(config.signalSettings()).build())
        {
            final int decision = engine.requireDecisionId("quality_answers");   // once, at startup
            final Selection selection = new Selection();                         // one per thread, reused
            final long lease = engine.selectAndBegin(decision, null, selection); // no allocation, no lock
            if (!selection.hasSelection())
            {
                return null;                                                     // outcome FAILED
            }
            final int model = selection.selectedModel();
            // ... send the request to engine.plans().modelName(model), then:
            engine.recordTtftMs(model, 310.0);
            engine.recordTpotMs(model, 42.0);
            engine.end(lease, 200);                                              // the response's status
            return engine.plans().modelName(model);
        }
    }
    // FIRST-PAGE:END

    @Test
    void shouldRouteWithTheReadmeSnippet() throws Exception
    {
        final Path router = Files.writeString(dir.resolve("router.yaml"),
            DesignSampleTest.SECTION_3_SAMPLE.replace("decisions:\n", DesignSampleTest.ECONOMY_MODEL + "decisions:\n"));

        // premium-model's prompt price 10.0 breaks max_cost_per_1m 5.0: economy-model is the only survivor.
        assertThat(route(router)).isEqualTo("economy-model");

        // Without the cost ceiling and no observation yet: premium 0.4 (quality) + 0.1 (shared load) beats
        // economy 0.2 (cost) + 0.1.
        Files.writeString(router, Files.readString(router).replace("max_cost_per_1m: 5.0", "max_cost_per_1m: 0"));
        assertThat(route(router)).isEqualTo("premium-model");
    }

    @Test
    void shouldChooseWithTheFirstPageSnippet() throws Exception
    {
        // No observation yet: quality_answers ranks slow-strong first, as the consumer project of docs/embedding.md
        // prints for its first request.
        assertThat(choose(Path.of("..", "examples", "router.yaml"))).isEqualTo("slow-strong");
    }

    @Test
    void shouldBeInTheReadmeVerbatim() throws IOException
    {
        final List<String> snippet = snippet("README");
        assertThat(snippet).hasSizeGreaterThan(20);
        final String readme = Files.readString(Path.of("..", "docs", "embedding.md"), StandardCharsets.UTF_8);
        assertThat(readme).contains("```java\n" + String.join("\n", snippet) + "\n```\n");
    }

    @Test
    void shouldBeOnTheFirstPageVerbatim() throws IOException
    {
        final List<String> snippet = snippet("FIRST-PAGE");
        assertThat(snippet).hasSizeGreaterThan(10);
        final String readme = Files.readString(Path.of("..", "README.md"), StandardCharsets.UTF_8);
        assertThat(readme).contains("```java\n" + String.join("\n", snippet) + "\n```\n");
    }

    /** The lines of this file between "// MARKER:BEGIN" and "// MARKER:END", less the class body's indent. */
    private static List<String> snippet(final String marker) throws IOException
    {
        final List<String> source = Files.readAllLines(
            Path.of("src/test/java/io/multifactor/config/EmbeddingExampleTest.java"), StandardCharsets.UTF_8);
        final List<String> snippet = new ArrayList<>();
        boolean inside = false;
        for (final String line : source)
        {
            if (line.strip().equals("// " + marker + ":END"))
            {
                break;
            }
            if (inside)
            {
                snippet.add(line.length() >= 4 ? line.substring(4) : line.strip());
            }
            if (line.strip().equals("// " + marker + ":BEGIN"))
            {
                inside = true;
            }
        }
        return snippet;
    }
}
