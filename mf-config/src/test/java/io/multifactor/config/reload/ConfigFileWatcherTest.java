package io.multifactor.config.reload;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The watcher against real files, in the layouts deployments use. Waits are generous deadlines on a condition, never
 * fixed sleeps, so a loaded machine makes the tests slower, not red.
 */
class ConfigFileWatcherTest
{
    private static final long AWAIT_SECONDS = 30;

    @TempDir
    Path dir;

    private final List<String> seen = new CopyOnWriteArrayList<>();
    private ConfigFileWatcher watcher;

    @AfterEach
    void tearDown()
    {
        if (watcher != null)
        {
            watcher.close();
        }
    }

    @Test
    void shouldSeeAKubernetesConfigMapUpdateThatSwapsTheDataLink() throws Exception
    {
        // The layout kubelet's atomic writer makes: the visible file links through ..data to a timestamped directory.
        final Path first = dir.resolve("..2026_11_30_09_00_00.1");
        Files.createDirectory(first);
        Files.writeString(first.resolve("router.yaml"), "v1");
        Files.createSymbolicLink(dir.resolve("..data"), first.getFileName());
        final Path file = Files.createSymbolicLink(dir.resolve("router.yaml"), Path.of("..data/router.yaml"));
        watch(file);

        configMapUpdate("..2026_11_30_09_05_00.2", "v2", first);
        awaitSeen("v2");

        // Still watching after the old target directory is gone: a second update is seen too.
        configMapUpdate("..2026_11_30_09_10_00.3", "v3", dir.resolve("..2026_11_30_09_05_00.2"));
        awaitSeen("v3");
        assertThat(seen).containsExactly("v2", "v3");
    }

    @Test
    void shouldSeeAnEditOfALinkTargetInAnotherDirectory() throws Exception
    {
        final Path elsewhere = Files.createDirectory(dir.resolve("elsewhere"));
        final Path target = Files.writeString(elsewhere.resolve("real.yaml"), "v1");
        final Path watchedDir = Files.createDirectory(dir.resolve("conf"));
        final Path file = Files.createSymbolicLink(watchedDir.resolve("router.yaml"), target);
        watch(file);

        Files.writeString(target, "v2");
        awaitSeen("v2");
    }

