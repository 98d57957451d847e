package io.multifactor.tools;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.MalformedInputException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The repository carries its own documentation: no file sends a reader to a design document that is not in it, and
 * every relative link of the Markdown pages points at a file that exists.
 */
class SelfContainedDocsTest
{
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    // Split so that this file does not match itself.
    private static final List<String> NEEDLES =
        List.of("design" + ".md", "design" + " section", "of the " + "design", "the " + "design's");

    private static List<Path> files() throws IOException
    {
        try (Stream<Path> walk = Files.walk(ROOT))
        {
            return walk.filter(Files::isRegularFile)
                .filter(p -> !ROOT.relativize(p).toString().startsWith(".git"))
                .filter(p -> !p.toString().contains("/target/"))
                .filter(p -> !p.toString().endsWith(".png"))
                .toList();
        }
    }

    @Test
    void shouldNotReferToADesignDocumentOutsideTheRepository() throws IOException
    {
        final List<String> found = new ArrayList<>();
        for (final Path file : files())
        {
            final String text;
            try
            {
                text = Files.readString(file).toLowerCase(Locale.ROOT);
            }
            catch (final MalformedInputException ex)
            {
                continue; // not text
            }
            for (final String needle : NEEDLES)
            {
                if (text.contains(needle))
                {
                    found.add(ROOT.relativize(file) + ": " + needle);
                }
            }
        }
        assertThat(found).isEmpty();
    }

    @Test
    void shouldLinkOnlyToFilesThatExist() throws IOException
    {
        final List<String> broken = new ArrayList<>();
        for (final Path page : files())
        {
            if (!page.toString().endsWith(".md"))
            {
                continue;
            }
            final Matcher links =
                Pattern.compile("\\]\\(([^)#:]+)(#[^)]*)?\\)").matcher(Files.readString(page));
            while (links.find())
            {
                if (!Files.exists(page.getParent().resolve(links.group(1))))
                {
                    broken.add(ROOT.relativize(page) + ": " + links.group(1));
                }
            }
        }
        assertThat(broken).isEmpty();
    }
}
