package io.multifactor.tools;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A newcomer copies the {@code bin/mf} examples of docs/cli.md (its "Commands" section) and runs them from the
 * repository root: every file they name exists, and {@code validate} and {@code explain} (table and JSON) succeed on
 * them.
 */
class ReadmeExamplesTest
{
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void shouldRunEveryBinMfExampleOfTheReadmeAsWritten() throws IOException
    {
        final List<List<String>> examples = binMfExamples();
        assertThat(examples).as("bin/mf examples in docs/cli.md's Commands section").hasSizeGreaterThanOrEqualTo(3);

        int ran = 0;
        for (final List<String> args : examples)
        {
            if (args.get(0).equals("simulate"))
            {
                continue; // the demo: run through bin/mf by DemoEndToEndTest
            }
            final String[] resolved = new String[args.size()];
            for (int i = 0; i < args.size(); i++)
            {
                final String arg = args.get(i);
                resolved[i] = arg.endsWith(".yaml") ? ROOT.resolve(arg).toString() : arg;
                if (arg.endsWith(".yaml"))
                {
                    assertThat(ROOT.resolve(arg)).as("file named by the docs/cli.md example %s", args).isRegularFile();
                }
            }

            final CliRun run = CliRun.of(resolved);

            assertThat(run.exit()).as("%s: %s", args, run.err()).isEqualTo(ExitCodes.OK);
            assertThat(run.out()).as("%s", args).isNotEmpty();
            if (args.contains("--json"))
            {
                assertThat(run.out()).startsWith("{\"decision\": \"quality_answers\",")
                    .contains("\"selected\": \"fast-cheap\"")
                    .contains("\"dropped\": \"ttft_p95=")
                    .endsWith("}\n");
            }
            ran++;
        }
        assertThat(ran).isGreaterThanOrEqualTo(3);
    }

    @Test
    void shouldPrintTheRefusalShownInTheReadme() throws IOException
    {
        final String prompt = "$ bin/mf validate ";
        final List<String> shown = new ArrayList<>();
        String file = null;
        for (final String line : Files.readAllLines(ROOT.resolve("docs/cli.md")))
        {
            if (line.startsWith(prompt))
            {
                file = line.substring(prompt.length()).strip();
            }
            else if (file != null && line.startsWith("```"))
            {
                break;
            }
            else if (file != null)
            {
                shown.add(line);
            }
        }
        assertThat(file).as("a '$ bin/mf validate FILE' example in docs/cli.md").isNotNull();
        assertThat(ROOT.resolve(file)).isRegularFile();

        final CliRun run = CliRun.of("validate", ROOT.resolve(file).toString());

        assertThat(run.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
        assertThat(run.out()).isEmpty();
        // The page shows the path as typed from the repository root; the test ran it with an absolute path.
        assertThat(run.err().replace(ROOT + "/", "").lines()).containsExactlyElementsOf(shown);
    }

    @Test
    void shouldPrintTheValidSummaryShownInTheReadme() throws IOException
    {
        final String readme = Files.readString(ROOT.resolve("docs/cli.md"));
        final String command = "$ bin/mf validate examples/router.yaml\n";
        assertThat(readme).contains(command);
        final int start = readme.indexOf(command) + command.length();
        final List<String> shown = readme.substring(start, readme.indexOf("```", start)).lines().toList();

        final CliRun run = CliRun.of("validate", ROOT.resolve("examples/router.yaml").toString());

        assertThat(run.exit()).isEqualTo(ExitCodes.OK);
        final List<String> printed = run.out().replace(ROOT + "/", "").lines().toList();
        // The page shows the start and the end; "  ..." stands for the decisions it leaves out.
        final int gap = shown.indexOf("  ...");
        assertThat(gap).as("a '  ...' line in the page's summary").isPositive();
        assertThat(printed.subList(0, gap)).containsExactlyElementsOf(shown.subList(0, gap));
        final List<String> tail = shown.subList(gap + 1, shown.size());
        assertThat(printed.subList(printed.size() - tail.size(), printed.size())).containsExactlyElementsOf(tail);
    }

    /** The lines of the first code block after the "## Commands" heading that start with {@code bin/mf}, as words. */
    private static List<List<String>> binMfExamples() throws IOException
    {
        final List<List<String>> examples = new ArrayList<>();
        boolean inSection = false;
        boolean inBlock = false;
        for (final String line : Files.readAllLines(ROOT.resolve("docs/cli.md")))
        {
            if (line.startsWith("## "))
            {
                inSection = line.equals("## Commands");
            }
            else if (inSection && line.startsWith("```"))
            {
                if (inBlock)
                {
                    break;
                }
                inBlock = true;
            }
            else if (inBlock && line.startsWith("bin/mf "))
            {
                final int comment = line.indexOf('#');
                final String command = (comment < 0 ? line : line.substring(0, comment)).strip();
                final List<String> words = Arrays.asList(command.split("\\s+"));
                examples.add(words.subList(1, words.size()));
            }
        }
        return examples;
    }
}
