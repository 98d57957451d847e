package io.multifactor.tools;

import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.config.ConfigLoader;
import io.multifactor.config.LoadedConfig;
import io.multifactor.kernel.engine.SignalSettings;
import io.multifactor.serving.BackendChooser;
import io.multifactor.sim.ProfileReader;
import io.multifactor.sim.SimulationProfile;
import io.multifactor.sim.Simulator;
import io.multifactor.sim.scenario.Scenario;
import io.multifactor.sim.scenario.ScenarioLoader;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every YAML block of the pages under {@code docs/} is a valid file of the kind it shows: a configuration loads, a
 * scenario loads and fits the page's first configuration, a simulation profile loads and fits it too. A block of none
 * of these kinds fails, so an example cannot drift out of the test.
 */
class DocsYamlTest
{
    private static final Path DOCS = Path.of("..", "docs");

    /** One fenced YAML block: the page, the line its text starts on, and the text. */
    record Block(Path page, int line, String yaml)
    {
        String origin()
        {
            return page.getFileName() + ":" + line;
        }
    }

    static List<Block> blocks(final Path page) throws IOException
    {
        final List<Block> blocks = new ArrayList<>();
        final List<String> lines = Files.readAllLines(page);
        StringBuilder yaml = null;
        int start = 0;
        for (int i = 0; i < lines.size(); i++)
        {
            final String line = lines.get(i);
            if (yaml == null && line.strip().equals("```yaml"))
            {
                yaml = new StringBuilder();
                start = i + 2;
            }
            else if (yaml != null && line.strip().equals("```"))
            {
                blocks.add(new Block(page, start, yaml.toString()));
                yaml = null;
            }
            else if (yaml != null)
            {
                yaml.append(line).append('\n');
            }
        }
        assertThat(yaml).as(page + ": a YAML block is not closed").isNull();
        return blocks;
    }

    @Test
    void shouldFindYamlBlocksInTheConfigurationReference() throws IOException
    {
        assertThat(blocks(DOCS.resolve("configuration.md"))).hasSizeGreaterThanOrEqualTo(4);
    }

    @Test
    void shouldGiveTheOutcomeOfTheWorkedExampleOfTheSemanticsPage() throws IOException
    {
        final List<Block> blocks = blocks(DOCS.resolve("semantics.md"));
        assertThat(blocks).hasSize(2);
        final Path dir = Files.createTempDirectory("semantics");
        final Path config = Files.writeString(dir.resolve("router.yaml"), blocks.get(0).yaml());
        final Path request = Files.writeString(dir.resolve("request.yaml"), blocks.get(1).yaml());
        final String page = Files.readString(DOCS.resolve("semantics.md"));
        assertThat(page).contains("\n```\nbin/mf explain --config router.yaml --scenario request.yaml\n```\n");

        final CliRun table = CliRun.of("explain", "--config", config.toString(), "--scenario", request.toString());
        final CliRun json =
            CliRun.of("explain", "--config", config.toString(), "--scenario", request.toString(), "--json");

        assertThat(table.exit()).as(table.err()).isZero();
        assertThat(json.out()).contains("\"outcome\": \"scored\"").contains("\"selected\": \"slow-strong\"")
            .contains("\"normalized\": {\"quality\": 1.0, \"latency\": 0.0, \"cost\": 0.0, \"load\": 1.0}")
            .contains("\"normalized\": {\"quality\": 0.0, \"latency\": 1.0, \"cost\": 1.0, \"load\": 0.0}");
        assertThat(table.out()).containsPattern("slow-strong +- +0\\.6000").containsPattern("fast-cheap +- +0\\.4000");

        final CliRun slow = CliRun.of("explain", "--config", config.toString(), "--scenario",
            Files.writeString(dir.resolve("slow.yaml"), blocks.get(1).yaml().replace("[400, 600]", "[900, 1200]"))
                .toString(), "--json");
        assertThat(slow.out()).contains("\"selected\": \"fast-cheap\"").contains("\"dropped\": \"ttft_p95=")
            .contains("ms>800.0ms\"");
        assertThat(page).contains("`ttft_p95=...ms>800.0ms`");
    }

    @TestFactory
    Stream<DynamicTest> everyYamlBlockOfTheDocsIsAValidFile() throws IOException
    {
        final List<DynamicTest> tests = new ArrayList<>();
        try (Stream<Path> pages = Files.list(DOCS))
        {
            for (final Path page : pages.filter(p -> p.toString().endsWith(".md")).sorted().toList())
            {
                final LoadedConfig[] firstConfig = new LoadedConfig[1];
                final String[] lastVsr = new String[1];
                for (final Block block : blocks(page))
                {
                    if (hasRootKey(block.yaml(), "version"))
                    {
                        lastVsr[0] = block.yaml();
                    }
                    final String vsr = lastVsr[0];
                    tests.add(DynamicTest.dynamicTest(block.origin(), () -> check(block, firstConfig, vsr)));
                }
            }
        }
        return tests.stream();
    }

    private static void check(final Block block, final LoadedConfig[] firstConfig, final String lastVsr)
        throws InvalidConfigurationException
    {
        final String yaml = block.yaml();
        final String file = block.origin();
        if (hasRootKey(yaml, "decision"))
        {
            final Scenario scenario = ScenarioLoader.load(file, yaml);
            assertThat(firstConfig[0]).as(file + ": a scenario needs a configuration block before it").isNotNull();
            scenario.checkAgainst(firstConfig[0].plans());
        }
        else if (hasRootKey(yaml, "duration_s") || hasRootKey(yaml, "arrivals_per_s"))
        {
            final SimulationProfile profile = ProfileReader.read(file, yaml);
            assertThat(firstConfig[0]).as(file + ": a profile needs a configuration block before it").isNotNull();
            // The simulator refuses a profile that does not fit the configuration (a model or decision it lacks).
            // A profile with servers per model simulates that configuration's backends one by one.
            new Simulator(firstConfig[0].plans(), SignalSettings.defaults(), profile, true,
                BackendChooser.of(firstConfig[0], java.util.Map.of()));
        }
        else if (hasRootKey(yaml, "static_resources") || hasRootKey(yaml, "clusters"))
        {
            // An Envoy bootstrap or clusters (docs/envoy.md): mf-envoy's EnvoyDocsTest parses them into Envoy's protos.
            assertThat(file).contains("envoy.md");
        }
        else if (hasRootKey(yaml, "decisions") || hasRootKey(yaml, "version"))
        {
            final LoadedConfig config = ConfigLoader.load(file, yaml, null);
            if (firstConfig[0] == null)
            {
                firstConfig[0] = config;
            }
        }
        else if (lastVsr != null && hasRootKey(yaml, "models"))
        {
            // An overlay completes the vLLM Semantic Router file shown before it on the page.
            ConfigLoader.load(file + " (its vSR file)", lastVsr.getBytes(java.nio.charset.StandardCharsets.UTF_8), file,
                yaml.getBytes(java.nio.charset.StandardCharsets.UTF_8), null);
        }
        else if (hasRootKey(yaml, "models"))
        {
            // models without decisions: the backends profile of bin/mf backends.
            BackendsProfileReader.read(file, yaml);
        }
        else
        {
            throw new AssertionError(file + ": a YAML block that is neither a configuration, an overlay, a scenario " +
                "nor a profile");
        }
    }

    private static boolean hasRootKey(final String yaml, final String key)
    {
        return yaml.startsWith(key + ":") || yaml.contains("\n" + key + ":");
    }
}
