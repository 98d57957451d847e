package io.multifactor.spring.ai;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/spring.md's code, properties and routing file are, word for word, those of the consumer project that
 * mf-consumer's build compiles and runs (src/it/spring-ai).
 */
class SpringExampleDocsTest
{
    static final Path PAGE = Path.of("..", "docs", "spring.md");
    static final Path PROJECT = Path.of("..", "mf-consumer", "src", "it", "spring-ai", "src", "main");

    static String block(final String page, final String fence)
    {
        final int from = page.indexOf("\n" + fence + "\n") + fence.length() + 2;
        return page.substring(from, page.indexOf("\n```\n", from) + 1);
    }

    @Test
    void shouldShowTheApplicationTheConsumerProjectRuns() throws Exception
    {
        final String page = Files.readString(PAGE, StandardCharsets.UTF_8);
        assertThat(block(page, "```java"))
            .isEqualTo(Files.readString(PROJECT.resolve("java/example/ChatModels.java"), StandardCharsets.UTF_8));
        assertThat(block(page, "```properties"))
            .isEqualTo(Files.readString(PROJECT.resolve("resources/application.properties"), StandardCharsets.UTF_8));
        assertThat(block(page, "```yaml"))
            .isEqualTo(Files.readString(PROJECT.resolve("resources/router.yaml"), StandardCharsets.UTF_8));
    }
}
