package io.multifactor.kernel.inflight;

import io.multifactor.api.InflightTracker;
import org.agrona.BufferUtil;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersReader;

import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntConsumer;

/**
 * A fixed table of leases: each request in flight holds one slot that remembers which counter it incremented and the
 * epoch it began in, so that it is counted out exactly once, by its {@code end} or by the sweep of stale leases.
 * <p>
 * A slot is 32 bytes in a direct buffer aligned to a cache line: its claim word (which also holds the counter), its
 * epoch stamp, and the lease's token weight with the counter of in-flight tokens it was added to, so that a claim, an
 * end and the sweep's look at a slot each touch one cache line, two slots to a line:
 * <pre>
 *   line (64 bytes):  | claim 0 | epoch 0 | tokens 0 | token counter 0 | claim 1 | epoch 1 | tokens 1 | token counter 1 |
 *   claim word:       counter index (22 bits) | generation (39 bits) | state (2 bits)   (sign bit 0)
 *                     state: FREE (0), CLAIMING (1), BUSY (2); counter index = counter offset / 128
 *   token counter:    value offset of the model's in-flight tokens counter (int; -1 = the lease weighs nothing)
 * </pre>
 * Each thread starts probing at its own home line, a fixed function of its thread id (Fibonacci hashing, so that
 * threads with consecutive ids get homes about 0.38 of the table apart): a thread that begins and ends its requests one
 * at a time claims the same slot again and again, on a line no other thread writes. Only when the first
 * {@value #FAST_PROBES} slots from its home are held does a claim probe from a random start.
 * <pre>
 *   increment (acquire) or check-and-increment (acquireWithin), then
 *   FREE(g) --CAS--&gt; CLAIMING(g+1, counter) --write epoch--&gt; BUSY(g+1, counter) (release store)
 *   BUSY(g, counter) --release or sweep CAS--&gt; FREE(g), then decrement
 * </pre>
 * A lease with a token weight raises the model's in-flight tokens counter by that weight with the count, and its end
 * (or the sweep) takes exactly that weight off again: the weight and its counter are written while the slot is
 * CLAIMING and read, by the release and the sweep, between their acquire load of the BUSY word and their CAS of it, so
 * a CAS that succeeds acted on that lease's own weight (the generation changes on every claim: no ABA).
 * <p>
 * The counter is raised before the lease exists, so a racing end never drives it below zero; when no slot is free the
 * increment is taken back. Only the CAS from BUSY(g) to FREE(g) decrements, so a lease is counted out at most once: a
 * second end, an end after the sweep reclaimed the lease, or a value that is not a live lease finds a different word
 * and changes nothing. The generation never repeats for a slot (it wraps after 2^39 uses), so a stale lease never
 * matches a newer one. The epoch is written while the slot is CLAIMING, which the sweep leaves alone, so the sweep
 * never reads a previous lease's epoch for a new one.
 * <p>
 * Counter offsets are Agrona counter value offsets (multiples of {@link CountersReader#COUNTER_LENGTH}) in a values
 * buffer of at most 2^22 counters. Epoch stamps are whatever the caller counts leases' age in (the engine's lease
 * epochs); {@link #sweep(long, IntConsumer)} reclaims every lease stamped before a cutoff epoch.
 * <p>
 * A full table degrades without throwing and in bounded time: when {@link #acquire(int, long)} finds no free slot
 * among {@link #MAX_PROBES} (the whole table when it is smaller), it returns {@link InflightTracker#NO_LEASE}, does not
 * count the request in flight (load is under-counted rather than leaked) and counts the event in {@link #fullCount()}.
 * Size the table well above the peak number of requests in flight (a table more than ~99% full starts to refuse).
 * <p>
 * {@link #acquire}, {@link #acquireWithin} and {@link #release} are lock-free and allocation-free from any number of
 * threads; {@link #sweep} belongs to one thread at a time. The memory is never freed explicitly (a late {@code end}
 * touches valid memory). This class is threadsafe under that contract.
 */
public final class LeaseTable
{
    private static final long FREE = 0;
    private static final long CLAIMING = 1;
    private static final long BUSY = 2;
    private static final long STATE_MASK = 3;

