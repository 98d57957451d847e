package io.multifactor.kernel.metrics;

import org.agrona.concurrent.status.CountersReader;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The layout of a counters file: a header, then the values and the metadata of an Agrona {@code CountersManager}
 * (capacity {@code n} counters), as the engine writes it and {@code bin/mf stat} reads it.
 * <pre>
 *   0        128                       128 + n * 128                       128 + n * 640
 *   +--------+-------------------------+-----------------------------------+
 *   | header | values: n x 128 bytes   | metadata (labels, type ids): n x 512 |
 *   +--------+-------------------------+-----------------------------------+
 *
 *   header   0  long  magic "MFCNTRS1"                 24  long  engine start, epoch ms
 *            8  int   layout version (1)               32  long  heartbeat: the refresh agent's last cycle, epoch ms
 *           12  int   capacity n                       40  int   state: 1 running, 2 closed
 *           16  long  process id of the engine
 * </pre>
 * Numbers are in the machine's byte order (the file is read on the machine that writes it).
 * <p>
 * This class is stateless and threadsafe.
 */
public final class CountersFileLayout
{
    /** Bytes of the header. */
    public static final int HEADER_LENGTH = 128;

    /** The first 8 bytes: {@code MFCNTRS1} as a long in the machine's byte order. */
    public static final long MAGIC = magic();

    /** The layout version this class describes. */
    public static final int VERSION = 1;

    /** Offset of the magic (long). */
    public static final int MAGIC_OFFSET = 0;
    /** Offset of the layout version (int). */
    public static final int VERSION_OFFSET = 8;
    /** Offset of the capacity in counters (int). */
    public static final int CAPACITY_OFFSET = 12;
    /** Offset of the engine's process id (long). */
    public static final int PID_OFFSET = 16;
    /** Offset of the engine's start time, epoch milliseconds (long). */
    public static final int START_EPOCH_MS_OFFSET = 24;
    /** Offset of the heartbeat, epoch milliseconds of the refresh agent's last cycle (long). */
    public static final int HEARTBEAT_EPOCH_MS_OFFSET = 32;
    /** Offset of the state (int): {@link #STATE_RUNNING} or {@link #STATE_CLOSED}. */
    public static final int STATE_OFFSET = 40;

    /** State of a file whose engine runs (or died without closing). */
    public static final int STATE_RUNNING = 1;
    /** State of a file whose engine was closed. */
    public static final int STATE_CLOSED = 2;

    /** How often, at most, the engine writes the heartbeat and the values: every this many milliseconds. */
    public static final long HEARTBEAT_INTERVAL_MS = 250L;

    /** A heartbeat older than this means the engine is not alive (dead, hung, or without a refresh agent). */
    public static final long STALE_AFTER_MS = 3_000L;

    /** Bytes per counter of capacity after the header. */
    public static final int BYTES_PER_COUNTER = CountersReader.COUNTER_LENGTH + CountersReader.METADATA_LENGTH;

    /** The largest capacity a file may declare (a 1 GiB file). */
    public static final int MAX_CAPACITY = (int)((1L << 30) / BYTES_PER_COUNTER);

    private CountersFileLayout()
    {
    }

    /**
     * @param capacity counters.
     * @return the file's length in bytes.
     */
    public static long fileLength(final int capacity)
    {
        return HEADER_LENGTH + (long)capacity * BYTES_PER_COUNTER;
    }

    /** @return the offset of the values. */
    public static int valuesOffset()
    {
        return HEADER_LENGTH;
    }

    /**
     * @param capacity counters.
     * @return the offset of the metadata.
     */
    public static long metadataOffset(final int capacity)
    {
        return HEADER_LENGTH + (long)capacity * CountersReader.COUNTER_LENGTH;
    }

    private static long magic()
    {
        return ByteBuffer.wrap("MFCNTRS1".getBytes(StandardCharsets.US_ASCII)).order(ByteOrder.nativeOrder()).getLong(0);
    }
}
