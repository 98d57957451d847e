package io.multifactor.kernel.metrics;

import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersManager;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The counters file as written by {@link CountersFileWriter} and read by {@link CountersFileReader}, on real files:
 * what is written reads back; a file truncated under the writer is written whole again; every way a file can be
 * damaged (halved, random bytes, a crafted label length or capacity, an empty file) is named, never a fault or an
 * allocation the file's length does not bound.
 */
class CountersFileTest
{
    private static final int CAPACITY = 64;

    @TempDir
    Path dir;

    /** Counters in memory this test owns, as the engine's are. */
    private final ByteBuffer values = ByteBuffer.allocateDirect(CAPACITY * CountersReader.COUNTER_LENGTH);
    private final ByteBuffer metadata = ByteBuffer.allocateDirect(CAPACITY * CountersReader.METADATA_LENGTH);
    private final CountersManager manager = new CountersManager(new UnsafeBuffer(metadata), new UnsafeBuffer(values));

    @Test
    void shouldWriteTheWholeFileAtCreationAndReadBackLabelsValuesAndTheHeartbeat() throws Exception
    {
        final int a = manager.allocate("mf.inflight{model=\"a\"}", CounterTypes.INFLIGHT);
        final int b = manager.allocate("mf.drops{model=\"a\",reason=\"tpot\"}", CounterTypes.DROPS);
        manager.setCounterValue(a, 7);
        final Path file = dir.resolve("engine.counters");

        try (CountersFileWriter writer = CountersFileWriter.create(file, values, metadata, CAPACITY, 1_000L))
        {
            assertThat(Files.size(file)).isEqualTo(CountersFileLayout.fileLength(CAPACITY));
            assertThat(Files.getPosixFilePermissions(file)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
            // Reserved, not sparse: every block of the file is allocated at creation.
            assertThat(allocatedBytes(file)).isGreaterThanOrEqualTo(CountersFileLayout.fileLength(CAPACITY));

            manager.setCounterValue(b, 3);
            assertThat(writer.write(2_500L, 2, false)).isTrue();

            final CountersFileReader.Snapshot snapshot = new CountersFileReader().read(file);
            assertThat(snapshot.pid()).isEqualTo(ProcessHandle.current().pid());
            assertThat(snapshot.startEpochMs()).isEqualTo(1_000L);
            assertThat(snapshot.heartbeatEpochMs()).isEqualTo(2_500L);
            assertThat(snapshot.closed()).isFalse();
            assertThat(snapshot.alive(2_500L + CountersFileLayout.STALE_AFTER_MS)).isTrue();
            assertThat(snapshot.alive(2_501L + CountersFileLayout.STALE_AFTER_MS)).isFalse();
            assertThat(labelsAndValues(snapshot.counters())).containsEntry("mf.inflight{model=\"a\"}", 7L)
                .containsEntry("mf.drops{model=\"a\",reason=\"tpot\"}", 3L).hasSize(2);

            writer.close(3_000L, 2);
        }
        final CountersFileReader.Snapshot last = new CountersFileReader().read(file);
        assertThat(last.closed()).isTrue();
        assertThat(last.alive(3_000L)).isFalse();
        assertThat(last.heartbeatEpochMs()).isEqualTo(3_000L);
    }

    @Test
    void shouldWriteTheFileWholeAgainWhenSomeoneTruncatesIt() throws Exception
    {
        final int a = manager.allocate("mf.inflight{model=\"a\"}", CounterTypes.INFLIGHT);
        final Path file = dir.resolve("engine.counters");
        try (CountersFileWriter writer = CountersFileWriter.create(file, values, metadata, CAPACITY, 1_000L))
        {
            for (final long length : new long[] {0L, 100L, CountersFileLayout.fileLength(CAPACITY) / 2})
            {
                try (FileChannel other = FileChannel.open(file, StandardOpenOption.WRITE))
                {
                    other.truncate(length);
                }
                assertThatThrownBy(() -> new CountersFileReader().read(file))
                    .isInstanceOf(DamagedCountersFileException.class);

                manager.setCounterValue(a, length);
                assertThat(writer.write(2_000L + length, 1, false)).isTrue();

                assertThat(Files.size(file)).isEqualTo(CountersFileLayout.fileLength(CAPACITY));
                assertThat(labelsAndValues(new CountersFileReader().read(file).counters()))
                    .containsEntry("mf.inflight{model=\"a\"}", length);
            }
            assertThat(writer.restoredCount()).isEqualTo(3);
            assertThat(writer.failedWriteCount()).isZero();
        }
    }

    @Test
    void shouldRefuseToCreateAFileItCannotWriteWholeWithAMessageNotAFault() throws IOException
    {
        // A path under a regular file fails for every user, root included.
        final Path notADirectory = Files.writeString(dir.resolve("plain"), "x").resolve("engine.counters");

        assertThatThrownBy(() -> CountersFileWriter.create(notADirectory, values, metadata, CAPACITY, 1L))
            .isInstanceOf(UncheckedIOException.class)
            .hasMessageStartingWith("cannot create counters file " + notADirectory + ": ")
            .hasMessageEndingWith("; free space there, lower the counter capacity, or give another counters file");
    }

    @Test
    void shouldNameAHalvedFileAsTruncated() throws Exception
    {
        final Path file = written();
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw"))
        {
            raf.setLength(raf.length() / 2);
        }
        assertThatThrownBy(() -> new CountersFileReader().read(file)).isInstanceOf(DamagedCountersFileException.class)
            .hasMessage(file + ": damaged counters file: length " + CountersFileLayout.fileLength(CAPACITY) / 2 +
                " bytes, its header says " + CountersFileLayout.fileLength(CAPACITY) + " (capacity " + CAPACITY +
                "): truncated");
    }

    @Test
    void shouldNameAFileOfRandomBytesOrEmptyAsDamaged() throws Exception
    {
        final byte[] noise = new byte[(int)CountersFileLayout.fileLength(CAPACITY)];
        new SplittableRandom(7).nextBytes(noise);
        final Path random = Files.write(dir.resolve("random.counters"), noise);
        final Path empty = Files.write(dir.resolve("empty.counters"), new byte[0]);

        assertThatThrownBy(() -> new CountersFileReader().read(random)).isInstanceOf(DamagedCountersFileException.class)
            .hasMessage(random + ": damaged counters file: no MFCNTRS1 marker at its start (not written by an engine " +
                "of this version, or overwritten)");
        assertThatThrownBy(() -> new CountersFileReader().read(empty)).isInstanceOf(DamagedCountersFileException.class)
            .hasMessageContaining("length 0 bytes, shorter than the 128-byte header");
    }

    @Test
    void shouldNameACraftedLabelLengthCapacityOrRecordStateWithoutAllocatingForIt() throws Exception
    {
        final Path file = written();
        final long metadataAt = CountersFileLayout.metadataOffset(CAPACITY);

        overwriteInt(file, metadataAt + CountersReader.LABEL_OFFSET, Integer.MAX_VALUE);
        assertThatThrownBy(() -> new CountersFileReader().read(file)).isInstanceOf(DamagedCountersFileException.class)
            .hasMessage(file + ": damaged counters file: counter 0: label length 2147483647, at most 380");

        overwriteInt(file, metadataAt + CountersReader.LABEL_OFFSET, 5);
        overwriteInt(file, metadataAt + CountersReader.METADATA_LENGTH, 77);
        assertThatThrownBy(() -> new CountersFileReader().read(file)).isInstanceOf(DamagedCountersFileException.class)
            .hasMessage(file + ": damaged counters file: counter 1: record state 77, expected 0, 1 or -1");

        overwriteInt(file, CountersFileLayout.CAPACITY_OFFSET, Integer.MAX_VALUE);
        assertThatThrownBy(() -> new CountersFileReader().read(file)).isInstanceOf(DamagedCountersFileException.class)
            .hasMessageContaining("capacity 2147483647 in its header, expected 1..");

        overwriteInt(file, CountersFileLayout.CAPACITY_OFFSET, CAPACITY * 2);
        assertThatThrownBy(() -> new CountersFileReader().read(file)).isInstanceOf(DamagedCountersFileException.class)
            .hasMessageContaining("its header says " + CountersFileLayout.fileLength(CAPACITY * 2));
    }

    private Path written()
    {
        manager.allocate("mf.inflight{model=\"a\"}", CounterTypes.INFLIGHT);
        manager.allocate("mf.inflight{model=\"b\"}", CounterTypes.INFLIGHT);
        final Path file = dir.resolve("engine.counters");
        CountersFileWriter.create(file, values, metadata, CAPACITY, 1L).close();
        return file;
    }

    private static void overwriteInt(final Path file, final long offset, final int value) throws IOException
    {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE))
        {
            final ByteBuffer bytes = ByteBuffer.allocate(Integer.BYTES).order(java.nio.ByteOrder.nativeOrder());
            bytes.putInt(0, value);
            channel.write(bytes, offset);
        }
    }

    private static long allocatedBytes(final Path file) throws IOException, InterruptedException
    {
        // st_blocks x block unit (stat(1)): what the file system has really set aside for the file.
        final Process stat = new ProcessBuilder("stat", "-c", "%b %B", file.toString()).redirectErrorStream(true).start();
        final String[] blocks = new String(stat.getInputStream().readAllBytes()).strip().split(" ");
        assertThat(stat.waitFor()).isZero();
        return Long.parseLong(blocks[0]) * Long.parseLong(blocks[1]);
    }

    private static Map<String, Long> labelsAndValues(final CountersReader reader)
    {
        final Map<String, Long> found = new HashMap<>();
        reader.forEach((id, typeId, key, label) -> found.put(label, reader.getCounterValue(id)));
        return found;
    }
}
