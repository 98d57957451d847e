package io.multifactor.kernel.inflight;

import io.multifactor.api.InflightTracker;
import org.agrona.concurrent.AtomicBuffer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntConsumer;

/**
 * A fixed table of leases: each request in flight holds one slot that remembers which counter it incremented and when
 * it started, so that it is counted out exactly once, by its {@code end} or by the sweep of stale leases.
 * <p>
 * A lease is a primitive {@code long}: the slot index and the slot's generation, scrambled so that small or simple
 * values are never valid. Each slot has a state word:
 * <pre>
 *   word = generation &lt;&lt; 2 | state        state: FREE (0), CLAIMING (1), BUSY (2)
 *   increment (acquire) or check-and-increment (acquireWithin), then
 *   FREE(g) --CAS--&gt; CLAIMING(g+1) --write counter offset, start--&gt; BUSY(g+1) (release store)
 *   BUSY(g) --release or sweep CAS--&gt; FREE(g), then decrement
 * </pre>
 * The counter is raised before the lease exists, so a racing end never drives it below zero; when no slot is free the
 * increment is taken back.
 * Only the CAS from BUSY(g) to FREE(g) decrements, so a lease is counted out at most once: a second end, an end after
 * the sweep reclaimed the lease, or a value that is not a live lease finds a different word and changes nothing. The
 * generation never repeats for a slot (it wraps after 2^39 uses), so a stale lease never matches a newer one.
 * <p>
 * A full table degrades without throwing and in bounded time: when {@link #acquire(int, long)} finds no free slot
 * among {@link #MAX_PROBES} (the whole table when it is smaller), it returns {@link InflightTracker#NO_LEASE}, does not
 * count the request in flight (load is under-counted rather than leaked) and counts the event in {@link #fullCount()}.
 * Size the table well above the peak number of requests in flight (a table more than ~99% full starts to refuse).
 * <p>
 * {@link #acquire}, {@link #acquireWithin} and {@link #release} are lock-free and allocation-free from any number of
 * threads; {@link #sweep} belongs to one thread at a time. This class is threadsafe under that contract.
 */
public final class LeaseTable
{
    private static final VarHandle WORDS = MethodHandles.arrayElementVarHandle(long[].class);

    private static final long FREE = 0;
    private static final long CLAIMING = 1;
    private static final long BUSY = 2;
    private static final long STATE_MASK = 3;

    private static final int SLOT_BITS = 24;
    private static final long SLOT_MASK = (1L << SLOT_BITS) - 1;
    private static final long MAX_GENERATION = (1L << (63 - SLOT_BITS)) - 1;
    // Low 24 bits all ones: a scrambled lease is never 0 (NO_LEASE) because no slot index reaches SLOT_MASK.
    private static final long SCRAMBLE = 0x5DEE_CE66_DA3B_FFFFL & ~(1L << 63) | SLOT_MASK;

    /** Largest table: slot indices must stay below {@code 2^24 - 1}. */
    public static final int MAX_CAPACITY = 1 << 23;

    private static final int FAST_PROBES = 8;

    /** {@link #acquireWithin} of a counter already at its maximum: nothing counted. Never a lease (leases are >= 0). */
    public static final long AT_LIMIT = -1L;

    /** Most slots one {@link #acquire} looks at before it gives up (the whole table when smaller). */
    public static final int MAX_PROBES = 1_024;

    private final long[] words;
    private final long[] startNs;
    private final int[] counterOffsets;
    private final int mask;
    private final AtomicBuffer values;
    private final int fullOffset;
    private final int reclaimedOffset;

    /**
     * @param capacity number of slots, a power of two in 2..{@link #MAX_CAPACITY}.
     * @param values the counters' values buffer, where every counter offset passed in lives.
     * @param fullOffset value offset of the counter of acquisitions refused because the table was full.
     * @param reclaimedOffset value offset of the counter of leases reclaimed by the sweep.
     */
    public LeaseTable(final int capacity, final AtomicBuffer values, final int fullOffset, final int reclaimedOffset)
    {
        if (capacity < 2 || capacity > MAX_CAPACITY || Integer.bitCount(capacity) != 1)
        {
            throw new IllegalArgumentException("lease capacity must be a power of two in 2.." + MAX_CAPACITY + ": " + capacity);
        }
        this.words = new long[capacity];
        this.startNs = new long[capacity];
        this.counterOffsets = new int[capacity];
        this.mask = capacity - 1;
        this.values = values;
        this.fullOffset = fullOffset;
        this.reclaimedOffset = reclaimedOffset;
    }

