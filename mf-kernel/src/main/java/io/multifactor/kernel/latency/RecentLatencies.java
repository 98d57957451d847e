package io.multifactor.kernel.latency;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * The last {@value #CAPACITY} latency samples of one model (or one backend) and the time each was taken: what LiteLLM's
 * {@code latency-based-routing} averages (its {@code max_latency_list_size}, 10). A ring: the eleventh sample
 * overwrites the first. {@link #meanMs} averages the samples not older than a time to live, LiteLLM's {@code ttl}.
 * <pre>
 *   micros: [ v(0) | v(1) | ... | v(9) ]    the sample, microseconds
 *   atNs:   [ t(0) | t(1) | ... | t(9) ]    when it was taken, the engine clock's nanoseconds; EMPTY = never
 * </pre>
 * A writer claims a slot with one atomic add on the count of samples, stores the value (opaque) and then the time
 * (release); a reader loads the time (acquire) and then the value. Two writers meet in one slot only when ten samples
 * race: the slot may then pair one's time with the other's value, both recent samples, which is harmless.
 * <p>
 * This class is threadsafe: {@link #record} is wait-free from any number of threads and {@link #meanMs} may run on any
 * thread at the same time; neither allocates.
 */
public final class RecentLatencies
{
    /** How many samples are kept: LiteLLM's {@code max_latency_list_size} default. */
    public static final int CAPACITY = 10;

    private static final long EMPTY = Long.MIN_VALUE;
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle WRITTEN;

    static
    {
        try
        {
            WRITTEN = MethodHandles.lookup().findVarHandle(RecentLatencies.class, "written", long.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final long[] micros = new long[CAPACITY];
    private final long[] atNs = new long[CAPACITY];
    @SuppressWarnings("unused")
    private volatile long written;

    /** An empty ring. */
    public RecentLatencies()
    {
        Arrays.fill(atNs, EMPTY);
    }

    /**
     * Keeps one sample, replacing the oldest of a full ring. Wait-free; allocates nothing.
     *
     * @param nowNs the clock's time of the sample.
     * @param sampleMicros the sample in microseconds (the caller refuses what is not positive).
     */
    public void record(final long nowNs, final long sampleMicros)
    {
        final int slot = (int)Long.remainderUnsigned((long)WRITTEN.getAndAdd(this, 1L), CAPACITY);
        LONGS.setOpaque(micros, slot, sampleMicros);
        // The time last, released: a reader that sees it sees this value (or a later one of the same slot).
        LONGS.setRelease(atNs, slot, nowNs);
    }

    /**
     * The mean LiteLLM routes by: of the kept samples whose age at {@code nowNs} is at most {@code ttlNs}. Allocates
     * nothing.
     *
     * @param nowNs the clock's time now.
     * @param ttlNs the oldest age a sample may have to count, nanoseconds.
     * @return the mean in milliseconds, or 0 when no sample counts: LiteLLM gives a deployment it has no latency for
     *     the latency 0, so it is tried first.
     */
    public double meanMs(final long nowNs, final long ttlNs)
    {
        long sum = 0;
        int count = 0;
        for (int i = 0; i < CAPACITY; i++)
        {
            final long at = (long)LONGS.getAcquire(atNs, i);
            // A sample taken after nowNs was read (another thread's) is as recent as can be: it counts.
            if (at != EMPTY && nowNs - at <= ttlNs)
            {
                sum += (long)LONGS.getOpaque(micros, i);
                count++;
            }
        }
        return count == 0 ? 0.0 : sum / (count * 1000.0);
    }
}
