package io.multifactor.tools;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.MalformedInputException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The repository carries its own documentation: no file sends a reader to a design document that is not in it,
 * every relative link of the Markdown pages points at a file that exists, the README links every page under
 * {@code docs/} (and names none without a link), and no reference table lists a key twice.
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

    @Test
    void shouldLinkEveryDocsPageFromTheReadmeAndNameNoneWithoutALink() throws IOException
    {
        final String readme = Files.readString(ROOT.resolve("README.md"));
        final List<String> problems = new ArrayList<>();
        try (Stream<Path> pages = Files.list(ROOT.resolve("docs")))
        {
            for (final Path page : pages.filter(p -> p.toString().endsWith(".md")).sorted().toList())
            {
                final String name = "docs/" + page.getFileName();
                if (!readme.contains("](" + name))
                {
                    problems.add(name + " is not linked from README.md");
                }
                // Every mention is either a link's text ([docs/x.md]) or its target (](docs/x.md).
                final Matcher mention = Pattern.compile(Pattern.quote(name)).matcher(readme);
                while (mention.find())
                {
                    final int at = mention.start();
                    final boolean linkText = at >= 1 && readme.charAt(at - 1) == '[';
                    final boolean linkTarget = at >= 2 && readme.startsWith("](", at - 2);
                    if (!linkText && !linkTarget)
                    {
                        problems.add(name + " is named without a link at README.md offset " + at);
                    }
                }
            }
        }
        assertThat(problems).isEmpty();
    }

    @Test
    void shouldListEachKeyOnceInEveryKeyTableOfTheDocs() throws IOException
    {
        final List<String> duplicates = new ArrayList<>();
        final List<Path> pages = new ArrayList<>();
        pages.add(ROOT.resolve("README.md"));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs")))
        {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        int tables = 0;
        for (final Path page : pages)
        {
            final List<String> lines = Files.readAllLines(page);
            Set<String> keys = null;
            for (int i = 0; i < lines.size(); i++)
            {
                final String line = lines.get(i);
                if (!line.startsWith("|"))
                {
                    keys = null;
                }
                else if (keys == null && firstCell(line).equals("key"))
                {
                    keys = new HashSet<>();
                    tables++;
                    i++; // the |---| line
                }
                else if (keys != null && !keys.add(firstCell(line)))
                {
                    duplicates.add(ROOT.relativize(page) + ":" + (i + 1) + ": " + firstCell(line));
                }
            }
        }
        assertThat(tables).as("key tables found").isGreaterThanOrEqualTo(5);
        assertThat(duplicates).isEmpty();
    }

    private static String firstCell(final String row)
    {
        final int end = row.indexOf('|', 1);
        return (end < 0 ? row.substring(1) : row.substring(1, end)).strip();
    }
}
