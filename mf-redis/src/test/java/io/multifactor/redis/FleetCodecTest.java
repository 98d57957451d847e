package io.multifactor.redis;

import io.multifactor.kernel.fleet.FleetSignals;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class FleetCodecTest
{
    private final FleetCodec codec = new FleetCodec();

    private static FleetSignals signals(final int models)
    {
        final FleetSignals signals = new FleetSignals(Math.max(1, models));
        for (int m = 0; m < models; m++)
        {
            final int index = signals.add("model-" + m);
            for (int i = 1; i <= 50; i++)
            {
                signals.tpot(index).recordValue(1_000L * i + m);
            }
            signals.ttft(index).recordValue(300_000L + m);
        }
        return signals;
    }

    @Test
    void shouldRoundTripEveryModelAndSample()
    {
        final FleetSignals signals = signals(3);
        final FleetCodec.Entry entry = codec.decode(codec.encode(FleetCodec.KIND_FLEET, "agg", List.of("r1", "r2"),
            signals), 8);
        assertThat(entry).isNotNull();
        assertThat(entry.id()).isEqualTo("agg");
        assertThat(entry.contributors()).containsExactly("r1", "r2");
        assertThat(entry.names()).containsExactly("model-0", "model-1", "model-2");
        for (int m = 0; m < 3; m++)
        {
            assertThat(entry.tpot().get(m)).isEqualTo(signals.tpot(m));
            assertThat(entry.ttft().get(m)).isEqualTo(signals.ttft(m));
        }
    }

    @Test
    void shouldRefuseGarbageUnknownVersionTruncatedAndTrailingBytes()
    {
        final byte[] good = codec.encode(FleetCodec.KIND_REPLICA, "r1", List.of(), signals(2));
        final SplittableRandom random = new SplittableRandom(11);
        for (int i = 0; i < 500; i++)
        {
            final byte[] garbage = new byte[random.nextInt(1, 300)];
            for (int b = 0; b < garbage.length; b++)
            {
                garbage[b] = (byte)random.nextInt(256);
            }
            assertThat(codec.decode(garbage, 8)).isNull();
        }
        final byte[] version = good.clone();
        version[2] = 9;
        assertThat(codec.decode(version, 8)).isNull();
        for (int cut = 1; cut < good.length; cut += 7)
        {
            assertThat(codec.decode(java.util.Arrays.copyOf(good, good.length - cut), 8)).isNull();
        }
        assertThat(codec.decode(java.util.Arrays.copyOf(good, good.length + 1), 8)).isNull();
        assertThat(codec.decode(new byte[FleetCodec.MAX_ENTRY_BYTES + 1], 8)).isNull();
        assertThat(codec.decode(null, 8)).isNull();
    }

    @Test
    void shouldRefuseMoreModelsThanTheCapacity()
    {
        final byte[] entry = codec.encode(FleetCodec.KIND_REPLICA, "r1", List.of(), signals(5));
        assertThat(codec.decode(entry, 4)).isNull();
        assertThat(codec.decode(entry, 5)).isNotNull();
    }

    @Test
    void shouldRefuseAHistogramWithAnotherRangeOrPrecision()
    {
        final Histogram wide = new Histogram(1, Long.MAX_VALUE / 4, 2);
        wide.recordValue(1_000);
        assertThat(codec.decode(withTpot(wide), 8)).isNull();
        final Histogram precise = new Histogram(1, 60_000_000L, 4);
        precise.recordValue(1_000);
        assertThat(codec.decode(withTpot(precise), 8)).isNull();
        final Histogram fine = new Histogram(1, 60_000_000L, 2);
        fine.recordValue(1_000);
        assertThat(codec.decode(withTpot(fine), 8)).isNotNull();
    }

    @Test
    void shouldRefuseAHistogramThatDoesNotInflate()
    {
        final Histogram fine = new Histogram(1, 60_000_000L, 2);
        fine.recordValue(1_000);
        final byte[] entry = withTpot(fine);
        // Corrupt the zlib header of the deflate stream (after the entry header, the name, the lengths, the cookie).
        final int deflateStart = 4 + 4 + 2 + 2 + 3 + 4 + 4 + 8;
        entry[deflateStart] ^= 0x5A;
        entry[deflateStart + 1] ^= 0x5A;
        assertThat(codec.decode(entry, 8)).isNull();
    }

    // An entry with one model whose TPOT histogram is encoded as given, bypassing the encoder's own histograms.
    private static byte[] withTpot(final Histogram histogram)
    {
        final ByteBuffer compressed = ByteBuffer.allocate(histogram.getNeededByteBufferCapacity());
        final int length = histogram.encodeIntoCompressedByteBuffer(compressed, 1);
        final ByteBuffer out = ByteBuffer.allocate(64 + length);
        out.put((byte)'M').put((byte)'F').put((byte)FleetCodec.VERSION).put((byte)FleetCodec.KIND_REPLICA);
        out.putShort((short)2).put((byte)'r').put((byte)'1');
        out.putShort((short)0);
        out.putShort((short)1);
        out.putShort((short)1).put((byte)'m');
        out.putInt(0);
        out.putInt(length).put(compressed.array(), 0, length);
        return java.util.Arrays.copyOf(out.array(), out.position());
    }
}
