package io.multifactor.config;

import io.multifactor.config.model.ConfigFormat;
import io.multifactor.config.model.DecisionConfig;
import io.multifactor.config.model.SkippedDecision;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The example of docs/configuration.md, section "vLLM Semantic Router files", loads, and is examples/vsr-config.yaml. */
class VsrDocsExampleTest
{
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void shouldLoadTheDocumentedExample() throws Exception
    {
        final String example = documentedExample();

        final LoadedConfig loaded = ConfigLoader.load("docs/configuration.md", example, null);

        assertThat(loaded.outline().format()).isEqualTo(ConfigFormat.VSR);
        assertThat(loaded.config().decisions()).extracting(DecisionConfig::name)
            .containsExactly("quality_answers", "batch/bulk");
        assertThat(loaded.outline().skippedDecisions()).extracting(SkippedDecision::name, SkippedDecision::algorithmType)
            .containsExactly(org.assertj.core.groups.Tuple.tuple("pinned_fast", "static"));
        assertThat(loaded.outline().ignoredSections()).containsExactly("listeners", "entrypoints", "global");
        assertThat(loaded.warnings()).isEmpty();
    }

    @Test
    void shouldBeTheExampleFileVerbatim() throws IOException
    {
        assertThat(Files.readString(ROOT.resolve("examples/vsr-config.yaml"))).endsWith(documentedExample());
    }

    private static String documentedExample() throws IOException
    {
        final String docs = Files.readString(ROOT.resolve("docs/configuration.md"));
        final int section = docs.indexOf("\n## vLLM Semantic Router files\n");
        assertThat(section).as("section in docs/configuration.md").isNotNegative();
        final int start = docs.indexOf("```yaml\n", section) + "```yaml\n".length();
        final int end = docs.indexOf("```\n", start);
        return docs.substring(start, end);
    }
}
