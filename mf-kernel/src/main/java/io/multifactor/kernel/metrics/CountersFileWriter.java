package io.multifactor.kernel.metrics;

import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersReader;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;

/**
 * Keeps a counters file (see {@link CountersFileLayout}) a copy of counters that live in memory the engine owns: the
 * engine never maps the file, so nothing another process does to it (truncate it, fill the file system) can fault a
 * thread that selects or records. The file is written with ordinary positional writes:
 * <ul>
 *   <li>at creation, whole: header, values and metadata, so its space is reserved then (a file system too full for it
 *       fails the engine's build with a message that says so, instead of faulting later on a page it cannot
 *       supply); it is written beside its final name and moved into place, so a reader never sees it half made;</li>
 *   <li>on each {@link #write(long, int, boolean)} (the refresh agent's heartbeat, at most every
 *       {@link CountersFileLayout#HEARTBEAT_INTERVAL_MS}): the values of the counters in use, the metadata when it
 *       changed, and the heartbeat. A file found shorter than its length (truncated by someone) is written whole again
 *       ({@link #restoredCount()}); a write that fails (a full file system) is counted ({@link #failedWriteCount()})
 *       and retried on the next heartbeat; neither ever throws.</li>
 * </ul>
 * This class is not threadsafe: one thread at a time writes (the refresh agent, or the engine's lock holder).
 */
public final class CountersFileWriter implements AutoCloseable
{
    private final Path file;
    private final FileChannel channel;
    private final ByteBuffer values;
    private final ByteBuffer metadata;
    private final int capacity;
    private final long length;
    private final ByteBuffer headerBytes = ByteBuffer.allocateDirect(CountersFileLayout.HEADER_LENGTH)
        .order(ByteOrder.nativeOrder());
    private final UnsafeBuffer header = new UnsafeBuffer(headerBytes);
    private long restored;
    private long failedWrites;
    private boolean metadataOwed;
    private boolean closed;

    private CountersFileWriter(
        final Path file, final FileChannel channel, final ByteBuffer values, final ByteBuffer metadata,
        final int capacity, final long pid, final long startEpochMs)
    {
        this.file = file;
        this.channel = channel;
        this.values = values;
        this.metadata = metadata;
        this.capacity = capacity;
        this.length = CountersFileLayout.fileLength(capacity);
        header.putLong(CountersFileLayout.MAGIC_OFFSET, CountersFileLayout.MAGIC);
        header.putInt(CountersFileLayout.VERSION_OFFSET, CountersFileLayout.VERSION);
        header.putInt(CountersFileLayout.CAPACITY_OFFSET, capacity);
        header.putLong(CountersFileLayout.PID_OFFSET, pid);
        header.putLong(CountersFileLayout.START_EPOCH_MS_OFFSET, startEpochMs);
        header.putLong(CountersFileLayout.HEARTBEAT_EPOCH_MS_OFFSET, startEpochMs);
        header.putInt(CountersFileLayout.STATE_OFFSET, CountersFileLayout.STATE_RUNNING);
    }

