package io.multifactor.config.reload;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.Arrays;

/**
 * Runs an action on a daemon thread whenever one file's content changes (written in place, or replaced by a rename as
 * editors do), using the directory's {@link WatchService}. Events arriving within a short quiet period are coalesced,
 * and an event that leaves the content unchanged runs nothing.
 * <p>
 * This class is threadsafe: {@link #start()} and {@link #close()} may be called from any thread; the action runs on the
 * watcher thread only.
 */
final class ConfigFileWatcher implements AutoCloseable
{
    private static final long QUIET_MS = 50;

    private final Path file;
    private final Path fileName;
    private final Runnable onChange;
    private final WatchService service;
    private final Thread thread;
    private byte[] lastContent;

    ConfigFileWatcher(final Path file, final Runnable onChange) throws IOException
    {
        this.file = file.toAbsolutePath();
        this.fileName = this.file.getFileName();
        this.onChange = onChange;
        this.service = FileSystems.getDefault().newWatchService();
        this.file.getParent().register(service, StandardWatchEventKinds.ENTRY_MODIFY,
            StandardWatchEventKinds.ENTRY_CREATE);
        this.lastContent = readOrNull();
        this.thread = new Thread(this::run, "mf-config-watcher-" + fileName);
        this.thread.setDaemon(true);
    }

    void start()
    {
        thread.start();
    }

    @Override
    public void close()
    {
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
        try
        {
            while (true)
            {
                final WatchKey key = service.take();
                boolean concerned = pollConcerned(key);
                // Coalesce the burst of events one save produces before reading the file.
                WatchKey more;
                while ((more = service.poll(QUIET_MS, java.util.concurrent.TimeUnit.MILLISECONDS)) != null)
                {
                    concerned |= pollConcerned(more);
                }
                if (concerned)
                {
                    final byte[] content = readOrNull();
                    if (content != null && !Arrays.equals(content, lastContent))
                    {
                        lastContent = content;
                        onChange.run();
                    }
                }
            }
        }
        catch (final InterruptedException | ClosedWatchServiceException ex)
        {
            // close() was called: stop watching.
        }
    }

    private boolean pollConcerned(final WatchKey key)
    {
        boolean concerned = false;
        for (final WatchEvent<?> event : key.pollEvents())
        {
            if (event.kind() == StandardWatchEventKinds.OVERFLOW || fileName.equals(event.context()))
            {
                concerned = true;
            }
        }
        key.reset();
        return concerned;
    }

    private byte[] readOrNull()
    {
        try
        {
            return Files.readAllBytes(file);
        }
        catch (final IOException ex)
        {
            return null;
        }
    }
}
