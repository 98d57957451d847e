package io.multifactor.kernel.engine;

import io.multifactor.kernel.metrics.CountersFileLayout;
import io.multifactor.kernel.metrics.CountersFileReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A router in its own JVM ({@link CountersFileEngineMain}) with its counters in a file: another process truncating the
 * file while the router selects on two threads does not kill it (it used to die of SIGBUS, exit 134), and the file is
 * written whole again; a file system that cannot hold the file fails the build with a message, not a fault later.
 */
class CountersFileSurvivalTest
{
    private static final int CAPACITY = 1024;

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldKeepSelectingWhileAnotherProcessTruncatesTheCountersFileAndWriteItWholeAgain() throws Exception
    {
        final Path file = dir.resolve("router.counters");
        final long length = CountersFileLayout.fileLength(CAPACITY);
        final Process router = start(List.of(), file.toString(), "8", Integer.toString(CAPACITY));
        try (BufferedReader out = new BufferedReader(new InputStreamReader(router.getInputStream(), StandardCharsets.UTF_8)))
        {
            final String ready = out.readLine();
            assertThat(ready).as("the router's first line").startsWith("ready ");
            assertThat(Files.size(file)).isEqualTo(length);

            final long[] truncations = {0L, 64L, length / 2, 4096L, 0L};
            for (final long to : truncations)
            {
                try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE))
                {
                    channel.truncate(to);
                }
                // The refresh agent finds it short at its next heartbeat (every 250 ms) and writes it whole.
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (Files.size(file) != length && System.nanoTime() - deadline < 0)
                {
                    Thread.sleep(20);
                }
                assertThat(Files.size(file)).as("length after truncating to " + to).isEqualTo(length);
                assertThat(router.isAlive()).as("the router lives after truncating to " + to).isTrue();
            }
            final CountersFileReader.Snapshot snapshot = new CountersFileReader().read(file);
            assertThat(snapshot.pid()).isEqualTo(router.pid());
            assertThat(snapshot.alive(System.currentTimeMillis())).isTrue();

            assertThat(router.waitFor(60, TimeUnit.SECONDS)).as("the router finishes its run").isTrue();
            final List<String> rest = new ArrayList<>();
            for (String line = out.readLine(); line != null; line = out.readLine())
            {
                rest.add(line);
            }
            assertThat(router.exitValue()).as("exit status (134 is SIGBUS); output " + rest).isZero();
            assertThat(rest).anySatisfy(line -> assertThat(line).matches("done [1-9][0-9]*"));
            System.out.println("truncated " + truncations.length + " times while selecting: the router lived and " +
                rest.get(rest.size() - 1).substring("done ".length()) + " selections were made");
        }
        finally
        {
            router.destroyForcibly();
        }
        assertThat(new CountersFileReader().read(file).closed()).isTrue();
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldRefuseToBuildWhenTheFileCannotBeWrittenWholeWithAClearMessage() throws Exception
    {
        final Path file = dir.resolve("router.counters");
        // A 1 MiB file size limit (ulimit -f, in 1 KiB blocks) stands for a file system too full for a 5 MB file: the
        // JVM ignores SIGXFSZ, so the write that passes the limit fails as a full file system's would.
        final Process router = start(List.of("ulimit -f 1024;"), file.toString(), "8");
        assertThat(router.waitFor(50, TimeUnit.SECONDS)).isTrue();
        final String out = new String(router.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();

        assertThat(router.exitValue()).as(out).isEqualTo(3);
        assertThat(out).startsWith("refused cannot create counters file " + file + ": File too large (writing its " +
            String.format(java.util.Locale.ROOT, "%,d", CountersFileLayout.fileLength(
                MultiFactorEngine.DEFAULT_COUNTER_CAPACITY)) + " bytes)")
            .endsWith("; free space there, lower the counter capacity, or give another counters file");
        assertThat(Files.exists(file)).isFalse();
        try (var left = Files.list(dir))
        {
            assertThat(left).as("no partial file is left behind").isEmpty();
        }
    }

    private static Process start(final List<String> shellPrefix, final String... args) throws IOException
    {
        final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        final List<String> command = new ArrayList<>(List.of(java, "--add-exports",
            "java.base/jdk.internal.misc=ALL-UNNAMED", "-Xmx64m", "-cp", System.getProperty("java.class.path"),
            CountersFileEngineMain.class.getName()));
        command.addAll(List.of(args));
        final ProcessBuilder builder;
        if (shellPrefix.isEmpty())
        {
            builder = new ProcessBuilder(command);
        }
        else
        {
            final StringBuilder line = new StringBuilder(String.join(" ", shellPrefix)).append(" exec");
            for (final String word : command)
            {
                line.append(" '").append(word.replace("'", "'\\''")).append('\'');
            }
            builder = new ProcessBuilder("bash", "-c", line.toString());
        }
        builder.redirectError(ProcessBuilder.Redirect.INHERIT);
        final Process process = builder.start();
        process.getOutputStream().close();
        return process;
    }
}
