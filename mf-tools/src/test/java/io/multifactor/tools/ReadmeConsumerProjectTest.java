package io.multifactor.tools;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The "Use it in your project" section of docs/embedding.md shows the files of the consumer project that
 * {@code mvn verify} builds and runs (module {@code mf-consumer}, maven-invoker-plugin): they must be the same, word
 * for word, so that what a newcomer copies is what the build proved.
 */
class ReadmeConsumerProjectTest
{
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Path PROJECT = ROOT.resolve("mf-consumer/src/it/embedding");

    /** The fenced blocks of docs/embedding.md's "Use it in your project" section, in order, with their info strings. */
    private static List<String[]> sectionBlocks() throws IOException
    {
        final List<String[]> blocks = new ArrayList<>();
        boolean inSection = false;
        String info = null;
        StringBuilder text = null;
        for (final String line : Files.readAllLines(ROOT.resolve("docs/embedding.md")))
        {
            if (line.startsWith("## "))
            {
                inSection = line.equals("## Use it in your project");
            }
            else if (inSection && text == null && line.startsWith("```"))
            {
                info = line.substring(3).strip();
                text = new StringBuilder();
            }
            else if (inSection && text != null && line.equals("```"))
            {
                blocks.add(new String[] {info, text.toString()});
                text = null;
            }
            else if (text != null)
            {
                text.append(line).append('\n');
            }
        }
        return blocks;
    }

    private static String block(final String info, final int index) throws IOException
    {
        final List<String> found = new ArrayList<>();
        for (final String[] block : sectionBlocks())
        {
            if (block[0].equals(info))
            {
                found.add(block[1]);
            }
        }
        assertThat(found).as("```%s blocks in docs/embedding.md's \"Use it in your project\"", info)
            .hasSizeGreaterThan(index);
        return found.get(index);
    }

    @Test
    void shouldShowTheConsumerPomWithThisVersion() throws IOException
    {
        final String version = System.getProperty("mf.expected.version");
        final String pom = Files.readString(PROJECT.resolve("pom.xml")).replace("@project.version@", version);

        assertThat(block("xml", 0)).isEqualTo(pom);
        assertThat(pom).contains("<artifactId>mf-bom</artifactId>\n        <version>" + version + "</version>");
    }

    @Test
    void shouldShowTheConsumerProgram() throws IOException
    {
        assertThat(block("java", 0))
            .isEqualTo(Files.readString(PROJECT.resolve("src/main/java/example/RouterExample.java")))
            .contains("engine.requireDecisionId(").contains("engine.requireModelId(");
    }

    @Test
    void shouldRunItOnTheBundledExampleConfiguration() throws IOException
    {
        assertThat(Files.readString(PROJECT.resolve("router.yaml")))
            .isEqualTo(Files.readString(ROOT.resolve("examples/router.yaml")));
    }

    @Test
    void shouldShowTheCommandsAndTheOutputTheInvokerChecks() throws IOException
    {
        assertThat(block("", 0)).isEqualTo("mvn -B install -DskipTests\n");
        assertThat(block("", 1)).isEqualTo("mvn -q compile exec:exec\n");
        final String output = block("", 2);
        final String verify = Files.readString(PROJECT.resolve("verify.groovy"));
        for (final String line : output.strip().split("\n"))
        {
            assertThat(verify).contains("assert log.contains('" + line + "')");
        }
        assertThat(Files.readString(PROJECT.resolve("invoker.properties")))
            .contains("invoker.goals = -B compile exec:exec");
    }
}
