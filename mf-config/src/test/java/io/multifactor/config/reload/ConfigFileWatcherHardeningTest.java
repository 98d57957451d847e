package io.multifactor.config.reload;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What broke the watcher when tried adversarially: its directory renamed away and replaced, a FIFO put at its path,
 * other writes that never stop, and a slow writer. Real files; deadlines on conditions, no fixed sleeps for results.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ConfigFileWatcherHardeningTest
{
    @TempDir
    Path dir;

    private final List<String> seen = new CopyOnWriteArrayList<>();
    private final List<Long> seenAtNs = new CopyOnWriteArrayList<>();
    private ConfigFileWatcher watcher;
    private Thread writer;
    private final AtomicBoolean writing = new AtomicBoolean(true);

    @AfterEach
    void tearDown() throws InterruptedException
    {
        writing.set(false);
        if (writer != null)
        {
            writer.join(10_000);
        }
        if (watcher != null)
        {
            watcher.close();
        }
    }

    private void watch(final Path file, final long debounceMs) throws IOException
    {
        watcher = new ConfigFileWatcher(file, () ->
        {
            seenAtNs.add(System.nanoTime());
            seen.add(read(file));
        }, debounceMs);
        watcher.start();
    }

    @Test
    void shouldFollowThePathWhenItsDirectoryIsRenamedAwayAndReplaced() throws Exception
    {
        final Path conf = Files.createDirectory(dir.resolve("conf"));
        final Path file = Files.writeString(conf.resolve("router.yaml"), "v1");
        watch(file, 20);

        // mv conf conf.old; mkdir conf; write conf/router.yaml
        final Path old = Files.move(conf, dir.resolve("conf.old"));
        Files.createDirectory(conf);
        final long writtenNs = System.nanoTime();
        Files.writeString(file, "v2");
        await(() -> seen.contains("v2"), 10, "the new conf/router.yaml to be served (seen " + seen + ")");
        System.out.println("directory renamed away and replaced: new file served after " +
            (seenAtNs.get(0) - writtenNs) / 1_000_000 + " ms");

        // Later edits of the new file are seen; an edit of the old directory's file is not served.
        Files.writeString(file, "v3");
        await(() -> seen.contains("v3"), 10, "an edit of the new file (seen " + seen + ")");
        Files.writeString(old.resolve("router.yaml"), "v4-in-conf.old");
        Files.writeString(file, "v5");
        await(() -> seen.contains("v5"), 10, "a second edit of the new file (seen " + seen + ")");
        assertThat(seen).containsExactly("v2", "v3", "v5");
    }

    @Test
    void shouldNotBlockOnAFifoPutAtTheWatchedPath() throws Exception
    {
        final Path file = Files.writeString(dir.resolve("router.yaml"), "v1");
        watch(file, 20);

        Files.delete(file);
        final Process mkfifo = new ProcessBuilder("mkfifo", file.toString()).redirectErrorStream(true).start();
        assertThat(mkfifo.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(mkfifo.exitValue()).isZero();
        // Give the watcher the FIFO's events (and a recheck) before it is replaced: a watcher blocked in open() never
        // sees what follows.
        Thread.sleep(700);
        final Path tmp = Files.writeString(dir.resolve(".router.yaml.tmp"), "v2");
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        await(() -> seen.contains("v2"), 10, "the regular file that replaced the FIFO (seen " + seen + ")");
        assertThat(seen).containsExactly("v2");
    }

    @Test
    void shouldServeAChangeWithinTheDebounceWhileOtherFilesOfTheDirectoryAreWrittenContinuously() throws Exception
    {
        final long debounceMs = 100;
        final Path file = Files.writeString(dir.resolve("router.yaml"), "v0");
        watch(file, debounceMs);
        // A sidecar that writes its status file beside the configuration every 10 ms, for the whole test.
        final Path status = dir.resolve("status.txt");
        writer = new Thread(() ->
        {
            int n = 0;
            while (writing.get())
            {
                try
                {
                    Files.writeString(status, "tick " + n++);
                    Thread.sleep(10);
                }
                catch (final IOException | InterruptedException ex)
                {
                    return;
                }
            }
        });
        writer.start();

        long bestMs = Long.MAX_VALUE;
        final List<Long> delaysMs = new ArrayList<>();
        for (int i = 1; i <= 3; i++)
        {
            final String content = "v" + i;
            final Path tmp = Files.writeString(dir.resolve(".router.yaml.tmp"), content);
            final long writtenNs = System.nanoTime();
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            await(() -> seen.contains(content), 10, content + " (seen " + seen + ")");
            final long delayMs = (seenAtNs.get(seen.indexOf(content)) - writtenNs) / 1_000_000;
            delaysMs.add(delayMs);
            bestMs = Math.min(bestMs, delayMs);
        }
        System.out.println("served " + delaysMs + " ms after the change, debounce " + debounceMs +
            " ms, another file written every 10 ms");
        // The content is stable after one period: served after one or two, never held back until writes stop.
        assertThat(bestMs).isLessThan(6 * debounceMs);
    }

    @Test
    void shouldServeASlowWritersFileOnlyOnceItStoppedChangingForTheDebounce() throws Exception
    {
        final long debounceMs = 200;
        final Path file = Files.writeString(dir.resolve("router.yaml"), "start: 0\n");
        watch(file, debounceMs);

        // Appends a line every 20 ms for about 2.6 s: every prefix is valid YAML, none of them is the file meant.
        final List<Long> lengths = new ArrayList<>();
        final List<Long> writtenAtNs = new ArrayList<>();
        final StringBuilder full = new StringBuilder("start: 0\n");
        for (int i = 1; i <= 130; i++)
        {
            final String line = "key" + i + ": " + i + "\n";
            full.append(line);
            Files.write(file, line.getBytes(StandardCharsets.UTF_8), StandardOpenOption.APPEND);
            lengths.add((long)full.length());
            writtenAtNs.add(System.nanoTime());
            Thread.sleep(20);
        }
        final String complete = full.toString();
        await(() -> seen.contains(complete), 10, "the complete file");
        writtenAtNs.add(Long.MAX_VALUE);

        // Anything served before the end must have stayed unchanged for the debounce (a writer stalled that long).
        int partial = 0;
        for (final String content : seen)
        {
            if (content.equals(complete))
            {
                continue;
            }
            partial++;
            final int at = lengths.indexOf((long)content.length());
            assertThat(at).as("a prefix the writer wrote: " + content.length() + " chars").isNotNegative();
            final long unchangedMs = (writtenAtNs.get(at + 1) - writtenAtNs.get(at)) / 1_000_000;
            assertThat(unchangedMs).as("partial file of " + content.length() + " chars served after staying " +
                "unchanged for only " + unchangedMs + " ms").isGreaterThanOrEqualTo(debounceMs);
        }
        System.out.println("slow writer: " + seen.size() + " served, " + partial + " of them partial");
        assertThat(seen.get(seen.size() - 1)).isEqualTo(complete);
    }

    private static void await(final BooleanSupplier condition, final long seconds, final String what)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadline > 0)
            {
                throw new AssertionError("timed out after " + seconds + " s waiting for " + what);
            }
            Thread.sleep(5);
        }
    }

    private static String read(final Path file)
    {
        try
        {
            return Files.readString(file);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
