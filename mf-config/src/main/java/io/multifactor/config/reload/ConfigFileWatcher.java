package io.multifactor.config.reload;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs an action on a daemon thread whenever one file's content changes, however the change is made: written in place,
 * replaced by a rename (as editors save), a symbolic link on the way re-pointed (a Kubernetes ConfigMap update swaps its
 * {@code ..data} link), an edit of a link's target in another directory, or a watched directory deleted and created
 * again.
 * <p>
 * It watches, with the platform's {@link WatchService}, every directory that {@link WatchedPath} finds on the way to the
 * file, and works that set out again after every event that concerns it (so a re-pointed link moves the watch to the
 * new target). Events are debounced: the file is read once a burst has been quiet for the debounce period (or, under
 * continuous writes, at the latest {@link #MAX_DELAY_FACTOR} periods after the burst began), and the action runs only
 * when the content differs from the last content seen (compared by SHA-256, so a huge file is never held in memory);
 * an empty file (a write in place caught between truncation and content) is not acted upon.
 * While a directory on the way is missing, the path is also checked every {@link #MISSING_RECHECK_MS} ms.
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
    /** Default quiet period that ends a burst of events. */
    static final long DEFAULT_DEBOUNCE_MS = 100;

    /** A burst that never goes quiet is acted upon after this many debounce periods. */
    static final int MAX_DELAY_FACTOR = 10;

    /** While a directory on the way is missing, the path is checked this often even without events. */
    static final long MISSING_RECHECK_MS = 500;

    private static final System.Logger LOG = System.getLogger(ConfigFileWatcher.class.getPackageName());

    private final Path file;
    private final Runnable onChange;
    private final long debounceMs;
    private final WatchService service;
    private final Thread thread;
    private final AtomicLong failures = new AtomicLong();
    private final Map<Path, WatchKey> keys = new HashMap<>();
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
                if (awaitConcerningEvents())
                {
                    rewatch();
                    checkContent();
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
     * Waits for a burst of events that concerns the file, then for the burst to go quiet.
     *
     * @return whether the file's path should be resolved and its content checked.
     */
    private boolean awaitConcerningEvents() throws InterruptedException
    {
        final WatchKey first = watched.complete() ?
            service.take() : service.poll(MISSING_RECHECK_MS, TimeUnit.MILLISECONDS);
        if (first == null)
        {
            return true;
        }
        boolean concerned = drain(first);
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(debounceMs * MAX_DELAY_FACTOR);
        WatchKey more;
        while (System.nanoTime() - deadlineNs < 0 &&
            (more = service.poll(debounceMs, TimeUnit.MILLISECONDS)) != null)
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
            keys.remove(directory, key);
            concerned = true;
        }
        return concerned;
    }

    /** Resolves the path again and watches exactly the directories it now goes through. */
    private void rewatch() throws IOException
    {
        final WatchedPath next = WatchedPath.resolve(file);
        for (final Iterator<Map.Entry<Path, WatchKey>> it = keys.entrySet().iterator(); it.hasNext(); )
        {
            final Map.Entry<Path, WatchKey> entry = it.next();
            if (!next.namesByDirectory().containsKey(entry.getKey()) || !entry.getValue().isValid())
            {
                entry.getValue().cancel();
                it.remove();
            }
        }
        for (final Path directory : next.namesByDirectory().keySet())
        {
            if (!keys.containsKey(directory))
            {
                try
                {
                    keys.put(directory, directory.register(service, StandardWatchEventKinds.ENTRY_CREATE,
                        StandardWatchEventKinds.ENTRY_MODIFY, StandardWatchEventKinds.ENTRY_DELETE));
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

    private void checkContent()
    {
        final byte[] digest = digestOrNull();
        if (digest == null || Arrays.equals(digest, lastDigest))
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