    private static final int GENERATION_SHIFT = 2;
    private static final int GENERATION_BITS = 39;
    private static final long MAX_GENERATION = (1L << GENERATION_BITS) - 1;
    private static final long GENERATION_STATE_MASK = (1L << (GENERATION_BITS + GENERATION_SHIFT)) - 1;
    private static final int COUNTER_SHIFT = GENERATION_BITS + GENERATION_SHIFT;
    private static final int COUNTER_INDEX_BITS = 63 - COUNTER_SHIFT;

    /** Most counters the values buffer may hold: counter indices must fit the claim word. */
    public static final int MAX_COUNTERS = 1 << COUNTER_INDEX_BITS;

    private static final int COUNTER_LENGTH_SHIFT = Integer.numberOfTrailingZeros(CountersReader.COUNTER_LENGTH);

    private static final int SLOT_BITS = 24;
    private static final long SLOT_MASK = (1L << SLOT_BITS) - 1;
    // Low 24 bits all ones: a scrambled lease is never 0 (NO_LEASE) because no slot index reaches SLOT_MASK.
    private static final long SCRAMBLE = 0x5DEE_CE66_DA3B_FFFFL & ~(1L << 63) | SLOT_MASK;

    /** Bytes of one slot: the claim word, the epoch stamp, the token weight and its counter's offset. */
    public static final int SLOT_LENGTH = 4 * Long.BYTES;

    /** Bytes of a cache line, the alignment of the table and the unit of a thread's home. */
    public static final int LINE_LENGTH = 64;

    private static final int SLOTS_PER_LINE = LINE_LENGTH / SLOT_LENGTH;
    private static final int SLOT_SHIFT = Integer.numberOfTrailingZeros(SLOT_LENGTH);
    private static final int EPOCH_OFFSET = Long.BYTES;
    private static final int TOKENS_OFFSET = 2 * Long.BYTES;
    private static final int TOKEN_COUNTER_OFFSET = 3 * Long.BYTES;
    // Two lines before and after the slots: the table's lines never neighbour other memory that someone writes.
    private static final int PADDING = 2 * LINE_LENGTH;
    private static final long HOME_HASH = 0x9E37_79B9_7F4A_7C15L;

    /** Largest table: slot indices must stay below {@code 2^24 - 1}. */
    public static final int MAX_CAPACITY = 1 << 23;

    /** Slots a claim looks at from its thread's home before it probes from a random start. */
    public static final int FAST_PROBES = 2 * SLOTS_PER_LINE;

    /** {@link #acquireWithin} of a counter already at its maximum: nothing counted. Never a lease (leases are >= 0). */
    public static final long AT_LIMIT = -1L;

    /** {@link #releaseCounterOffset} of a value that released nothing (never a counter offset, which is >= 0). */
    public static final int NOT_RELEASED = -1;

    /**
     * {@link #acquireWithin(int, long, int, long, long, long)} when the model's in-flight tokens plus the request's
     * would exceed the ceiling: nothing counted. Never a lease.
     */
    public static final long AT_TOKEN_LIMIT = -2L;

    /** A token counter offset that means "this lease carries no token weight". */
    public static final int NO_TOKEN_COUNTER = -1;

    /** Most slots one {@link #acquire} looks at before it gives up (the whole table when smaller). */
    public static final int MAX_PROBES = 1_024;

    private final AtomicBuffer slots;
    private final int capacity;
    private final int mask;
    private final int homeShift;
    private final AtomicBuffer values;
    private final int fullOffset;
    private final int reclaimedOffset;