    /**
     * Counts one request in flight on the counter at {@code counterOffset} and returns its lease. Lock-free, allocates
     * nothing, never throws.
     *
     * @param counterOffset value offset of the counter to increment.
     * @param nowNs start time, compared with the max age by {@link #sweep}.
     * @return the lease, or {@link InflightTracker#NO_LEASE} when the table is full (nothing counted).
     */
    public long acquire(final int counterOffset, final long nowNs)
    {
        values.getAndAddLong(counterOffset, 1);
        return claim(counterOffset, nowNs);
    }

    /**
     * Counts one request in flight on the counter at {@code counterOffset} only if that keeps the counter at or below
     * {@code maxCount} (an atomic check-and-increment: a CAS loop on the counter), and returns its lease. Lock-free,
     * allocates nothing, never throws.
     * <p>
     * The counter is raised before a slot is claimed, so under any number of threads the counter never exceeds
     * {@code maxCount} through this method (a plain {@link #acquire} or another writer of the counter may still raise
     * it); a full table takes the increment back.
     *
     * @param counterOffset value offset of the counter to increment.
     * @param maxCount the largest value the counter may reach, at least 1.
     * @param nowNs start stamp, compared with the cutoff by {@link #sweep}.
     * @return the lease; {@link #AT_LIMIT} when the counter is already at or above {@code maxCount} (nothing counted);
     *     {@link InflightTracker#NO_LEASE} when the table is full (nothing counted).
     */
    public long acquireWithin(final int counterOffset, final long maxCount, final long nowNs)
    {
        final AtomicBuffer values = this.values;
        while (true)
        {
            final long count = values.getLongVolatile(counterOffset);
            if (count >= maxCount)
            {
                return AT_LIMIT;
            }
            if (values.compareAndSetLong(counterOffset, count, count + 1))
            {
                break;
            }
        }
        return claim(counterOffset, nowNs);
    }

    /**
     * Counts a request out, once per lease. Lock-free, allocates nothing, never throws.
     *
     * @param lease a value returned by {@link #acquire}, or anything else.
     * @return whether this call released the lease; false for a second release, a reclaimed lease or a garbage value.
     */
    public boolean release(final long lease)
    {
        final long raw = lease ^ SCRAMBLE;
        final long generation = raw >>> SLOT_BITS;
        final int slot = (int)(raw & SLOT_MASK);
        if (raw < 0 || generation == 0 || slot > mask)
        {
            return false;
        }
        final long busy = generation << 2 | BUSY;
        // Acquire: the counter offset written before the BUSY release store is visible once we see BUSY(generation).
        if ((long)WORDS.getAcquire(words, slot) != busy)
        {
            return false;
        }
        final int counterOffset = counterOffsets[slot];
        if (WORDS.compareAndSet(words, slot, busy, generation << 2 | FREE))
        {
            values.getAndAddLong(counterOffset, -1);
            return true;
        }
        return false;
    }

    /**
     * Reclaims every lease older than {@code maxAgeNs}, counting each out as if it had ended. One thread at a time;
     * allocates nothing.
     *
     * @param nowNs the current time.
     * @param maxAgeNs the age beyond which a lease is considered lost.
     * @return the number of leases reclaimed.
     */
    public int sweep(final long nowNs, final long maxAgeNs)
    {
        return sweep(nowNs, maxAgeNs, null);
    }