    /**
     * Creates the file (replacing one at that path), readable and writable by its owner only (0600) where the file
     * system has POSIX permissions, and writes it whole.
     *
     * @param file the counters file.
     * @param values the counters' values, {@code capacity x 128} bytes (read from position 0, never changed).
     * @param metadata the counters' metadata, {@code capacity x 512} bytes.
     * @param capacity counters.
     * @param startEpochMs the engine's start time, also its first heartbeat.
     * @return the writer; close it with the engine.
     * @throws UncheckedIOException when the file cannot be created or its whole length cannot be written, with a
     *     message naming the file, the bytes it needs and, for a full file system, the bytes free.
     */
    public static CountersFileWriter create(
        final Path file, final ByteBuffer values, final ByteBuffer metadata, final int capacity,
        final long startEpochMs)
    {
        final long length = CountersFileLayout.fileLength(capacity);
        final Path absolute = file.toAbsolutePath();
        final Path directory = absolute.getParent();
        final Path partial = directory.resolve(absolute.getFileName() + ".partial-" + ProcessHandle.current().pid());
        FileChannel channel = null;
        try
        {
            final long usable = Files.getFileStore(directory).getUsableSpace();
            if (usable < length)
            {
                throw new IOException(noSpace(length, usable));
            }
            Files.deleteIfExists(partial);
            if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix"))
            {
                Files.createFile(partial,
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            }
            else
            {
                Files.createFile(partial);
            }
            channel = FileChannel.open(partial, StandardOpenOption.READ, StandardOpenOption.WRITE);
            final CountersFileWriter writer = new CountersFileWriter(
                file, channel, values, metadata, capacity, ProcessHandle.current().pid(), startEpochMs);
            try
            {
                writer.writeWhole();
                channel.force(false);
            }
            catch (final IOException ex)
            {
                final long free = usableSpace(directory);
                throw new IOException(ex.getMessage() + (free >= 0 && free < length ? ": " + noSpace(length, free) :
                    "") + String.format(Locale.ROOT, " (writing its %,d bytes)", length), ex);
            }
            Files.move(partial, absolute, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return writer;
        }
        catch (final IOException ex)
        {
            closeQuietly(channel);
            try
            {
                Files.deleteIfExists(partial);
            }
            catch (final IOException ignored)
            {
                // Nothing more to do: the message below is what matters.
            }
            throw new UncheckedIOException("cannot create counters file " + file + ": " + ex.getMessage() +
                "; free space there, lower the counter capacity, or give another counters file", ex);
        }
    }

    /**
     * Writes the values of counters {@code 0 .. counters - 1}, their metadata when it changed (or a write of it failed
     * before), and the heartbeat; the whole file again when it is shorter than it should be. Never throws: failures
     * are counted. Off the request path.
     *
     * @param nowEpochMs the heartbeat, epoch milliseconds.
     * @param counters the counters in use: one more than the highest id ever allocated, at most the capacity.
     * @param metadataChanged whether the metadata changed since the last write.
     * @return whether everything was written.
     */
    public boolean write(final long nowEpochMs, final int counters, final boolean metadataChanged)
    {
        if (closed)
        {
            return false;
        }
        metadataOwed |= metadataChanged;
        try
        {
            header.putLong(CountersFileLayout.HEARTBEAT_EPOCH_MS_OFFSET, nowEpochMs);
            if (channel.size() < length)
            {
                restored++;
                writeWhole();
                metadataOwed = false;
                return true;
            }
            final int used = Math.max(0, Math.min(counters, capacity));
            writeRange(values, 0, used * CountersReader.COUNTER_LENGTH, CountersFileLayout.valuesOffset());
            if (metadataOwed)
            {
                writeRange(metadata, 0, used * CountersReader.METADATA_LENGTH,
                    CountersFileLayout.metadataOffset(capacity));
                metadataOwed = false;
            }
            writeHeader();
            return true;
        }
        catch (final IOException | RuntimeException ex)
        {
            failedWrites++;
            return false;
        }
    }

    /** @return how many times the file was found shorter than its length and written whole again. */
    public long restoredCount()
    {
        return restored;
    }

    /** @return how many writes failed (each retried at the next heartbeat). */
    public long failedWriteCount()
    {
        return failedWrites;
    }

    /** @return the file. */
    public Path file()
    {
        return file;
    }

    /**
     * Writes the counters one last time with the state {@link CountersFileLayout#STATE_CLOSED}, then closes the file.
     *
     * @param nowEpochMs the last heartbeat.
     * @param counters as for {@link #write(long, int, boolean)}.
     */
    public void close(final long nowEpochMs, final int counters)
    {
        if (closed)
        {
            return;
        }
        header.putInt(CountersFileLayout.STATE_OFFSET, CountersFileLayout.STATE_CLOSED);
        write(nowEpochMs, counters, true);
        close();
    }

    @Override
    public void close()
    {
        closed = true;
        closeQuietly(channel);
    }

    private void writeWhole() throws IOException
    {
        writeRange(values, 0, capacity * CountersReader.COUNTER_LENGTH, CountersFileLayout.valuesOffset());
        writeRange(metadata, 0, capacity * CountersReader.METADATA_LENGTH, CountersFileLayout.metadataOffset(capacity));
        writeHeader();
    }

    private void writeHeader() throws IOException
    {
        final ByteBuffer bytes = headerBytes.duplicate();
        bytes.clear();
        writeFully(bytes, 0L);
    }

    private void writeRange(final ByteBuffer source, final int from, final int to, final long fileOffset)
        throws IOException
    {
        if (to <= from)
        {
            return;
        }
        final ByteBuffer bytes = source.duplicate();
        bytes.limit(to).position(from);
        writeFully(bytes, fileOffset + from);
    }

    private void writeFully(final ByteBuffer bytes, final long position) throws IOException
    {
        long at = position;
        while (bytes.hasRemaining())
        {
            at += channel.write(bytes, at);
        }
    }

    private static String noSpace(final long length, final long usable)
    {
        return String.format(Locale.ROOT, "it needs %,d bytes and the file system has %,d free", length, usable);
    }

    private static long usableSpace(final Path directory)
    {
        try
        {
            return Files.getFileStore(directory).getUsableSpace();
        }
        catch (final IOException ex)
        {
            return -1;
        }
    }

    private static void closeQuietly(final FileChannel channel)
    {
        if (channel == null)
        {
            return;
        }
        try
        {
            channel.close();
        }
        catch (final IOException ignored)
        {
            // Closing a file we only wrote: nothing to recover.
        }
    }
}
