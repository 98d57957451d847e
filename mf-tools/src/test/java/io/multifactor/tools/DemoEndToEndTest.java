package io.multifactor.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The newcomer's path: the README's first command is the demo and its second the tests, and the demo runs through the
 * real {@code bin/mf} script from the repository root, in separate JVMs, with the same stdout every time. The script's
 * build step is skipped through {@code MF_CLASSPATH}: this test runs inside the build that compiled the classes.
 */
class DemoEndToEndTest
{
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @TempDir
    Path dir;

    @Test
    void shouldListTheDemoFirstAndTheTestsSecondInTheReadme() throws IOException
    {
        final List<String> commands = new ArrayList<>();
        boolean inBlock = false;
        for (final String line : Files.readAllLines(ROOT.resolve("README.md")))
        {
            if (line.startsWith("```"))
            {
                inBlock = !inBlock;
            }
            else if (inBlock && !line.isBlank())
            {
                commands.add(line.strip());
            }
        }

        assertThat(commands).hasSizeGreaterThanOrEqualTo(2);
        assertThat(commands.get(0)).isEqualTo("bin/mf simulate");
        assertThat(commands.get(1)).isEqualTo("mvn -B verify");
    }

    @Test
    void shouldRunTheDemoThroughBinMfWithTheSameOutputEveryTime() throws IOException, InterruptedException
    {
        final Result first = mf("simulate");
        final Result second = mf("simulate");

        assertThat(first.exit).as(first.err).isZero();
        assertThat(first.out).startsWith("simulating examples/router.yaml with examples/router.profile.yaml")
            .contains("<- slow-strong degrades").contains("summary: 120 simulated s, seed 42, SLO ceilings on");
        assertThat(first.err).contains("simulated 120/120 s");
        assertThat(second.out).isEqualTo(first.out);
    }

    private Result mf(final String... args) throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>(List.of("bash", ROOT.resolve("bin/mf").toString()));
        command.addAll(List.of(args));
        final Path err = Files.createTempFile(dir, "err", ".txt");
        final ProcessBuilder builder = new ProcessBuilder(command).directory(ROOT.toFile()).redirectError(err.toFile());
        builder.environment().put("MF_CLASSPATH", System.getProperty("java.class.path"));
        final Process process = builder.start();
        process.getOutputStream().close();
        final byte[] out = process.getInputStream().readAllBytes();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Result(process.exitValue(), new String(out, StandardCharsets.UTF_8), Files.readString(err));
    }

    private static final class Result
    {
        final int exit;
        final String out;
        final String err;

        Result(final int exit, final String out, final String err)
        {
            this.exit = exit;
            this.out = out;
            this.err = err;
        }
    }
}
