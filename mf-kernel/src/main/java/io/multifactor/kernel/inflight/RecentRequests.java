package io.multifactor.kernel.inflight;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The requests routed to one endpoint (a decision's candidate, or one backend of a model) in a sliding window, as vLLM
 * production-stack's request statistics count them for its QPS ({@code RequestStatsMonitor.on_new_request}, QPS = the
 * requests that arrived in the last {@code --request-stats-window} seconds / that window), and whether any was ever
 * routed (production-stack sends a request first to an endpoint it has no statistics for).
 * <p>
 * The window is cut into {@value #BUCKETS} buckets of {@code window / 64}: one word per bucket packs the bucket's
 * number (its low 40 bits; the bucket of time t is {@code floor(t / width)}) and its count (24 bits, saturating), so
 * a window is exact to one bucket's width. A bucket whose number is not among the last 64 counts nothing.
 * <pre>
 *   words: [ bucket number (40 bits) | count (24 bits) ] x 64
 * </pre>
 * This class is threadsafe: {@link #record} is lock-free (a compare-and-set per request, retried on a race) from any
 * number of threads, {@link #qps} may run at the same time on any thread; neither allocates.
 */
public final class RecentRequests
{
    /** The number of buckets a window is cut into. */
    public static final int BUCKETS = 64;

    private static final int COUNT_BITS = 24;
    private static final long COUNT_MASK = (1L << COUNT_BITS) - 1;
    private static final long NUMBER_MASK = (1L << 40) - 1;
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle EVER;

    static
    {
        try
        {
            EVER = MethodHandles.lookup().findVarHandle(RecentRequests.class, "ever", long.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final long windowNs;
    private final long bucketNs;
    private final long[] words = new long[BUCKETS];
    @SuppressWarnings("unused")
    private volatile long ever;

    /**
     * @param windowNs the sliding window, at least {@value #BUCKETS} nanoseconds.
     * @throws IllegalArgumentException for a shorter window.
     */
    public RecentRequests(final long windowNs)
    {
        if (windowNs < BUCKETS)
        {
            throw new IllegalArgumentException("window must be at least " + BUCKETS + " ns: " + windowNs);
        }
        this.windowNs = windowNs;
        this.bucketNs = windowNs / BUCKETS;
    }

    /** @return the sliding window in nanoseconds. */
    public long windowNs()
    {
        return windowNs;
    }

    /**
     * Counts one request routed at {@code nowNs}. Lock-free; allocates nothing.
     *
     * @param nowNs the clock's time.
     */
    public void record(final long nowNs)
    {
        final long number = Math.floorDiv(nowNs, bucketNs) & NUMBER_MASK;
        final int slot = (int)(number % BUCKETS);
        while (true)
        {
            final long word = (long)LONGS.getVolatile(words, slot);
            final long next = (word >>> COUNT_BITS) == number ?
                ((word & COUNT_MASK) == COUNT_MASK ? word : word + 1) : (number << COUNT_BITS) | 1;
            if (next == word || LONGS.compareAndSet(words, slot, word, next))
            {
                break;
            }
        }
        EVER.getAndAdd(this, 1L);
    }

    /**
     * @param nowNs the clock's time.
     * @return the requests routed in the window that ends at {@code nowNs}, per second of the window.
     */
    public double qps(final long nowNs)
    {
        final long number = Math.floorDiv(nowNs, bucketNs) & NUMBER_MASK;
        long count = 0;
        for (int i = 0; i < BUCKETS; i++)
        {
            final long word = (long)LONGS.getVolatile(words, i);
            if (word != 0 && ((number - (word >>> COUNT_BITS)) & NUMBER_MASK) < BUCKETS)
            {
                count += word & COUNT_MASK;
            }
        }
        return count / (windowNs * 1e-9);
    }

    /** @return whether a request was ever routed here. */
    public boolean everRouted()
    {
        return (long)EVER.getVolatile(this) != 0;
    }
}
