package io.multifactor.kernel.metrics;

import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersReader;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Reads a counters file written by an engine (see {@link CountersFileLayout}) from another process, the way
 * {@code bin/mf stat} does: the whole file is copied with ordinary reads into a buffer this reader owns, then checked,
 * then decoded. The file is never mapped, so a file truncated or replaced while it is read can only give a
 * {@link DamagedCountersFileException}, never a fault; every length and record is checked before it is used, so a
 * damaged or crafted file cannot make the reader allocate more than its own buffer (at most the file's declared length,
 * bounded by {@link CountersFileLayout#MAX_CAPACITY}).
 * <p>
 * Each {@link #read(Path)} reuses the buffer: a {@link Snapshot} is valid until the next read. This class is not
 * threadsafe: one thread reads.
 */
public final class CountersFileReader
{
    private ByteBuffer copy = ByteBuffer.allocateDirect(0);

    /** One read of a counters file: its header and a reader over its counters as they were at the read. */
    public static final class Snapshot
    {
        private final long pid;
        private final long startEpochMs;
        private final long heartbeatEpochMs;
        private final int state;
        private final int capacity;
        private final CountersReader counters;

        Snapshot(final UnsafeBuffer header, final CountersReader counters)
        {
            this.pid = header.getLong(CountersFileLayout.PID_OFFSET);
            this.startEpochMs = header.getLong(CountersFileLayout.START_EPOCH_MS_OFFSET);
            this.heartbeatEpochMs = header.getLong(CountersFileLayout.HEARTBEAT_EPOCH_MS_OFFSET);
            this.state = header.getInt(CountersFileLayout.STATE_OFFSET);
            this.capacity = header.getInt(CountersFileLayout.CAPACITY_OFFSET);
            this.counters = counters;
        }

        /** @return the engine's process id. */
        public long pid()
        {
            return pid;
        }

        /** @return when the engine started, epoch milliseconds (a restarted engine has a new one). */
        public long startEpochMs()
        {
            return startEpochMs;
        }

        /** @return the refresh agent's last cycle, epoch milliseconds. */
        public long heartbeatEpochMs()
        {
            return heartbeatEpochMs;
        }

        /** @return whether the engine was closed (it wrote {@link CountersFileLayout#STATE_CLOSED}). */
        public boolean closed()
        {
            return state == CountersFileLayout.STATE_CLOSED;
        }

        /**
         * @param nowEpochMs the reader's clock.
         * @return whether the engine is alive: not closed, and its heartbeat at most
         *     {@link CountersFileLayout#STALE_AFTER_MS} old.
         */
        public boolean alive(final long nowEpochMs)
        {
            return !closed() && nowEpochMs - heartbeatEpochMs <= CountersFileLayout.STALE_AFTER_MS;
        }

        /** @return the number of counters the file holds. */
        public int capacity()
        {
            return capacity;
        }

        /** @return the counters (labels, type ids, keys and values, every record checked), until the next read. */
        public CountersReader counters()
        {
            return counters;
        }
    }

    /**
     * @param file the counters file.
     * @return what it holds now.
     * @throws IOException when it cannot be read (missing: {@link java.nio.file.NoSuchFileException}).
     * @throws DamagedCountersFileException when it is not a whole counters file of a known layout.
     */
    public Snapshot read(final Path file) throws IOException, DamagedCountersFileException
    {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ))
        {
            final long size = channel.size();
            if (size < CountersFileLayout.HEADER_LENGTH)
            {
                throw new DamagedCountersFileException(file, "length " + size + " bytes, shorter than the " +
                    CountersFileLayout.HEADER_LENGTH + "-byte header (truncated, or not a counters file)");
            }
            final ByteBuffer headerBytes = ByteBuffer.allocateDirect(CountersFileLayout.HEADER_LENGTH);
            readFully(channel, headerBytes, 0L, file);
            final UnsafeBuffer header = new UnsafeBuffer(headerBytes);
            final int capacity = checkHeader(file, header, size);
            final long length = CountersFileLayout.fileLength(capacity);
            if (copy.capacity() < length)
            {
                copy = ByteBuffer.allocateDirect((int)length).order(ByteOrder.nativeOrder());
            }
            final ByteBuffer whole = copy.duplicate();
            whole.clear().limit((int)length);
            readFully(channel, whole, 0L, file);
            final UnsafeBuffer image = new UnsafeBuffer(copy, 0, (int)length);
            // The header again, from the same copy as the counters (the engine may have written it in between).
            final UnsafeBuffer copiedHeader = new UnsafeBuffer(copy, 0, CountersFileLayout.HEADER_LENGTH);
            checkHeader(file, copiedHeader, length);
            final int valuesLength = capacity * CountersReader.COUNTER_LENGTH;
            final UnsafeBuffer values = new UnsafeBuffer(image, CountersFileLayout.valuesOffset(), valuesLength);
            final UnsafeBuffer metadata = new UnsafeBuffer(
                image, (int)CountersFileLayout.metadataOffset(capacity), capacity * CountersReader.METADATA_LENGTH);
            checkRecords(file, metadata, capacity);
            return new Snapshot(copiedHeader, new CountersReader(metadata, values));
        }
    }

    private static int checkHeader(final Path file, final UnsafeBuffer header, final long size)
        throws DamagedCountersFileException
    {
        if (header.getLong(CountersFileLayout.MAGIC_OFFSET) != CountersFileLayout.MAGIC)
        {
            throw new DamagedCountersFileException(file, "no MFCNTRS1 marker at its start (not written by an engine " +
                "of this version, or overwritten)");
        }
        final int version = header.getInt(CountersFileLayout.VERSION_OFFSET);
        if (version != CountersFileLayout.VERSION)
        {
            throw new DamagedCountersFileException(file, "layout version " + version + ", this reader knows version " +
                CountersFileLayout.VERSION);
        }
        final int capacity = header.getInt(CountersFileLayout.CAPACITY_OFFSET);
        if (capacity < 1 || capacity > CountersFileLayout.MAX_CAPACITY)
        {
            throw new DamagedCountersFileException(file, "capacity " + capacity + " in its header, expected 1.." +
                CountersFileLayout.MAX_CAPACITY);
        }
        final long expected = CountersFileLayout.fileLength(capacity);
        if (size != expected)
        {
            throw new DamagedCountersFileException(file, "length " + size + " bytes, its header says " + expected +
                " (capacity " + capacity + ")" + (size < expected ? ": truncated" : ""));
        }
        final int state = header.getInt(CountersFileLayout.STATE_OFFSET);
        if (state != CountersFileLayout.STATE_RUNNING && state != CountersFileLayout.STATE_CLOSED)
        {
            throw new DamagedCountersFileException(file, "engine state " + state + " in its header, expected " +
                CountersFileLayout.STATE_RUNNING + " (running) or " + CountersFileLayout.STATE_CLOSED + " (closed)");
        }
        return capacity;
    }

    private static void checkRecords(final Path file, final UnsafeBuffer metadata, final int capacity)
        throws DamagedCountersFileException
    {
        for (int id = 0; id < capacity; id++)
        {
            final int offset = id * CountersReader.METADATA_LENGTH;
            final int recordState = metadata.getInt(offset);
            if (recordState == CountersReader.RECORD_UNUSED)
            {
                continue;
            }
            if (recordState != CountersReader.RECORD_ALLOCATED && recordState != CountersReader.RECORD_RECLAIMED)
            {
                throw new DamagedCountersFileException(file, "counter " + id + ": record state " + recordState +
                    ", expected " + CountersReader.RECORD_UNUSED + ", " + CountersReader.RECORD_ALLOCATED + " or " +
                    CountersReader.RECORD_RECLAIMED);
            }
            final int labelLength = metadata.getInt(offset + CountersReader.LABEL_OFFSET);
            if (labelLength < 0 || labelLength > CountersReader.MAX_LABEL_LENGTH)
            {
                throw new DamagedCountersFileException(file, "counter " + id + ": label length " + labelLength +
                    ", at most " + CountersReader.MAX_LABEL_LENGTH);
            }
        }
    }

    private static void readFully(final FileChannel channel, final ByteBuffer into, final long position, final Path file)
        throws IOException, DamagedCountersFileException
    {
        long at = position;
        while (into.hasRemaining())
        {
            final int read = channel.read(into, at);
            if (read < 0)
            {
                throw new DamagedCountersFileException(file, "it became shorter while it was read (truncated or " +
                    "replaced): " + at + " bytes read");
            }
            at += read;
        }
    }
}
