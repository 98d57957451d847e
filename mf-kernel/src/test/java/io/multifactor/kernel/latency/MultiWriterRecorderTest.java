package io.multifactor.kernel.latency;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;

import static org.assertj.core.api.Assertions.assertThat;

class MultiWriterRecorderTest
{
    @Test
    void shouldDrainOnlyWhatWasRecordedSinceTheLastDrain()
    {
        final MultiWriterRecorder recorder = new MultiWriterRecorder();
        final BucketCounts into = new BucketCounts();
        recorder.record(10);
        recorder.record(10);
        recorder.record(700);
        assertThat(recorder.drain(into)).isEqualTo(3);
        assertThat(into.count(10)).isEqualTo(2);
        assertThat(into.count(700)).isEqualTo(1);
        assertThat(into.low()).isEqualTo(10);
        assertThat(into.high()).isEqualTo(700);

        into.clear();
        assertThat(recorder.drain(into)).isZero();
        recorder.record(5);
        assertThat(recorder.drain(into)).isEqualTo(1);
        recorder.record(BucketLayout.LENGTH - 1);
        assertThat(recorder.drain(into)).isEqualTo(1);
        assertThat(into.total()).isEqualTo(2);
        assertThat(into.count(5)).isEqualTo(1);
        assertThat(into.count(10)).isZero();
        assertThat(into.count(BucketLayout.LENGTH - 1)).isEqualTo(1);
    }

    @Test
    void shouldNeverLoseOrInventASampleWhileWritersRaceTheDrain() throws Exception
    {
        final MultiWriterRecorder recorder = new MultiWriterRecorder();
        final int writers = 3;
        final int perWriter = 200_000;
        final AtomicLongArray recorded = new AtomicLongArray(BucketLayout.LENGTH);
        final CountDownLatch start = new CountDownLatch(1);
        final Thread[] threads = new Thread[writers];
        for (int w = 0; w < writers; w++)
        {
            final int seed = w;
            threads[w] = new Thread(() ->
            {
                try
                {
                    start.await();
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                    return;
                }
                int index = seed * 97;
                for (int k = 0; k < perWriter; k++)
                {
                    index = (index * 31 + 17) % BucketLayout.LENGTH;
                    recorder.record(index);
                    recorded.incrementAndGet(index);
                }
            });
            threads[w].start();
        }
        final BucketCounts drained = new BucketCounts();
        final BucketCounts interval = new BucketCounts();
        final AtomicBoolean done = new AtomicBoolean();
        start.countDown();
        long drains = 0;
        while (!done.get())
        {
            done.set(!threads[0].isAlive() && !threads[1].isAlive() && !threads[2].isAlive());
            recorder.drain(interval);
            drained.addAll(interval);
            interval.clear();
            drains++;
        }
        recorder.drain(drained);
        assertThat(drains).isGreaterThan(1);
        assertThat(drained.total()).isEqualTo((long)writers * perWriter);
        for (int i = 0; i < BucketLayout.LENGTH; i++)
        {
            assertThat((long)drained.count(i)).as("bucket %d", i).isEqualTo(recorded.get(i));
        }
    }
}