    /**
     * @param capacity number of slots, a power of two in 2..{@link #MAX_CAPACITY}.
     * @param values the counters' values buffer, where every counter offset passed in lives; at most
     *     {@link #MAX_COUNTERS} counters of {@link CountersReader#COUNTER_LENGTH} bytes.
     * @param fullOffset value offset of the counter of acquisitions refused because the table was full.
     * @param reclaimedOffset value offset of the counter of leases reclaimed by the sweep.
     * @throws IllegalArgumentException when the capacity is out of range or the values buffer too large.
     */
    public LeaseTable(final int capacity, final AtomicBuffer values, final int fullOffset, final int reclaimedOffset)
    {
        if (capacity < 2 || capacity > MAX_CAPACITY || Integer.bitCount(capacity) != 1)
        {
            throw new IllegalArgumentException("lease capacity must be a power of two in 2.." + MAX_CAPACITY + ": " + capacity);
        }
        if (values.capacity() / CountersReader.COUNTER_LENGTH > MAX_COUNTERS)
        {
            throw new IllegalArgumentException("a lease table serves at most " + MAX_COUNTERS + " counters");
        }
        this.slots = new UnsafeBuffer(
            BufferUtil.allocateDirectAligned(PADDING + capacity * SLOT_LENGTH + PADDING, LINE_LENGTH),
            PADDING, capacity * SLOT_LENGTH);
        this.capacity = capacity;
        this.mask = capacity - 1;
        // A home is a line's first slot: the top bits of the hash pick one of the table's lines (slot 0 when under one).
        final int lines = Math.max(1, capacity / SLOTS_PER_LINE);
        this.homeShift = 64 - Integer.numberOfTrailingZeros(lines);
        this.values = values;
        this.fullOffset = fullOffset;
        this.reclaimedOffset = reclaimedOffset;
    }

    /**
     * Counts one request in flight on the counter at {@code counterOffset} and returns its lease. Lock-free, allocates
     * nothing, never throws.
     *
     * @param counterOffset value offset of the counter to increment.
     * @param epoch the lease's stamp, compared with the cutoff by {@link #sweep}.
     * @return the lease, or {@link InflightTracker#NO_LEASE} when the table is full (nothing counted).
     */
    public long acquire(final int counterOffset, final long epoch)
    {
        values.getAndAddLong(counterOffset, 1);
        return claim(counterOffset, NO_TOKEN_COUNTER, 0L, epoch);
    }