    @Test
    void shouldSeeAFileReplacedByARenameAsEditorsSave() throws Exception
    {
        final Path file = Files.writeString(dir.resolve("router.yaml"), "v1");
        watch(file);

        final Path swap = Files.writeString(dir.resolve(".router.yaml.swp"), "v2");
        Files.move(swap, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        awaitSeen("v2");

        // Vim's way: the original renamed to a backup, the new content written under the name.
        Files.move(file, dir.resolve("router.yaml~"), StandardCopyOption.ATOMIC_MOVE);
        Files.writeString(file, "v3");
        awaitSeen("v3");
    }

    @Test
    void shouldKeepWatchingAfterItsDirectoryIsDeletedAndCreatedAgain() throws Exception
    {
        final Path conf = Files.createDirectory(dir.resolve("conf"));
        final Path file = Files.writeString(conf.resolve("router.yaml"), "v1");
        watch(file);

        deleteTree(conf);
        Files.createDirectory(conf);
        Files.writeString(file, "v2");
        awaitSeen("v2");

        Files.writeString(file, "v3");
        awaitSeen("v3");
    }

    @Test
    void shouldSurviveAnyThrowableOfTheActionCountItAndReportOnlyTheFirst() throws Exception
    {
        final Path file = Files.writeString(dir.resolve("router.yaml"), "v1");
        final AtomicInteger calls = new AtomicInteger();
        final List<LogRecord> logged = new CopyOnWriteArrayList<>();
        final Logger logger = Logger.getLogger(ConfigFileWatcher.class.getPackageName());
        final Handler handler = new Handler()
        {
            @Override
            public void publish(final LogRecord record)
            {
                logged.add(record);
            }

            @Override
            public void flush()
            {
            }

            @Override
            public void close()
            {
            }
        };
        logger.addHandler(handler);
        // Captured, not printed: a passing build shows no stack trace (the record is asserted on below).
        final boolean parentHandlers = logger.getUseParentHandlers();
        logger.setUseParentHandlers(false);
        try
        {
            watcher = new ConfigFileWatcher(file, () ->
            {
                final String content = read(file);
                final int call = calls.incrementAndGet();
                if (call == 1)
                {
                    throw new IllegalStateException("listener bug");
                }
                if (call == 2)
                {
                    throw new StackOverflowError("an Error, too");
                }
                seen.add(content);
            }, 20);
            watcher.start();

            Files.writeString(file, "v2");
            await(() -> watcher.failureCount() == 1, "first failure counted");
            Files.writeString(file, "v3");
            await(() -> watcher.failureCount() == 2, "second failure counted");
            Files.writeString(file, "v4");
            awaitSeen("v4");
            assertThat(logged).hasSize(1);
            assertThat(logged.get(0).getThrown()).hasMessage("listener bug");
        }
        finally
        {
            logger.removeHandler(handler);
            logger.setUseParentHandlers(parentHandlers);
        }
    }

    @Test
    void shouldCoalesceABurstOfWritesIntoFewRunsThatEndOnTheLastContent() throws Exception
    {
        final Path file = Files.writeString(dir.resolve("router.yaml"), "v0");
        watcher = new ConfigFileWatcher(file, () -> seen.add(read(file)), 1_000);
        watcher.start();

        for (int i = 1; i <= 30; i++)
        {
            Files.writeString(file, "v" + i);
        }
        awaitSeen("v30");
        // A burst much shorter than the quiet period is one run; allow a few more for a machine that stalls mid-burst.
        assertThat(seen.size()).isLessThanOrEqualTo(5);
    }

    @Test
    void shouldNotRunWhenTheContentIsRewrittenUnchanged() throws Exception
    {
        final Path file = Files.writeString(dir.resolve("router.yaml"), "v1");
        watch(file);

        // Replaced atomically, so that no reader can catch a half-written file.
        replace(file, "v1");
        replace(file, "v2");
        awaitSeen("v2");
        assertThat(seen).containsExactly("v2");
    }

    @Test
    void shouldResolveEveryLinkOnTheWayOfAConfigMapPath() throws Exception
    {
        final Path first = Files.createDirectory(dir.resolve("..2026_11_30_09_00_00.1"));
        Files.writeString(first.resolve("router.yaml"), "v1");
        Files.createSymbolicLink(dir.resolve("..data"), first.getFileName());
        final Path file = Files.createSymbolicLink(dir.resolve("router.yaml"), Path.of("..data/router.yaml"));

        final WatchedPath watched = WatchedPath.resolve(file);

        final Path real = dir.toRealPath();
        assertThat(watched.complete()).isTrue();
        assertThat(watched.namesByDirectory()).containsOnlyKeys(real, first.toRealPath());
        // The target directory's own name too: its replacement under the same name is seen.
        assertThat(watched.namesByDirectory().get(real))
            .containsExactlyInAnyOrder("router.yaml", "..data", first.getFileName().toString());
        assertThat(watched.namesByDirectory().get(first.toRealPath())).containsExactly("router.yaml");
    }

    private void watch(final Path file) throws IOException
    {
        watcher = new ConfigFileWatcher(file, () -> seen.add(read(file)), 20);
        watcher.start();
    }

    private void replace(final Path file, final String content) throws IOException
    {
        final Path tmp = Files.writeString(dir.resolve(".tmp-" + content), content);
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /** Kubernetes' update: new timestamped directory, a new link renamed over ..data, the old directory removed. */
    private void configMapUpdate(final String timestamped, final String content, final Path old) throws IOException
    {
        final Path next = Files.createDirectory(dir.resolve(timestamped));
        Files.writeString(next.resolve("router.yaml"), content);
        final Path tmp = Files.createSymbolicLink(dir.resolve("..data_tmp"), Path.of(timestamped));
        Files.move(tmp, dir.resolve("..data"), StandardCopyOption.ATOMIC_MOVE);
        deleteTree(old);
    }

    private void awaitSeen(final String content) throws InterruptedException
    {
        await(() -> seen.contains(content), "the watcher to see " + content + " (seen " + seen + ")");
    }

    private static void await(final BooleanSupplier condition, final String what) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(AWAIT_SECONDS);
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadline > 0)
            {
                throw new AssertionError("timed out after " + AWAIT_SECONDS + " s waiting for " + what);
            }
            Thread.sleep(10);
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

    private static void deleteTree(final Path root) throws IOException
    {
        try (Stream<Path> paths = Files.walk(root))
        {
            for (final Path p : paths.sorted(Comparator.reverseOrder()).toList())
            {
                Files.delete(p);
            }
        }
    }
}
