package io.multifactor.langchain4j;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/langchain4j.md's program and routing file are, word for word, those of the consumer project that mf-consumer's
 * build compiles and runs (src/it/langchain4j).
 */
class RoutedChatDocsTest
{
    static final Path PAGE = Path.of("..", "docs", "langchain4j.md");
    static final Path PROJECT = Path.of("..", "mf-consumer", "src", "it", "langchain4j");

    static String block(final String page, final String fence)
    {
        final int from = page.indexOf("\n" + fence + "\n") + fence.length() + 2;
        return page.substring(from, page.indexOf("\n```\n", from) + 1);
    }

    @Test
    void shouldShowTheProgramAndFileTheConsumerProjectRuns() throws Exception
    {
        final String page = Files.readString(PAGE, StandardCharsets.UTF_8);
        assertThat(block(page, "```java")).isEqualTo(Files.readString(
            PROJECT.resolve("src/main/java/example/RoutedChat.java"), StandardCharsets.UTF_8));
        assertThat(block(page, "```yaml")).isEqualTo(Files.readString(PROJECT.resolve("router.yaml"),
            StandardCharsets.UTF_8));
    }
}
