package io.multifactor.kernel.latency;

import org.HdrHistogram.WriterReaderPhaser;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * Counts samples per {@link BucketLayout} bucket from any number of threads, and hands the counts since the previous
 * drain to one reader at a time, bucket by bucket, visiting only the range of buckets that were written.
 * <p>
 * Two count arrays take turns, as in HdrHistogram's {@code Recorder}: writers increment the active one inside a
 * {@link WriterReaderPhaser} critical section; {@link #drain(BucketCounts)} swaps the arrays, flips the phase (waiting for the
 * writers still on the old array), then reads and zeroes the old array between the lowest and highest bucket written
 * since its last drain. Each array tracks that range itself, so a drain costs in proportion to how spread the interval's
 * samples are, not to the {@link BucketLayout#LENGTH} buckets.
 * <pre>
 *   record: enter phase -&gt; active.counts[i]++ ; lower active.low to i ; raise active.high to i -&gt; exit phase
 *   drain:  swap active/standby -&gt; flip phase -&gt; for i in standby.low..standby.high: into[i] += count; count = 0
 * </pre>
 * Counts are {@code int}: at most 2^31 - 1 samples per bucket between two drains.
 * <p>
 * {@link #record(int)} is wait-free and threadsafe; {@link #drain(BucketCounts)} belongs to one thread at a time.
 */
public final class MultiWriterRecorder
{
    private final WriterReaderPhaser phaser = new WriterReaderPhaser();
    private volatile Counts active = new Counts();
    private Counts standby = new Counts();

    /**
     * Counts one sample. Wait-free, allocates nothing.
     *
     * @param index its {@link BucketLayout} bucket.
     */
    public void record(final int index)
    {
        final long stamp = phaser.writerCriticalSectionEnter();
        try
        {
            final Counts counts = active;
            counts.counts.getAndIncrement(index);
            // The range only widens while writers use this array; the common case is one plain comparison each.
            if (index < counts.low)
            {
                counts.lower(index);
            }
            if (index > counts.high)
            {
                counts.raise(index);
            }
        }
        finally
        {
            phaser.writerCriticalSectionExit(stamp);
        }
    }

    /**
     * Adds every count since the previous drain into {@code into} and zeroes them here. Allocates nothing. One thread at
     * a time.
     *
     * @param into receives the interval's counts.
     * @return the number of samples drained.
     */
    public long drain(final BucketCounts into)
    {
        phaser.readerLock();
        try
        {
            final Counts drained = active;
            active = standby;
            standby = drained;
            // After the flip no writer is inside a critical section that could still touch the drained array.
            phaser.flipPhase();
            final int low = drained.low;
            final int high = drained.high;
            long total = 0;
            final AtomicIntegerArray counts = drained.counts;
            for (int i = low; i <= high; i++)
            {
                final int count = counts.getPlain(i);
                if (count != 0)
                {
                    counts.setPlain(i, 0);
                    total += count;
                    into.add(i, count);
                }
            }
            drained.low = Integer.MAX_VALUE;
            drained.high = -1;
            return total;
        }
        finally
        {
            phaser.readerUnlock();
        }
    }

    /** @return bytes held by the two count arrays. */
    static long footprintBytes()
    {
        return 2L * (16 + 4L * BucketLayout.LENGTH) + 64;
    }

    /**
     * One count array and the range of buckets written since its last drain.
     * <p>
     * Threadsafe for writers (atomic increments, CAS on the range); the drain reads and resets it alone.
     */
    private static final class Counts
    {
        final AtomicIntegerArray counts = new AtomicIntegerArray(BucketLayout.LENGTH);
        volatile int low = Integer.MAX_VALUE;
        volatile int high = -1;

        private static final VarHandle LOW;
        private static final VarHandle HIGH;

        static
        {
            try
            {
                final MethodHandles.Lookup lookup = MethodHandles.lookup();
                LOW = lookup.findVarHandle(Counts.class, "low", int.class);
                HIGH = lookup.findVarHandle(Counts.class, "high", int.class);
            }
            catch (final ReflectiveOperationException ex)
            {
                throw new ExceptionInInitializerError(ex);
            }
        }

        void lower(final int index)
        {
            int current = low;
            while (index < current && !LOW.weakCompareAndSet(this, current, index))
            {
                current = low;
            }
        }

        void raise(final int index)
        {
            int current = high;
            while (index > current && !HIGH.weakCompareAndSet(this, current, index))
            {
                current = high;
            }
        }
    }
}
