package io.multifactor.kernel.metrics;

import org.agrona.BufferUtil;
import org.agrona.IoUtil;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersManager;
import org.agrona.concurrent.status.CountersReader;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The buffers that hold every Agrona counter of one engine (the in-flight counts and the metric counters of
 * {@link CounterTypes}), values and metadata, managed by a {@link CountersManager}: plain direct memory, or a
 * memory-mapped file that another process can read with {@link #openReader(Path)}.
 * <p>
 * Layout, in memory and in the file (capacity {@code n} counters):
 * <pre>
 *   0                         n * COUNTER_LENGTH                    n * (COUNTER_LENGTH + METADATA_LENGTH)
 *   +-------------------------+--------------------------------------+
 *   | values: n x 128 bytes   | metadata (labels, type ids): n x 512 |
 *   +-------------------------+--------------------------------------+
 * </pre>
 * Memory is never unmapped or freed explicitly: a late {@code end} or read after the engine closed touches valid memory,
 * and the mapping goes away when this object is garbage collected.
 * <p>
 * Counter values are read and changed through {@link #values()} at {@link CountersReader#counterOffset(int)}, atomically
 * from any thread; {@link #allocate(String, int)} belongs to one thread at a time (the engine holds
 * its lock). This class is threadsafe under that contract.
 */
public final class CounterBuffers
{
    /** Type id of the in-flight counter of one model ({@link CounterTypes#INFLIGHT}). */
    public static final int INFLIGHT_TYPE_ID = CounterTypes.INFLIGHT;

    /** Type id of the error and event counters of the engine ({@link CounterTypes#EVENT}). */
    public static final int EVENT_TYPE_ID = CounterTypes.EVENT;

    /** Bytes of the file per counter of capacity. */
    public static final int BYTES_PER_COUNTER = CountersReader.COUNTER_LENGTH + CountersReader.METADATA_LENGTH;

    private final AtomicBuffer values;
    private final CountersManager manager;
    private final int capacity;
    private final UnsafeBuffer keyState = new UnsafeBuffer(new byte[Integer.BYTES]);

    private CounterBuffers(final AtomicBuffer values, final AtomicBuffer metaData, final int capacity)
    {
        this.values = values;
        this.capacity = capacity;
        this.manager = new CountersManager(metaData, values);
    }

    /**
     * Counters in direct memory of this process.
     *
     * @param capacity number of counters, at least 1.
     * @return the counters.
     */
    public static CounterBuffers inMemory(final int capacity)
    {
        requireCapacity(capacity);
        final UnsafeBuffer buffer =
            new UnsafeBuffer(BufferUtil.allocateDirectAligned(capacity * BYTES_PER_COUNTER, 4096));
        return split(buffer, capacity);
    }

    /**
     * Counters in a new memory-mapped file (an existing file is replaced), readable by another process with
     * {@link #openReader(Path)}. The file is created readable and writable by its owner only (0600) where the file
     * system supports POSIX permissions.
     *
     * @param file path of the file.
     * @param capacity number of counters, at least 1.
     * @return the counters.
     * @throws UncheckedIOException when the file cannot be created or mapped.
     */
    public static CounterBuffers mapped(final Path file, final int capacity)
    {
        requireCapacity(capacity);
        try
        {
            Files.deleteIfExists(file);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot replace counters file " + file, ex);
        }
        final long length = (long)capacity * BYTES_PER_COUNTER;
        try
        {
            if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix"))
            {
                Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            }
            else
            {
                Files.createFile(file);
            }
            try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw"))
            {
                raf.setLength(length);
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot create counters file " + file, ex);
        }
        // A new file reads as zeros (the length was set, not written): every counter record starts unused.
        final MappedByteBuffer mapped = IoUtil.mapExistingFile(file.toFile(), FileChannel.MapMode.READ_WRITE, "counters");
        return split(new UnsafeBuffer(mapped), capacity);
    }

    /**
     * The counters file {@code bin/mf stat} reads when given none: {@code $MF_COUNTERS_FILE} when set, otherwise
     * {@code multi-factor-USER.counters} in {@code /dev/shm} (memory, on Linux) or else in the temporary directory.
     *
     * @return the default path.
     */
    public static Path defaultFile()
    {
        final String fromEnvironment = System.getenv("MF_COUNTERS_FILE");
        if (fromEnvironment != null && !fromEnvironment.isEmpty())
        {
            return Path.of(fromEnvironment);
        }
        final String name = "multi-factor-" + System.getProperty("user.name", "user") + ".counters";
        final Path shm = Path.of("/dev/shm");
        return Files.isDirectory(shm) ? shm.resolve(name) : Path.of(System.getProperty("java.io.tmpdir")).resolve(name);
    }

    /**
     * Maps an existing counters file, as written by {@link #mapped(Path, int)}, for reading from another process.
     *
     * @param file path of the file.
     * @return a reader of its labels and live values.
     * @throws IllegalArgumentException when the file length is not a whole number of counters.
     */
    public static CountersReader openReader(final Path file)
    {
        final MappedByteBuffer mapped =
            IoUtil.mapExistingFile(file.toFile(), FileChannel.MapMode.READ_ONLY, "multi-factor counters");
        final int length = mapped.capacity();
        if (length == 0 || length % BYTES_PER_COUNTER != 0)
        {
            throw new IllegalArgumentException("not a multi-factor counters file (length " + length + "): " + file);
        }
        final int capacity = length / BYTES_PER_COUNTER;
        final UnsafeBuffer buffer = new UnsafeBuffer(mapped);
        final int valuesLength = capacity * CountersReader.COUNTER_LENGTH;
        return new CountersReader(
            new UnsafeBuffer(buffer, valuesLength, length - valuesLength), new UnsafeBuffer(buffer, 0, valuesLength));
    }

    /**
     * Allocates a counter. Off the request path.
     *
     * @param label label shown to readers (at most 380 bytes are kept).
     * @param typeId one of {@link CounterTypes}.
     * @return the counter id.
     * @throws IllegalStateException when every counter is in use.
     */
    public int allocate(final String label, final int typeId)
    {
        if (manager.available() <= 0)
        {
            throw new IllegalStateException("all " + capacity + " counters are in use; raise the counter capacity");
        }
        return manager.allocate(label, typeId);
    }

    /**
     * Frees a counter: its id goes back to the free list and a later {@link #allocate} may reuse it (the value is then
     * zeroed). Off the request path; the caller makes sure nothing counts into it any more.
     *
     * @param counterId an allocated counter id.
     */
    public void free(final int counterId)
    {
        manager.free(counterId);
    }

    /** @return the number of counters that can still be allocated. */
    public int available()
    {
        return manager.available();
    }

    /**
     * Marks a counter live or retired in its key ({@link CounterTypes#KEY_STATE_OFFSET}), for readers. Off the request
     * path.
     *
     * @param counterId an allocated counter id.
     * @param retired whether its model or decision left the plans.
     */
    public void retired(final int counterId, final boolean retired)
    {
        keyState.putInt(0, retired ? CounterTypes.KEY_RETIRED : CounterTypes.KEY_LIVE);
        manager.setCounterKey(counterId, keyState, 0, Integer.BYTES);
    }

    /**
     * Changes the label readers see. Off the request path.
     *
     * @param counterId an allocated counter id.
     * @param label the new label.
     */
    public void relabel(final int counterId, final String label)
    {
        manager.setCounterLabel(counterId, label);
    }

    /**
     * @param counterId a counter id.
     * @return the offset of its value in {@link #values()}.
     */
    public static int valueOffset(final int counterId)
    {
        return CountersReader.counterOffset(counterId);
    }

    /** @return the values buffer; change values only atomically (for example {@code getAndAddLong}). */
    public AtomicBuffer values()
    {
        return values;
    }

    /** @return a reader over the same buffers, for labels and values. */
    public CountersReader reader()
    {
        return manager;
    }

    /**
     * @param counterId a counter id.
     * @return its current value (volatile read).
     */
    public long value(final int counterId)
    {
        return values.getLongVolatile(valueOffset(counterId));
    }

    /** @return the number of counters the buffers hold. */
    public int capacity()
    {
        return capacity;
    }

    private static CounterBuffers split(final UnsafeBuffer buffer, final int capacity)
    {
        final int valuesLength = capacity * CountersReader.COUNTER_LENGTH;
        final UnsafeBuffer values = new UnsafeBuffer(buffer, 0, valuesLength);
        final UnsafeBuffer metaData = new UnsafeBuffer(buffer, valuesLength, capacity * CountersReader.METADATA_LENGTH);
        return new CounterBuffers(values, metaData, capacity);
    }

    private static void requireCapacity(final int capacity)
    {
        if (capacity < 1 || capacity > (Integer.MAX_VALUE / BYTES_PER_COUNTER))
        {
            throw new IllegalArgumentException("counter capacity out of range: " + capacity);
        }
    }
}
