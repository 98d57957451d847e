package io.multifactor.kernel.session;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One decision's session entries: key -> (model P, turns on P, last seen), at most {@code max_sessions} of them, in
 * one {@code long[]} allocated at construction. Nothing is allocated per request.
 * <p>
 * Layout: the entries are split into sets of up to {@link #WAYS} ways (the set sizes add up to {@code max_sessions}
 * exactly); a key lives only in the set its mixed hash picks, so a key is never held twice. Each set is one stripe:
 * <pre>
 *   [ sequence | key(0) .. key(W-1) | value(0) .. value(W-1) | seenNs(0) .. seenNs(W-1) ]
 *   value = (modelId + 1) &lt;&lt; 32 | turns      (0 = empty way)
 * </pre>
 * Eviction: a new key takes an empty way of its set, else one whose entry is no longer live (seen {@code idle_timeout}
 * ago or longer), else the least recently seen one, which is then counted as evicted. LRU is therefore exact within a
 * set and approximate over the table: the entry forgotten is the least recently seen of the (up to 8) entries that
 * share the new key's set, not necessarily of the whole table.
 * <p>
 * Concurrency: a writer claims a set by a compare-and-set of its sequence word from even to odd, writes, and releases
 * it with an ordered store of the next even value; a reader reads the set optimistically between two loads of the
 * sequence and retries when it changed. Neither ever waits on another thread: a writer that finds the set claimed spins
 * a bounded number of times ({@link #CLAIM_SPINS}) and then gives its update up ({@link #SKIPPED}), and a reader that
 * keeps meeting writers reports no entry. Under that contention a session may therefore miss one update (its turns
 * stay, its last-seen time stays) or be treated as new once; it is never held twice and its turns never go backwards
 * while its entry stays on one model. Turns are incremented from the entry as it is when the writer holds the set,
 * not from what the selection read, so concurrent requests of one session each add one.
 * <p>
 * This class is threadsafe: any number of threads may call {@link #lookup} and {@link #update} at once; it takes no
 * lock and allocates nothing after construction.
 */
public final class SessionTable
{
    /** Most ways of a set. */
    public static final int WAYS = 8;

    /** Compare-and-set attempts a writer makes on a claimed set before it gives its update up. */
    public static final int CLAIM_SPINS = 256;

    /** Optimistic reads a reader makes before it reports no entry. */
    public static final int READ_TRIES = 256;

    /** {@link #update}: the entry was written; nothing live was forgotten. */
    public static final int UPDATED = 0;

    /** {@link #update}: the entry was written in the place of another key's live entry (counted as evicted). */
    public static final int EVICTED = 1;

    /** {@link #update}: the set stayed claimed by other writers; nothing was written. */
    public static final int SKIPPED = 2;

    /** {@link #lookup}: the key has no live entry. */
    public static final long NO_ENTRY = 0L;

    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final int STRIDE = 1 + 3 * WAYS;
    private static final int KEYS = 1;
    private static final int VALUES = 1 + WAYS;
    private static final int SEEN = 1 + 2 * WAYS;

    private final long[] words;
    private final int setCount;
    private final int capacity;
    // Sets [0, largerSets) have baseWays + 1 ways, the others baseWays.
    private final int baseWays;
    private final int largerSets;

    /**
     * @param maxSessions the most entries, >= 1.
     */
    public SessionTable(final int maxSessions)
    {
        if (maxSessions < 1)
        {
            throw new IllegalArgumentException("maxSessions must be >= 1: " + maxSessions);
        }
        this.capacity = maxSessions;
        this.setCount = (maxSessions + WAYS - 1) / WAYS;
        this.baseWays = maxSessions / setCount;
        this.largerSets = maxSessions - baseWays * setCount;
        this.words = new long[Math.multiplyExact(setCount, STRIDE)];
    }

    /** @return the most entries this table holds ({@code max_sessions}). */
    public int capacity()
    {
        return capacity;
    }

    /**
     * @param key a session key.
     * @return the set the key lives in, {@code [0, setCount())}.
     */
    public int setOf(final long key)
    {
        // A 64-bit finalizer (MurmurHash3's fmix64), so that keys differing in few bits spread over the sets.
        long h = key;
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        h *= 0xC4CEB9FE1A85EC53L;
        h ^= h >>> 33;
        return (int)(((h >>> 32) * setCount) >>> 32);
    }

    /** @return the number of sets. */
    public int setCount()
    {
        return setCount;
    }

    /**
     * @param set a set.
     * @return its number of ways.
     */
    public int waysOf(final int set)
    {
        return set < largerSets ? baseWays + 1 : baseWays;
    }

    /**
     * The key's live entry. Lock-free, allocation-free.
     *
     * @param key a session key.
     * @param nowNs the engine clock's time.
     * @param idleTimeoutNs an entry seen this long ago or longer is not live.
     * @return the entry's value word ({@link #modelId}, {@link #turns}), or {@link #NO_ENTRY}.
     */
    public long lookup(final long key, final long nowNs, final long idleTimeoutNs)
    {
        return lookup(setOf(key), key, nowNs, idleTimeoutNs);
    }

    /**
     * As {@link #lookup(long, long, long)}, in the key's set as worked out already: for a caller that looks a key up
     * and then updates it ({@link #update(int, long, int, long, long)}), so that the key is hashed once.
     *
     * @param set {@link #setOf} of the key (another set would hold the key a second time).
     * @param key a session key.
     * @param nowNs the engine clock's time.
     * @param idleTimeoutNs an entry seen this long ago or longer is not live.
     * @return the entry's value word ({@link #modelId}, {@link #turns}), or {@link #NO_ENTRY}.
     */
    public long lookup(final int set, final long key, final long nowNs, final long idleTimeoutNs)
    {
        final int base = set * STRIDE;
        final int ways = waysOf(set);
        final long[] words = this.words;
        for (int attempt = 0; attempt < READ_TRIES; attempt++)
        {
            final long before = (long)LONGS.getAcquire(words, base);
            if ((before & 1L) != 0L)
            {
                Thread.onSpinWait();
                continue;
            }
            long found = NO_ENTRY;
            long seenNs = 0L;
            for (int way = 0; way < ways; way++)
            {
                final long value = (long)LONGS.getOpaque(words, base + VALUES + way);
                if (value != 0L && (long)LONGS.getOpaque(words, base + KEYS + way) == key)
                {
                    found = value;
                    seenNs = (long)LONGS.getOpaque(words, base + SEEN + way);
                    break;
                }
            }
            // The reads above must not move below the second load of the sequence.
            VarHandle.acquireFence();
            if ((long)LONGS.getOpaque(words, base) == before)
            {
                return found != NO_ENTRY && nowNs - seenNs < idleTimeoutNs ? found : NO_ENTRY;
            }
        }
        return NO_ENTRY;
    }

    /**
     * Records that the key's request went to a model: the entry holds the model, its turns (one more when it already
     * held this model and was live, else 1) and the time. A key without an entry takes a way of its set as the class
     * says. Lock-free, allocation-free.
     *
     * @param key a session key.
     * @param modelId handle of the chosen model, >= 0.
     * @param nowNs the engine clock's time.
     * @param idleTimeoutNs an entry seen this long ago or longer is not live.
     * @return {@link #UPDATED}, {@link #EVICTED} or {@link #SKIPPED}.
     */
    public int update(final long key, final int modelId, final long nowNs, final long idleTimeoutNs)
    {
        return update(setOf(key), key, modelId, nowNs, idleTimeoutNs);
    }

    /**
     * As {@link #update(long, int, long, long)}, in the key's set as worked out already
     * ({@link #lookup(int, long, long, long)}).
     *
     * @param set {@link #setOf} of the key (another set would hold the key a second time).
     * @param key a session key.
     * @param modelId handle of the chosen model, >= 0.
     * @param nowNs the engine clock's time.
     * @param idleTimeoutNs an entry seen this long ago or longer is not live.
     * @return {@link #UPDATED}, {@link #EVICTED} or {@link #SKIPPED}.
     */
    public int update(final int set, final long key, final int modelId, final long nowNs, final long idleTimeoutNs)
    {
        final int base = set * STRIDE;
        final long[] words = this.words;
        long sequence = 0L;
        boolean claimed = false;
        for (int spin = 0; spin < CLAIM_SPINS; spin++)
        {
            sequence = (long)LONGS.getOpaque(words, base);
            if ((sequence & 1L) == 0L && LONGS.compareAndSet(words, base, sequence, sequence + 1))
            {
                claimed = true;
                break;
            }
            Thread.onSpinWait();
        }
        if (!claimed)
        {
            return SKIPPED;
        }
        final int result = updateClaimed(words, base, waysOf(set), key, modelId, nowNs, idleTimeoutNs);
        // Publishes the writes above to readers that load the sequence with acquire.
        LONGS.setRelease(words, base, sequence + 2);
        return result;
    }

    private static int updateClaimed(
        final long[] words,
        final int base,
        final int ways,
        final long key,
        final int modelId,
        final long nowNs,
        final long idleTimeoutNs)
    {
        int empty = -1;
        int idle = -1;
        int oldest = 0;
        long oldestSeenNs = Long.MAX_VALUE;
        for (int way = 0; way < ways; way++)
        {
            final long value = (long)LONGS.getOpaque(words, base + VALUES + way);
            if (value == 0L)
            {
                if (empty < 0)
                {
                    empty = way;
                }
                continue;
            }
            final long seenNs = (long)LONGS.getOpaque(words, base + SEEN + way);
            final boolean live = nowNs - seenNs < idleTimeoutNs;
            if ((long)LONGS.getOpaque(words, base + KEYS + way) == key)
            {
                final long turns = live && modelId(value) == modelId ? Math.min(Integer.MAX_VALUE, turns(value) + 1L) : 1L;
                LONGS.setOpaque(words, base + VALUES + way, value(modelId, turns));
                // Never backwards: a writer with an older clock reading leaves the later time.
                LONGS.setOpaque(words, base + SEEN + way, Math.max(seenNs, nowNs));
                return UPDATED;
            }
            if (!live && idle < 0)
            {
                idle = way;
            }
            if (seenNs < oldestSeenNs)
            {
                oldestSeenNs = seenNs;
                oldest = way;
            }
        }
        final int way = empty >= 0 ? empty : idle >= 0 ? idle : oldest;
        LONGS.setOpaque(words, base + KEYS + way, key);
        LONGS.setOpaque(words, base + VALUES + way, value(modelId, 1L));
        LONGS.setOpaque(words, base + SEEN + way, nowNs);
        return empty < 0 && idle < 0 ? EVICTED : UPDATED;
    }

    /**
     * Counts the live entries. Off the hot path (the refresh agent): reads every way once, without the sequence, so a
     * count taken while writers work may be off by the entries being written.
     *
     * @param nowNs the engine clock's time.
     * @param idleTimeoutNs an entry seen this long ago or longer is not live.
     * @return the number of live entries, {@code <= capacity()}.
     */
    public int liveCount(final long nowNs, final long idleTimeoutNs)
    {
        final long[] words = this.words;
        int live = 0;
        for (int set = 0; set < setCount; set++)
        {
            final int base = set * STRIDE;
            final int ways = waysOf(set);
            for (int way = 0; way < ways; way++)
            {
                if ((long)LONGS.getOpaque(words, base + VALUES + way) != 0L &&
                    nowNs - (long)LONGS.getOpaque(words, base + SEEN + way) < idleTimeoutNs)
                {
                    live++;
                }
            }
        }
        return live;
    }

    /**
     * How many ways of the key's set hold it (0 or 1 by construction); for tests of the invariant. Reads the set as
     * {@link #lookup} does, between two loads of its sequence, retrying until no writer intervened (a count taken across
     * a writer's eviction and a later re-insertion could otherwise see the key in two ways that never held it at once).
     * May spin while writers keep claiming the set.
     *
     * @param key a session key.
     * @return the number of ways that hold the key, whether live or not.
     */
    public int occurrences(final long key)
    {
        final int set = setOf(key);
        final int base = set * STRIDE;
        final long[] words = this.words;
        while (true)
        {
            final long before = (long)LONGS.getAcquire(words, base);
            if ((before & 1L) != 0L)
            {
                Thread.onSpinWait();
                continue;
            }
            int count = 0;
            for (int way = 0; way < waysOf(set); way++)
            {
                if ((long)LONGS.getOpaque(words, base + VALUES + way) != 0L &&
                    (long)LONGS.getOpaque(words, base + KEYS + way) == key)
                {
                    count++;
                }
            }
            VarHandle.acquireFence();
            if ((long)LONGS.getOpaque(words, base) == before)
            {
                return count;
            }
        }
    }

    /**
     * @param value a value word from {@link #lookup}, not {@link #NO_ENTRY}.
     * @return the entry's model handle.
     */
    public static int modelId(final long value)
    {
        return (int)(value >>> 32) - 1;
    }

    /**
     * @param value a value word from {@link #lookup}, not {@link #NO_ENTRY}.
     * @return the turns the entry's model has served, >= 1.
     */
    public static int turns(final long value)
    {
        return (int)value;
    }

    /**
     * @param modelId a model handle, >= 0.
     * @param turns turns, 1..{@link Integer#MAX_VALUE}.
     * @return the value word of an entry holding them.
     */
    public static long value(final int modelId, final long turns)
    {
        return ((long)(modelId + 1) << 32) | turns;
    }
}
