package io.multifactor.config.reload;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs an action on a daemon thread whenever one file's content changes, however the change is made: written in place,
 * replaced by a rename (as editors save), a symbolic link on the way re-pointed (a Kubernetes ConfigMap update swaps its
 * {@code ..data} link), an edit of a link's target in another directory, a watched directory deleted and created
 * again, or renamed away and replaced by a new one.
 * <p>
 * It watches, with the platform's {@link WatchService}, every directory that {@link WatchedPath} finds on the way to the
 * file (and the parent of the file's directory, for the directory's own name), and works that set out again after
 * every event that concerns it (so a re-pointed link moves the watch to the new target). A watch follows a
 * directory's inode, not its path: every {@link #RECHECK_MS} ms, and after every event, the path is resolved again and
 * each watched directory's file key (device and inode) compared with the one it was registered with; a directory
 * replaced under the same name is watched afresh, so the watcher follows the path.
 * <p>
 * A change is served only once the file's content has stayed the same for the debounce period: after an event the
 * content is sampled every period (by SHA-256, so a huge file is never held in memory), and the action runs when two
 * samples a period apart agree and differ from the last content served. So a slow writer's partial file is not served
 * while it keeps growing, and events elsewhere (other files of the directory written continuously) never hold a
 * change back: it is served one to two periods after the file stopped changing. An empty file (a write in place
 * caught between truncation and content) and anything that is not a regular file (a FIFO, whose opening would block)
 * are not read or acted upon.
 * <p>
 * The watcher survives anything the action throws, {@link Error}s included: each failure is counted
 * ({@link #failureCount()}), the first of a run of failures is reported on the {@link System.Logger} of this package,
 * and watching goes on.
 * <p>
 * This class is threadsafe: {@link #start()}, {@link #close()} and {@link #failureCount()} may be called from any
 * thread; the action runs on the watcher thread only.
 */
final class ConfigFileWatcher implements AutoCloseable
{
    /** Default period the content must stay the same before it is served. */
    static final long DEFAULT_DEBOUNCE_MS = 100;

    /** The path is resolved again and its directories' identities checked this often, even without events. */
    static final long RECHECK_MS = 500;

    private static final System.Logger LOG = System.getLogger(ConfigFileWatcher.class.getPackageName());

    private final Path file;
    private final Runnable onChange;
    private final long debounceMs;
    private final WatchService service;
    private final Thread thread;
    private final AtomicLong failures = new AtomicLong();
    private final Map<Path, WatchKey> keys = new HashMap<>();
    // The file key of each watched directory when it was registered: a different one now means it was replaced.
    private final Map<Path, Object> registeredFileKeys = new HashMap<>();
    private volatile boolean closed;

    // Watcher thread only (set up before start).
    private WatchedPath watched;
    private byte[] lastDigest;
    private boolean failing;

    ConfigFileWatcher(final Path file, final Runnable onChange) throws IOException
    {
        this(file, onChange, DEFAULT_DEBOUNCE_MS);
    }

    ConfigFileWatcher(final Path file, final Runnable onChange, final long debounceMs) throws IOException
    {
        if (debounceMs < 1)
        {
            throw new IllegalArgumentException("debounce must be at least 1 ms: " + debounceMs);
        }
        this.file = file.toAbsolutePath();
        this.onChange = onChange;
        this.debounceMs = debounceMs;
        this.service = FileSystems.getDefault().newWatchService();
        try
        {
            rewatch();
            if (keys.isEmpty())
            {
                throw new IOException("cannot watch any directory on the way to " + file);
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            service.close();
            throw ex;
        }
        this.lastDigest = digestOrNull();
        this.thread = new Thread(this::run, "mf-config-watcher-" + this.file.getFileName());
        this.thread.setDaemon(true);
    }

    void start()
    {
        thread.start();
    }

    /** @return how many times the action (or the watcher's own work) threw, since creation. */
    long failureCount()
    {
        return failures.get();
    }

    @Override
    public void close()
    {
        closed = true;
        try
        {
            service.close();
        }
        catch (final IOException ignored)
        {
            // Closing a watch service only fails if it is already broken; the thread ends either way.
        }
        thread.interrupt();
    }

    private void run()
    {
        while (!closed)
        {
            try
            {
                if (awaitChange())
                {
                    settleAndAct();
                }
            }
            catch (final InterruptedException | ClosedWatchServiceException ex)
            {
                return;
            }
            catch (final Throwable ex)
            {
                failed(ex);
            }
        }
    }

    /**
     * Waits at most {@link #RECHECK_MS} for an event that concerns the file; without one, checks that the path still
     * goes through the directories watched.
     *
     * @return whether the file may have changed (the watches are then up to date).
     */
    private boolean awaitChange() throws InterruptedException, IOException
    {
        final WatchKey first = service.poll(RECHECK_MS, TimeUnit.MILLISECONDS);
        boolean concerned = first != null && drain(first);
        concerned |= drainReady();
        if (!concerned && first == null && watched.complete() && !moved())
        {
            return false;
        }
        rewatch();
        return true;
    }

    /**
     * Samples the content every debounce period until two samples agree, then runs the action if it differs from
     * what was served last. Events that come meanwhile are taken (and the watches kept up to date) but do not restart
     * anything: only the content decides.
     */
    private void settleAndAct() throws InterruptedException, IOException
    {
        byte[] before = digestOrNull();
        while (!closed)
        {
            final long untilNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(debounceMs);
            boolean concerned = false;
            long leftNs;
            while ((leftNs = untilNs - System.nanoTime()) > 0)
            {
                final WatchKey key = service.poll(leftNs, TimeUnit.NANOSECONDS);
                if (key != null)
                {
                    concerned |= drain(key);
                }
            }
            if (concerned)
            {
                rewatch();
            }
            final byte[] now = digestOrNull();
            if (now == null && before == null)
            {
                // Gone, empty or not a regular file, and still so: nothing to serve until the next event.
                return;
            }
            if (now != null && Arrays.equals(now, before))
            {
                act(now);
                return;
            }
            before = now;
        }
    }

    private boolean drainReady()
    {
        boolean concerned = false;
        WatchKey more;
        while ((more = service.poll()) != null)
        {
            concerned |= drain(more);
        }
        return concerned;
    }

    private boolean drain(final WatchKey key)
    {
        final Path directory = (Path)key.watchable();
        boolean concerned = false;
        for (final WatchEvent<?> event : key.pollEvents())
        {
            if (event.kind() == StandardWatchEventKinds.OVERFLOW ||
                event.context() instanceof Path && watched.concerns(directory, event.context().toString()))
            {
                concerned = true;
            }
        }
        if (!key.reset())
        {
            // The directory went away (deleted or renamed): work the path out again.
            if (keys.remove(directory, key))
            {
                registeredFileKeys.remove(directory);
            }
            concerned = true;
        }
        return concerned;
    }

    /** @return whether the path now resolves differently, or a watched directory is no longer the one registered. */
    private boolean moved()
    {
        final WatchedPath now = WatchedPath.resolve(file);
        if (!now.namesByDirectory().equals(watched.namesByDirectory()))
        {
            return true;
        }
        for (final Map.Entry<Path, Object> entry : registeredFileKeys.entrySet())
        {
            if (!Objects.equals(entry.getValue(), fileKeyOrNull(entry.getKey())))
            {
                return true;
            }
        }
        return false;
    }

    /** Resolves the path again and watches exactly the directories it now goes through, as they now are. */
    private void rewatch() throws IOException
    {
        final WatchedPath next = WatchedPath.resolve(file);
        for (final Iterator<Map.Entry<Path, WatchKey>> it = keys.entrySet().iterator(); it.hasNext(); )
        {
            final Map.Entry<Path, WatchKey> entry = it.next();
            final Path directory = entry.getKey();
            if (!next.namesByDirectory().containsKey(directory) || !entry.getValue().isValid() ||
                !Objects.equals(registeredFileKeys.get(directory), fileKeyOrNull(directory)))
            {
                // Not on the way any more, or replaced: the old watch follows the old inode wherever it went.
                entry.getValue().cancel();
                it.remove();
                registeredFileKeys.remove(directory);
            }
        }
        for (final Path directory : next.namesByDirectory().keySet())
        {
            if (!keys.containsKey(directory))
            {
                // Read before registering: if the directory is replaced in between, the keys differ and the next
                // check registers again (the other order could miss it).
                final Object fileKey = fileKeyOrNull(directory);
                try
                {
                    keys.put(directory, directory.register(service, StandardWatchEventKinds.ENTRY_CREATE,
                        StandardWatchEventKinds.ENTRY_MODIFY, StandardWatchEventKinds.ENTRY_DELETE));
                    registeredFileKeys.put(directory, fileKey);
                }
                catch (final IOException ex)
                {
                    // Gone between resolving and registering: the next check finds the path incomplete and retries.
                    if (Files.isDirectory(directory))
                    {
                        throw ex;
                    }
                }
            }
        }
        watched = next;
    }

    private static Object fileKeyOrNull(final Path directory)
    {
        try
        {
            return Files.readAttributes(directory, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
        }
        catch (final IOException | RuntimeException ex)
        {
            return null;
        }
    }

    private void act(final byte[] digest)
    {
        if (Arrays.equals(digest, lastDigest))
        {
            return;
        }
        lastDigest = digest;
        try
        {
            onChange.run();
            failing = false;
        }
        catch (final Throwable ex)
        {
            failed(ex);
        }
    }

    private void failed(final Throwable ex)
    {
        failures.incrementAndGet();
        if (!failing)
        {
            failing = true;
            LOG.log(System.Logger.Level.WARNING, "reloading " + file + " failed; still watching it (further failures " +
                "are only counted until one succeeds)", ex);
        }
    }

    private byte[] digestOrNull()
    {
        // A FIFO (or a device) would block the watcher in open(): only a regular file, links followed, is read.
        if (!Files.isRegularFile(file))
        {
            return null;
        }
        final MessageDigest digest;
        try
        {
            digest = MessageDigest.getInstance("SHA-256");
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException("every JVM has SHA-256", ex);
        }
        final byte[] buffer = new byte[8192];
        try (InputStream in = Files.newInputStream(file))
        {
            long length = 0;
            int n;
            while ((n = in.read(buffer)) > 0)
            {
                digest.update(buffer, 0, n);
                length += n;
            }
            // An empty file is a write caught between truncation and content (never a valid configuration): wait.
            return length == 0 ? null : digest.digest();
        }
        catch (final IOException | RuntimeException ex)
        {
            return null;
        }
    }
}