    /**
     * Counts one request in flight on the counter at {@code counterOffset} and its token weight on the counter at
     * {@code tokenCounterOffset}, and returns its lease: its end (or the sweep) takes off exactly that weight. Lock-free,
     * allocates nothing, never throws.
     *
     * @param counterOffset value offset of the counter to increment.
     * @param tokenCounterOffset value offset of the model's in-flight tokens counter, or {@link #NO_TOKEN_COUNTER}.
     * @param tokens the lease's weight, {@code >= 0} (0 touches no token counter).
     * @param epoch the lease's stamp, compared with the cutoff by {@link #sweep}.
     * @return the lease, or {@link InflightTracker#NO_LEASE} when the table is full (nothing counted).
     */
    public long acquire(final int counterOffset, final int tokenCounterOffset, final long tokens, final long epoch)
    {
        final int tokenCounter = tokens > 0 ? tokenCounterOffset : NO_TOKEN_COUNTER;
        values.getAndAddLong(counterOffset, 1);
        if (tokenCounter >= 0)
        {
            values.getAndAddLong(tokenCounter, tokens);
        }
        return claim(counterOffset, tokenCounter, tokens, epoch);
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
     * @param epoch the lease's stamp, compared with the cutoff by {@link #sweep}.
     * @return the lease; {@link #AT_LIMIT} when the counter is already at or above {@code maxCount} (nothing counted);
     *     {@link InflightTracker#NO_LEASE} when the table is full (nothing counted).
     */
    public long acquireWithin(final int counterOffset, final long maxCount, final long epoch)
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
        return claim(counterOffset, NO_TOKEN_COUNTER, 0L, epoch);
    }

    /**
     * Counts one request in flight only if that keeps the count at or below {@code maxCount} and the model's in-flight
     * tokens plus {@code tokens} at or below {@code maxTokens} (two atomic check-and-adds, count first: a CAS loop on
     * each counter; when the tokens do not fit, the count's increment is taken back), and returns its lease. Lock-free,
     * allocates nothing, never throws.
     * <p>
     * Under any number of threads neither counter exceeds its maximum through this method (a plain {@link #acquire} may
     * still raise them). A count briefly raised and taken back may make a concurrent check see the model full, and so
     * may a concurrent {@link #release} or {@link #sweep}, which free the slot first and count out just after (so that
     * no check ever sees room that is not there): the error is on the safe side.
     *
     * @param counterOffset value offset of the counter to increment.
     * @param maxCount the largest value the count may reach; {@code Long.MAX_VALUE} for no limit.
     * @param tokenCounterOffset value offset of the model's in-flight tokens counter, or {@link #NO_TOKEN_COUNTER}.
     * @param tokens the lease's weight, {@code >= 0}.
     * @param maxTokens the largest value the in-flight tokens may reach; {@code Long.MAX_VALUE} for no limit.
     * @param epoch the lease's stamp, compared with the cutoff by {@link #sweep}.
     * @return the lease; {@link #AT_LIMIT} when the count is at {@code maxCount}, {@link #AT_TOKEN_LIMIT} when the
     *     tokens would exceed {@code maxTokens} (nothing counted either way); {@link InflightTracker#NO_LEASE} when the
     *     table is full (nothing counted).
     */
    public long acquireWithin(
        final int counterOffset,
        final long maxCount,
        final int tokenCounterOffset,
        final long tokens,
        final long maxTokens,
        final long epoch)
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
        final int tokenCounter = tokens > 0 ? tokenCounterOffset : NO_TOKEN_COUNTER;
        if (tokenCounter >= 0)
        {
            while (true)
            {
                final long inflightTokens = values.getLongVolatile(tokenCounter);
                if (inflightTokens > maxTokens - tokens)
                {
                    values.getAndAddLong(counterOffset, -1);
                    return AT_TOKEN_LIMIT;
                }
                if (values.compareAndSetLong(tokenCounter, inflightTokens, inflightTokens + tokens))
                {
                    break;
                }
            }
        }
        return claim(counterOffset, tokenCounter, tokens, epoch);
    }

    /**
     * Counts a request out, once per lease. Lock-free, allocates nothing, never throws.
     *
     * @param lease a value returned by {@link #acquire}, or anything else.
     * @return whether this call released the lease; false for a second release, a reclaimed lease or a garbage value.
     */
    public boolean release(final long lease)
    {
        return releaseCounterOffset(lease) != NOT_RELEASED;
    }

    /**
     * Counts a request out, once per lease, as {@link #release}, and says which counter it was counted on (so that the
     * caller knows the lease's model). Lock-free, allocates nothing, never throws.
     *
     * @param lease a value returned by {@link #acquire}, or anything else.
     * @return the value offset of the counter the lease was counted on when this call released it;
     *     {@link #NOT_RELEASED} for a second release, a reclaimed lease or a garbage value.
     */
    public int releaseCounterOffset(final long lease)
    {
        final long raw = lease ^ SCRAMBLE;
        final long generation = raw >>> SLOT_BITS;
        final int slot = (int)(raw & SLOT_MASK);
        if (raw < 0 || generation == 0 || slot > mask)
        {
            return NOT_RELEASED;
        }
        final int offset = slot << SLOT_SHIFT;
        // Acquire: we act on the counter of the word we read, written with it by the claim's release store.
        final long word = slots.getLongVolatile(offset);
        if ((word & GENERATION_STATE_MASK) != (generation << GENERATION_SHIFT | BUSY))
        {
            return NOT_RELEASED;
        }
        // Read before the CAS: once the slot is FREE another lease may overwrite them; if the CAS succeeds, they are ours.
        final int tokenCounter = slots.getIntOpaque(offset + TOKEN_COUNTER_OFFSET);
        final long tokens = slots.getLongOpaque(offset + TOKENS_OFFSET);
        if (slots.compareAndSetLong(offset, word, generation << GENERATION_SHIFT | FREE))
        {
            final int counterOffset = counterOffset(word);
            values.getAndAddLong(counterOffset, -1);
            if (tokenCounter >= 0)
            {
                values.getAndAddLong(tokenCounter, -tokens);
            }
            return counterOffset;
        }
        return NOT_RELEASED;
    }

    /**
     * Reclaims every lease stamped with an epoch below {@code cutoffEpoch}, counting each out as if it had ended. One
     * thread at a time; allocates nothing.
     *
     * @param cutoffEpoch the smallest stamp that is not reclaimed.
     * @param onReclaimedOrNull called with the in-flight counter offset of each reclaimed lease, or null.
     * @return the number of leases reclaimed.
     */
    public int sweep(final long cutoffEpoch, final IntConsumer onReclaimedOrNull)
    {
        return sweep(cutoffEpoch, onReclaimedOrNull, null);
    }

    /**
     * As {@link #sweep(long, IntConsumer)}, also telling {@code onLeaseReclaimedOrNull} which lease each reclaimed slot
     * held (so that the caller can tell a lease it remembers, such as an ejected model's probe, from the others). One
     * thread at a time; allocates nothing.
     *
     * @param cutoffEpoch the smallest stamp that is not reclaimed.
     * @param onReclaimedOrNull called with the in-flight counter offset of each reclaimed lease, or null.
     * @param onLeaseReclaimedOrNull called with the counter offset and the lease of each reclaimed lease, or null.
     * @return the number of leases reclaimed.
     */
    public int sweep(
        final long cutoffEpoch, final IntConsumer onReclaimedOrNull, final ReclaimedLeaseListener onLeaseReclaimedOrNull)
    {
        final AtomicBuffer slots = this.slots;
        int reclaimed = 0;
        for (int slot = 0; slot < capacity; slot++)
        {
            final int offset = slot << SLOT_SHIFT;
            final long word = slots.getLongVolatile(offset);
            if ((word & STATE_MASK) != BUSY)
            {
                continue;
            }
            // The epoch and the weight were written before the BUSY release store that we just read with acquire.
            final int tokenCounter = slots.getIntOpaque(offset + TOKEN_COUNTER_OFFSET);
            final long tokens = slots.getLongOpaque(offset + TOKENS_OFFSET);
            if (slots.getLongOpaque(offset + EPOCH_OFFSET) < cutoffEpoch &&
                slots.compareAndSetLong(offset, word, word & GENERATION_STATE_MASK & ~STATE_MASK | FREE))
            {
                final int counterOffset = counterOffset(word);
                values.getAndAddLong(counterOffset, -1);
                if (tokenCounter >= 0)
                {
                    values.getAndAddLong(tokenCounter, -tokens);
                }
                reclaimed++;
                if (onReclaimedOrNull != null)
                {
                    onReclaimedOrNull.accept(counterOffset);
                }
                if (onLeaseReclaimedOrNull != null)
                {
                    final long generation = (word & GENERATION_STATE_MASK) >>> GENERATION_SHIFT;
                    onLeaseReclaimedOrNull.onReclaimed(counterOffset, ((generation << SLOT_BITS) | slot) ^ SCRAMBLE);
                }
            }
        }
        if (reclaimed > 0)
        {
            values.getAndAddLong(reclaimedOffset, reclaimed);
        }
        return reclaimed;
    }

    /**
     * As {@link #sweep(long, IntConsumer)} without a callback.
     *
     * @param cutoffEpoch the smallest stamp that is not reclaimed.
     * @return the number of leases reclaimed.
     */
    public int sweep(final long cutoffEpoch)
    {
        return sweep(cutoffEpoch, null);
    }

    /** @return the number of leases currently held (a racy snapshot, for tests and diagnostics). */
    public int liveCount()
    {
        int live = 0;
        for (int slot = 0; slot < capacity; slot++)
        {
            if ((slots.getLongVolatile(slot << SLOT_SHIFT) & STATE_MASK) != FREE)
            {
                live++;
            }
        }
        return live;
    }

    /**
     * @param counterOffset value offset of a counter.
     * @return the number of leases currently held on that counter (a racy snapshot, for tests and diagnostics).
     */
    public int liveCount(final int counterOffset)
    {
        int live = 0;
        for (int slot = 0; slot < capacity; slot++)
        {
            final long word = slots.getLongVolatile(slot << SLOT_SHIFT);
            if ((word & STATE_MASK) == BUSY && counterOffset(word) == counterOffset)
            {
                live++;
            }
        }
        return live;
    }

    /**
     * @param tokenCounterOffset value offset of an in-flight tokens counter.
     * @return the sum of the token weights of the leases currently held on that counter (a racy snapshot, for tests).
     */
    public long liveTokens(final int tokenCounterOffset)
    {
        long tokens = 0;
        for (int slot = 0; slot < capacity; slot++)
        {
            final int offset = slot << SLOT_SHIFT;
            if ((slots.getLongVolatile(offset) & STATE_MASK) == BUSY &&
                slots.getIntOpaque(offset + TOKEN_COUNTER_OFFSET) == tokenCounterOffset)
            {
                tokens += slots.getLongOpaque(offset + TOKENS_OFFSET);
            }
        }
        return tokens;
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
        return capacity;
    }

    /**
     * The first slot the calling thread probes: the first slot of one of the table's lines, a fixed function of the
     * thread's id. Two threads whose ids differ by {@code k} get homes {@code k * 0.618} of the table apart (modulo its
     * size), so a few threads' homes are far from each other.
     *
     * @return the calling thread's home slot in this table.
     */
    public int homeSlot()
    {
        return homeSlot(Thread.currentThread().getId());
    }

    /**
     * @param threadId a thread id.
     * @return that thread's home slot in this table.
     */
    public int homeSlot(final long threadId)
    {
        // homeShift is 64 for a table of one line: Java shifts by 64 mod 64 = 0, so mask it to slot 0 instead.
        return homeShift == 64 ? 0 : (int)((threadId * HOME_HASH) >>> homeShift) * SLOTS_PER_LINE;
    }

    /**
     * @param lease a lease of some table.
     * @return the slot it names (for tests).
     */
    static int slotOf(final long lease)
    {
        return (int)((lease ^ SCRAMBLE) & SLOT_MASK);
    }

    private static int counterOffset(final long word)
    {
        return (int)(word >>> COUNTER_SHIFT) << COUNTER_LENGTH_SHIFT;
    }

    // The counter is already raised for this request: claim a slot, or take the increment back.
    private long claim(final int counterOffset, final int tokenCounter, final long tokens, final long epoch)
    {
        final long counterBits = (long)(counterOffset >>> COUNTER_LENGTH_SHIFT) << COUNTER_SHIFT;
        final int home = homeSlot();
        for (int i = 0; i < FAST_PROBES; i++)
        {
            final long lease = tryClaim((home + i) & mask, counterBits, tokenCounter, tokens, epoch);
            if (lease != InflightTracker.NO_LEASE)
            {
                return lease;
            }
        }
        return claimSlowPath(counterOffset, counterBits, tokenCounter, tokens, epoch);
    }

    private long tryClaim(
        final int slot, final long counterBits, final int tokenCounter, final long tokens, final long epoch)
    {
        final int offset = slot << SLOT_SHIFT;
        final long word = slots.getLongVolatile(offset);
        if ((word & STATE_MASK) != FREE)
        {
            return InflightTracker.NO_LEASE;
        }
        final long previous = (word & GENERATION_STATE_MASK) >>> GENERATION_SHIFT;
        final long generation = previous >= MAX_GENERATION ? 1 : previous + 1;
        final long claimed = counterBits | generation << GENERATION_SHIFT;
        if (!slots.compareAndSetLong(offset, word, claimed | CLAIMING))
        {
            return InflightTracker.NO_LEASE;
        }
        // Opaque, a plain store on x86: ordered before the sweep's read by the release store below.
        slots.putLongOpaque(offset + EPOCH_OFFSET, epoch);
        slots.putLongOpaque(offset + TOKENS_OFFSET, tokens);
        slots.putIntOpaque(offset + TOKEN_COUNTER_OFFSET, tokenCounter);
        // Release: the epoch and the weight are visible to whoever reads BUSY (the sweep); the counter was raised before the claim.
        slots.putLongRelease(offset, claimed | BUSY);
        return ((generation << SLOT_BITS) | slot) ^ SCRAMBLE;
    }

    // The home's neighbourhood is held (a thread with many leases open, or a crowded table): probe from anywhere.
    private long claimSlowPath(
        final int counterOffset, final long counterBits, final int tokenCounter, final long tokens, final long epoch)
    {
        final int start = ThreadLocalRandom.current().nextInt();
        final int probes = Math.min(capacity, MAX_PROBES);
        for (int i = 0; i < probes; i++)
        {
            final long lease = tryClaim((start + i) & mask, counterBits, tokenCounter, tokens, epoch);
            if (lease != InflightTracker.NO_LEASE)
            {
                return lease;
            }
        }
        values.getAndAddLong(counterOffset, -1);
        if (tokenCounter >= 0)
        {
            values.getAndAddLong(tokenCounter, -tokens);
        }
        values.getAndAddLong(fullOffset, 1);
        return InflightTracker.NO_LEASE;
    }
}