    /**
     * As {@link #sweep(long, long)}, telling {@code onReclaimedOrNull} the counter offset of each lease reclaimed.
     *
     * @param nowNs the current time.
     * @param maxAgeNs the age beyond which a lease is considered lost.
     * @param onReclaimedOrNull called with the in-flight counter offset of each reclaimed lease, or null.
     * @return the number of leases reclaimed.
     */
    public int sweep(final long nowNs, final long maxAgeNs, final IntConsumer onReclaimedOrNull)
    {
        int reclaimed = 0;
        final long[] words = this.words;
        for (int slot = 0; slot < words.length; slot++)
        {
            final long word = (long)WORDS.getAcquire(words, slot);
            if ((word & STATE_MASK) == BUSY && nowNs - startNs[slot] > maxAgeNs)
            {
                final int counterOffset = counterOffsets[slot];
                if (WORDS.compareAndSet(words, slot, word, (word & ~STATE_MASK) | FREE))
                {
                    values.getAndAddLong(counterOffset, -1);
                    reclaimed++;
                    if (onReclaimedOrNull != null)
                    {
                        onReclaimedOrNull.accept(counterOffset);
                    }
                }
            }
        }
        if (reclaimed > 0)
        {
            values.getAndAddLong(reclaimedOffset, reclaimed);
        }
        return reclaimed;
    }

    /** @return the number of leases currently held (a racy snapshot, for tests and diagnostics). */
    public int liveCount()
    {
        int live = 0;
        for (int slot = 0; slot < words.length; slot++)
        {
            if (((long)WORDS.getAcquire(words, slot) & STATE_MASK) != FREE)
            {
                live++;
            }
        }
        return live;
    }

    /** @return the number of acquisitions refused because every slot was held. */
    public long fullCount()
    {
        return values.getLongVolatile(fullOffset);
    }

    /** @return the number of leases reclaimed by the sweep since creation. */
    public long reclaimedCount()
    {
        return values.getLongVolatile(reclaimedOffset);
    }

    /** @return the number of slots. */
    public int capacity()
    {
        return words.length;
    }

    // Per thread, not a shared cursor: a field that every begin wrote would share a cache line with the table's fields
    // that every begin and end reads. ThreadLocalRandom keeps its seed in the calling Thread object: no shared write,
    // no allocation, and uniformly spread starts keep probe sequences short whatever the threads' pattern.
    private static int probeStart()
    {
        return ThreadLocalRandom.current().nextInt();
    }

    // The counter is already raised for this request: claim a slot, or take the increment back.
    private long claim(final int counterOffset, final long nowNs)
    {
        final int start = probeStart();
        for (int i = 0; i < FAST_PROBES; i++)
        {
            final long lease = tryClaim((start + i) & mask, counterOffset, nowNs);
            if (lease != InflightTracker.NO_LEASE)
            {
                return lease;
            }
        }
        return claimSlowPath(start + FAST_PROBES, counterOffset, nowNs);
    }

    private long tryClaim(final int slot, final int counterOffset, final long nowNs)
    {
        final long word = (long)WORDS.getVolatile(words, slot);
        if ((word & STATE_MASK) != FREE)
        {
            return InflightTracker.NO_LEASE;
        }
        final long previous = word >>> 2;
        final long generation = previous >= MAX_GENERATION ? 1 : previous + 1;
        if (!WORDS.compareAndSet(words, slot, word, generation << 2 | CLAIMING))
        {
            return InflightTracker.NO_LEASE;
        }
        counterOffsets[slot] = counterOffset;
        startNs[slot] = nowNs;
        // The counter was raised before the claim, so a racing end never drives it below zero.
        WORDS.setRelease(words, slot, generation << 2 | BUSY);
        return ((generation << SLOT_BITS) | slot) ^ SCRAMBLE;
    }

    private long claimSlowPath(final int from, final int counterOffset, final long nowNs)
    {
        final int probes = Math.min(mask + 1, MAX_PROBES) - FAST_PROBES;
        for (int i = 0; i < probes; i++)
        {
            final long lease = tryClaim((from + i) & mask, counterOffset, nowNs);
            if (lease != InflightTracker.NO_LEASE)
            {
                return lease;
            }
        }
        values.getAndAddLong(counterOffset, -1);
        values.getAndAddLong(fullOffset, 1);
        return InflightTracker.NO_LEASE;
    }
}
