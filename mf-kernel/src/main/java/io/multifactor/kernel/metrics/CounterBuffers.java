package io.multifactor.kernel.metrics;

import org.agrona.BufferUtil;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersManager;
import org.agrona.concurrent.status.CountersReader;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The buffers that hold every Agrona counter of one engine (the in-flight counts and the metric counters of
 * {@link CounterTypes}), values and metadata, managed by a {@link CountersManager}, always in direct memory the engine
 * owns; with a counters file ({@link #mirroredTo(Path, int)}), also a copy of them in that file, which another process
 * reads with {@link CountersFileReader} (layout: {@link CountersFileLayout}) and which the refresh agent keeps current
 * through {@link #writeFile(long)}. The file is never mapped: nothing another process does to it (truncate it, fill its
 * file system) can fault a thread that counts.
 * <p>
 * Layout in memory (capacity {@code n} counters):
 * <pre>
 *   0                         n * COUNTER_LENGTH                    n * (COUNTER_LENGTH + METADATA_LENGTH)
 *   +-------------------------+--------------------------------------+
 *   | values: n x 128 bytes   | metadata (labels, type ids): n x 512 |
 *   +-------------------------+--------------------------------------+
 * </pre>
 * Memory is never freed explicitly: a late {@code end} or read after the engine closed touches valid memory, and the
 * buffers go away when this object is garbage collected.
 * <p>
 * Counter values are read and changed through {@link #values()} at {@link CountersReader#counterOffset(int)}, atomically
 * from any thread; {@link #allocate(String, int)}, {@link #free(int)}, {@link #retired(int, boolean)},
 * {@link #relabel(int, String)}, {@link #writeFile(long)} and {@link #closeFile(long)} belong to one thread at a time
 * (the engine holds its lock). This class is threadsafe under that contract.
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
    private final ByteBuffer valueBytes;
    private final ByteBuffer metadataBytes;
    private final CountersManager manager;
    private final int capacity;
    private final UnsafeBuffer keyState = new UnsafeBuffer(new byte[Integer.BYTES]);
    private CountersFileWriter file;
    // Under the engine's lock: one more than the highest id ever allocated, and whether metadata changed since written.
    private int used;
    private boolean metadataChanged = true;

    private CounterBuffers(final ByteBuffer memory, final int capacity)
    {
        final int valuesLength = capacity * CountersReader.COUNTER_LENGTH;
        final int metadataLength = capacity * CountersReader.METADATA_LENGTH;
        this.valueBytes = memory.duplicate().position(0).limit(valuesLength).slice();
        this.metadataBytes = memory.duplicate().position(valuesLength).limit(valuesLength + metadataLength).slice();
        this.values = new UnsafeBuffer(valueBytes);
        this.capacity = capacity;
        this.manager = new CountersManager(new UnsafeBuffer(metadataBytes), values);
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
        return new CounterBuffers(BufferUtil.allocateDirectAligned(capacity * BYTES_PER_COUNTER, 4096), capacity);
    }

    /**
     * Counters in direct memory of this process, copied to a new counters file (an existing file is replaced) that
     * another process reads with {@link CountersFileReader}: created readable and writable by its owner only (0600)
     * where the file system supports POSIX permissions, and written whole now, so that its space is reserved (see
     * {@link CountersFileWriter#create}).
     *
     * @param file path of the file.
     * @param capacity number of counters, at least 1.
     * @return the counters.
     * @throws UncheckedIOException when the file cannot be created or written whole, with a message that says why.
     */
    public static CounterBuffers mirroredTo(final Path file, final int capacity)
    {
        final CounterBuffers counters = inMemory(capacity);
        counters.file = CountersFileWriter.create(
            file, counters.valueBytes, counters.metadataBytes, capacity, System.currentTimeMillis());
        counters.metadataChanged = false;
        return counters;
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
     * Reads a counters file, as written through {@link #mirroredTo(Path, int)}, once (see {@link CountersFileReader}).
     *
     * @param file path of the file.
     * @return a reader of its labels and values as they were when read.
     * @throws IllegalArgumentException when the file is damaged (the message says how).
     * @throws UncheckedIOException when it cannot be read.
     */
    public static CountersReader openReader(final Path file)
    {
        try
        {
            return new CountersFileReader().read(file).counters();
        }
        catch (final DamagedCountersFileException ex)
        {
            throw new IllegalArgumentException(ex.getMessage(), ex);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot read counters file " + file, ex);
        }
    }

    /** @return whether the counters are copied to a file. */
    public boolean hasFile()
    {
        return file != null;
    }

    /**
     * Copies the counters in use (values; labels and type ids when they changed) and the heartbeat to the counters
     * file, if there is one; writes it whole when it was truncated. Never throws (failures are counted by the writer
     * and retried at the next call). Off the request path, under the engine's lock.
     *
     * @param nowEpochMs the heartbeat: wall time of the refresh agent's cycle, epoch milliseconds.
     */
    public void writeFile(final long nowEpochMs)
    {
        if (file != null && file.write(nowEpochMs, used, metadataChanged))
        {
            metadataChanged = false;
        }
    }

    /**
     * Writes the counters file one last time, marked closed, and closes it. Under the engine's lock.
     *
     * @param nowEpochMs the last heartbeat.
     */
    public void closeFile(final long nowEpochMs)
    {
        if (file != null)
        {
            file.close(nowEpochMs, used);
        }
    }

    /** @return the writer of the counters file, or null without one (for tests and diagnostics). */
    public CountersFileWriter fileWriter()
    {
        return file;
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
        final int id = manager.allocate(label, typeId);
        used = Math.max(used, id + 1);
        metadataChanged = true;
        return id;
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
        metadataChanged = true;
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
        metadataChanged = true;
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
        metadataChanged = true;
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

    private static void requireCapacity(final int capacity)
    {
        if (capacity < 1 || capacity > (Integer.MAX_VALUE / BYTES_PER_COUNTER))
        {
            throw new IllegalArgumentException("counter capacity out of range: " + capacity);
        }
    }
}
