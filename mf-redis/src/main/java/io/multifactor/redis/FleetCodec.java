package io.multifactor.redis;

import io.multifactor.kernel.fleet.FleetSignals;
import io.multifactor.kernel.latency.LatencyWindow;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * The binary format of an interval entry in Redis: one replica's latency intervals of one latency period, or the
 * fleet's aggregate of them. Versioned; every histogram is HdrHistogram's compressed encoding.
 * <pre>
 *   'M' 'F' | version (1 byte) | kind (1 byte: 1 replica, 2 fleet)
 *   id: u16 length + UTF-8                (replica id, or the aggregating replica's id)
 *   contributors: u16 count, each u16 length + UTF-8   (kind 2 only: replicas merged into it)
 *   models: u16 count, each:
 *     name: u16 length + UTF-8
 *     ttft: i32 length (0 = no sample) + compressed histogram
 *     tpot: i32 length (0 = no sample) + compressed histogram
 * </pre>
 * What is read is untrusted: {@link #decode} checks the version, every length against a limit, each histogram's
 * header (range and precision of the engine's windows) before it is inflated, and each count (positive, within range)
 * after; an entry with any fault is refused whole, so nothing of it reaches a window.
 * <p>
 * This class is not threadsafe: it keeps buffers for reuse; use one instance per thread.
 */
public final class FleetCodec
{
    /** Format version written; entries of another version are refused. */
    public static final int VERSION = 1;

    /** Kind of an entry written by one replica. */
    public static final int KIND_REPLICA = 1;

    /** Kind of the fleet's aggregate of one latency period. */
    public static final int KIND_FLEET = 2;

    /** Largest entry read or written, in bytes. */
    public static final int MAX_ENTRY_BYTES = 1 << 20;

    /** Largest compressed histogram, in bytes. */
    public static final int MAX_HISTOGRAM_BYTES = 32 * 1024;

    /** Longest model name or replica id, in UTF-8 bytes. */
    public static final int MAX_NAME_BYTES = 256;

    /** Most contributors listed in an aggregate. */
    public static final int MAX_CONTRIBUTORS = 4096;

    /** Most samples one histogram of an entry may hold. */
    public static final long MAX_SAMPLES = 1L << 40;

    private static final byte MAGIC_0 = 'M';
    private static final byte MAGIC_1 = 'F';
    private static final int HISTOGRAM_HEADER_BYTES = 40;

    /** Most bytes of one inflated histogram: its header and a counts payload of at most 4096 varints. */
    private static final int MAX_PLAIN_BYTES = HISTOGRAM_HEADER_BYTES + 9 * 4096;

    /** HdrHistogram's cookie of a compressed encoding (taken from HdrHistogram itself). */
    private static final int COMPRESSED_COOKIE = compressedCookie();

    // One deflater and one inflater for every histogram: HdrHistogram's own encoder makes a new zlib stream per call.
    private final Deflater deflater = new Deflater(1);
    private final Inflater inflater = new Inflater();
    private final byte[] plainIn = new byte[MAX_PLAIN_BYTES];
    private ByteBuffer plainOut = ByteBuffer.allocate(MAX_PLAIN_BYTES);
    private byte[] deflated = new byte[MAX_PLAIN_BYTES + 64];
    private ByteBuffer out = ByteBuffer.allocate(16 * 1024);

    /**
     * A decoded entry. Instances are immutable once returned and belong to the caller.
     *
     * @param kind {@link #KIND_REPLICA} or {@link #KIND_FLEET}.
     * @param id the writing replica's id.
     * @param contributors replicas merged into an aggregate (empty for a replica entry).
     * @param names model names.
     * @param ttft TTFT intervals, null where the model has none.
     * @param tpot TPOT intervals, null where the model has none.
     */
    public record Entry(int kind, String id, List<String> contributors, List<String> names, List<Histogram> ttft,
        List<Histogram> tpot)
    {
    }

    /**
     * Encodes the intervals of {@code signals} (models without any sample are left out).
     *
     * @param kind {@link #KIND_REPLICA} or {@link #KIND_FLEET}.
     * @param id the writing replica's id.
     * @param contributors replicas merged into an aggregate, or an empty list.
     * @param signals the intervals.
     * @return the entry's bytes.
     * @throws IllegalArgumentException when the entry would exceed {@link #MAX_ENTRY_BYTES} or a name is too long.
     */
    public byte[] encode(final int kind, final String id, final List<String> contributors, final FleetSignals signals)
    {
        out.clear();
        put(4).put(MAGIC_0).put(MAGIC_1).put((byte)VERSION).put((byte)kind);
        putString(id);
        final int contributorCount = Math.min(contributors.size(), MAX_CONTRIBUTORS);
        put(2).putShort((short)contributorCount);
        for (int i = 0; i < contributorCount; i++)
        {
            putString(contributors.get(i));
        }
        int models = 0;
        for (int i = 0; i < signals.size(); i++)
        {
            if (signals.ttft(i).getTotalCount() != 0 || signals.tpot(i).getTotalCount() != 0)
            {
                models++;
            }
        }
        put(2).putShort((short)models);
        for (int i = 0; i < signals.size(); i++)
        {
            if (signals.ttft(i).getTotalCount() == 0 && signals.tpot(i).getTotalCount() == 0)
            {
                continue;
            }
            putString(signals.name(i));
            putHistogram(signals.ttft(i));
            putHistogram(signals.tpot(i));
        }
        final byte[] bytes = new byte[out.position()];
        out.flip();
        out.get(bytes);
        return bytes;
    }

    /**
     * Decodes an entry, checking everything.
     *
     * @param bytes the entry as read from Redis.
     * @param maxModels the most models accepted (the receiving side's capacity).
     * @return the entry, or null when it is refused (garbage, unknown version, oversized, out of range, too many
     *     models).
     */
    public Entry decode(final byte[] bytes, final int maxModels)
    {
        if (bytes == null || bytes.length < 8 || bytes.length > MAX_ENTRY_BYTES)
        {
            return null;
        }
        try
        {
            final ByteBuffer in = ByteBuffer.wrap(bytes);
            if (in.get() != MAGIC_0 || in.get() != MAGIC_1 || in.get() != VERSION)
            {
                return null;
            }
            final int kind = in.get();
            if (kind != KIND_REPLICA && kind != KIND_FLEET)
            {
                return null;
            }
            final String id = getString(in);
            final int contributorCount = Short.toUnsignedInt(in.getShort());
            if (id == null || contributorCount > MAX_CONTRIBUTORS || (kind == KIND_REPLICA && contributorCount != 0))
            {
                return null;
            }
            final List<String> contributors = new ArrayList<>(contributorCount);
            for (int i = 0; i < contributorCount; i++)
            {
                final String contributor = getString(in);
                if (contributor == null)
                {
                    return null;
                }
                contributors.add(contributor);
            }
            final int models = Short.toUnsignedInt(in.getShort());
            if (models > maxModels)
            {
                return null;
            }
            final List<String> names = new ArrayList<>(models);
            final List<Histogram> ttft = new ArrayList<>(models);
            final List<Histogram> tpot = new ArrayList<>(models);
            for (int i = 0; i < models; i++)
            {
                final String name = getString(in);
                if (name == null || name.isEmpty() || names.contains(name))
                {
                    return null;
                }
                names.add(name);
                final Histogram t = getHistogram(in);
                final Histogram p = t == INVALID ? INVALID : getHistogram(in);
                if (t == INVALID || p == INVALID)
                {
                    return null;
                }
                ttft.add(t);
                tpot.add(p);
            }
            if (in.hasRemaining())
            {
                return null;
            }
            return new Entry(kind, id, contributors, names, ttft, tpot);
        }
        catch (final BufferUnderflowException | IllegalArgumentException ex)
        {
            return null;
        }
    }

    private static final Histogram INVALID = new Histogram(1, 2, 0);

    private Histogram getHistogram(final ByteBuffer in)
    {
        final int length = in.getInt();
        if (length == 0)
        {
            return null;
        }
        if (length < 8 || length > MAX_HISTOGRAM_BYTES || length > in.remaining())
        {
            return INVALID;
        }
        // Inflate with the reused inflater into a bounded buffer, check the plain header, then decode the plain form.
        final int start = in.position();
        in.position(start + length);
        final ByteBuffer compressed = ByteBuffer.wrap(in.array(), start, length).slice();
        if (compressed.getInt() != COMPRESSED_COOKIE)
        {
            return INVALID;
        }
        final int contentLength = compressed.getInt();
        if (contentLength <= 0 || contentLength != length - 8)
        {
            return INVALID;
        }
        final int plainLength = inflate(in.array(), start + 8, contentLength);
        if (plainLength < HISTOGRAM_HEADER_BYTES || !headerFits(plainLength))
        {
            return INVALID;
        }
        final Histogram histogram;
        try
        {
            histogram = Histogram.decodeFromByteBuffer(ByteBuffer.wrap(plainIn, 0, plainLength), 0);
        }
        catch (final RuntimeException ex)
        {
            return INVALID;
        }
        if (histogram.getLowestDiscernibleValue() != 1 ||
            histogram.getHighestTrackableValue() > 2 * LatencyWindow.MAX_TRACKABLE_MICROS ||
            histogram.getNumberOfSignificantValueDigits() != LatencyWindow.SIGNIFICANT_DIGITS)
        {
            return INVALID;
        }
        long total = 0;
        for (final HistogramIterationValue value : histogram.recordedValues())
        {
            final long count = value.getCountAtValueIteratedTo();
            if (count <= 0 || value.getValueIteratedTo() > LatencyWindow.MAX_TRACKABLE_MICROS)
            {
                return INVALID;
            }
            total += count;
            if (total > MAX_SAMPLES)
            {
                return INVALID;
            }
        }
        return total == 0 ? null : histogram;
    }

    // The whole stream must inflate to at most MAX_PLAIN_BYTES: a forged stream cannot make the decoder allocate more.
    private int inflate(final byte[] source, final int offset, final int length)
    {
        inflater.reset();
        inflater.setInput(source, offset, length);
        try
        {
            int read = 0;
            while (!inflater.finished())
            {
                if (read == plainIn.length)
                {
                    return -1;
                }
                final int n = inflater.inflate(plainIn, read, plainIn.length - read);
                if (n == 0 && (inflater.needsInput() || inflater.needsDictionary()))
                {
                    return -1;
                }
                read += n;
            }
            return read;
        }
        catch (final DataFormatException ex)
        {
            return -1;
        }
    }

    // The plain header: range and precision of the engine's windows, a payload that fits what was inflated.
    private boolean headerFits(final int plainLength)
    {
        final ByteBuffer h = ByteBuffer.wrap(plainIn, 0, HISTOGRAM_HEADER_BYTES);
        h.getInt();
        final int payloadLength = h.getInt();
        h.getInt();
        final int digits = h.getInt();
        final long lowest = h.getLong();
        final long highest = h.getLong();
        return payloadLength >= 0 && payloadLength <= plainLength - HISTOGRAM_HEADER_BYTES &&
            digits == LatencyWindow.SIGNIFICANT_DIGITS && lowest == 1 && highest >= 2 &&
            highest <= 2 * LatencyWindow.MAX_TRACKABLE_MICROS;
    }

    private static String getString(final ByteBuffer in)
    {
        final int length = Short.toUnsignedInt(in.getShort());
        if (length > MAX_NAME_BYTES || length > in.remaining())
        {
            return null;
        }
        final byte[] bytes = new byte[length];
        in.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private void putString(final String value)
    {
        final byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > MAX_NAME_BYTES)
        {
            throw new IllegalArgumentException("name longer than " + MAX_NAME_BYTES + " bytes: " + value);
        }
        put(2 + bytes.length).putShort((short)bytes.length).put(bytes);
    }

    // HdrHistogram's compressed encoding (cookie, length, deflate of the plain encoding), with a reused deflater.
    private void putHistogram(final Histogram histogram)
    {
        if (histogram.getTotalCount() == 0)
        {
            put(4).putInt(0);
            return;
        }
        final int needed = histogram.getNeededByteBufferCapacity();
        if (plainOut.capacity() < needed)
        {
            plainOut = ByteBuffer.allocate(needed);
            deflated = new byte[needed + 64];
        }
        plainOut.clear();
        final int plainLength = histogram.encodeIntoByteBuffer(plainOut);
        deflater.reset();
        deflater.setInput(plainOut.array(), 0, plainLength);
        deflater.finish();
        int length = 0;
        while (!deflater.finished())
        {
            if (length == deflated.length)
            {
                deflated = java.util.Arrays.copyOf(deflated, deflated.length * 2);
            }
            length += deflater.deflate(deflated, length, deflated.length - length);
        }
        put(12 + length).putInt(8 + length).putInt(COMPRESSED_COOKIE).putInt(length).put(deflated, 0, length);
    }

    private static int compressedCookie()
    {
        final Histogram one = new Histogram(1, 2, 0);
        final ByteBuffer buffer = ByteBuffer.allocate(one.getNeededByteBufferCapacity());
        one.encodeIntoCompressedByteBuffer(buffer, 1);
        return buffer.getInt(0);
    }

    private ByteBuffer put(final int bytes)
    {
        if (out.remaining() < bytes)
        {
            final int capacity = Math.max(out.capacity() * 2, out.position() + bytes);
            if (capacity > MAX_ENTRY_BYTES)
            {
                throw new IllegalArgumentException("fleet entry larger than " + MAX_ENTRY_BYTES + " bytes");
            }
            final ByteBuffer bigger = ByteBuffer.allocate(capacity);
            out.flip();
            bigger.put(out);
            out = bigger;
        }
        return out;
    }
}
