package io.multifactor.serving;

import java.util.concurrent.locks.StampedLock;

/**
 * One backend's approximate index of the prompt blocks it has been sent: a bounded LRU set of chained block hashes
 * ({@link PromptBlocks}), an estimate of what the server's prefix cache holds. A request's blocks enter it when the
 * backend answers ({@link #insert}), the last block first, so a prompt's first block is its most recent entry and a
 * full index evicts a chain from its end, as a server's prefix cache does; {@link #matchedBlocks} counts a request's
 * leading blocks found, up to the first miss.
 * <p>
 * The approximation: recency moves when a backend answers, not when a lookup finds a block; the index sees only this
 * process's requests; a hash collision (2^-64 per pair) counts as a hit.
 * <p>
 * Layout, allocated at the first insert for the capacity, at most 24 bytes per entry: per entry its hash (8 bytes) and
 * its neighbours in recency order (4 + 4 bytes), and an open-addressing table (linear probing, load at most 1/2, 2 x 4
 * bytes per entry) of entry numbers + 1.
 * <p>
 * This class is threadsafe and can be used across threads (the gateway's event loops): a lookup reads optimistically
 * (a {@link StampedLock} stamp, validated; retried under the read lock when a write intervened), an insert takes the
 * write lock for one answer's blocks; no lock is held across a request. Nothing is allocated after the first insert
 * (or a change of capacity).
 */
public final class PrefixIndex
{
    /** Largest capacity: 16,777,216 blocks (the configuration allows at most 1,048,576). */
    public static final int MAX_CAPACITY_BLOCKS = 1 << 24;

    private static final int NONE = -1;

    private final StampedLock lock = new StampedLock();
    private int capacity;
    private long[] keys;
    private int[] newer;
    private int[] older;
    private int[] table;
    private int mask;
    private int size;
    private int newest = NONE;
    private int oldest = NONE;

    /** @param capacityBlocks the most block hashes held, 1 .. {@link #MAX_CAPACITY_BLOCKS}. */
    public PrefixIndex(final int capacityBlocks)
    {
        if (capacityBlocks < 1 || capacityBlocks > MAX_CAPACITY_BLOCKS)
        {
            throw new IllegalArgumentException("capacityBlocks must be in 1.." + MAX_CAPACITY_BLOCKS + ": " +
                capacityBlocks);
        }
        this.capacity = capacityBlocks;
    }

    /** @return the most block hashes held. */
    public int capacity()
    {
        final long stamp = lock.readLock();
        try
        {
            return capacity;
        }
        finally
        {
            lock.unlockRead(stamp);
        }
    }

    /** @return the block hashes held now. */
    public int size()
    {
        final long stamp = lock.readLock();
        try
        {
            return size;
        }
        finally
        {
            lock.unlockRead(stamp);
        }
    }

    /**
     * Changes the capacity (the server reported its cache size); keeps the most recent entries that fit.
     *
     * @param capacityBlocks the most block hashes held, 1 .. {@link #MAX_CAPACITY_BLOCKS}.
     */
    public void resize(final int capacityBlocks)
    {
        if (capacityBlocks < 1 || capacityBlocks > MAX_CAPACITY_BLOCKS)
        {
            throw new IllegalArgumentException("capacityBlocks must be in 1.." + MAX_CAPACITY_BLOCKS + ": " +
                capacityBlocks);
        }
        final long stamp = lock.writeLock();
        try
        {
            if (capacityBlocks == capacity)
            {
                return;
            }
            final long[] oldKeys = keys;
            final int[] oldNewer = newer;
            final int oldOldest = oldest;
            final int oldSize = size;
            capacity = capacityBlocks;
            keys = null;
            size = 0;
            newest = NONE;
            oldest = NONE;
            if (oldKeys == null)
            {
                return;
            }
            allocate();
            int e = oldOldest;
            for (int skip = oldSize - capacityBlocks; skip > 0; skip--)
            {
                e = oldNewer[e];
            }
            for (; e != NONE; e = oldNewer[e])
            {
                put(oldKeys[e]);
            }
        }
        finally
        {
            lock.unlockWrite(stamp);
        }
    }

    /**
     * The blocks of a request that the backend answered enter the index (a block already there becomes the most
     * recent), last block first. Allocates only at the first insert.
     *
     * @param hashes chained block hashes.
     * @param count how many of them.
     */
    public void insert(final long[] hashes, final int count)
    {
        if (count <= 0)
        {
            return;
        }
        final long stamp = lock.writeLock();
        try
        {
            if (keys == null)
            {
                allocate();
            }
            for (int i = count - 1; i >= 0; i--)
            {
                put(hashes[i]);
            }
        }
        finally
        {
            lock.unlockWrite(stamp);
        }
    }

    /**
     * Lock-free unless a write intervenes; allocates nothing.
     *
     * @param hashes chained block hashes of a request.
     * @param count how many of them.
     * @return how many of its leading blocks the index holds, up to the first miss.
     */
    public int matchedBlocks(final long[] hashes, final int count)
    {
        if (count <= 0)
        {
            return 0;
        }
        final long stamp = lock.tryOptimisticRead();
        if (stamp != 0)
        {
            final int matched = matchUnlocked(hashes, count);
            if (lock.validate(stamp))
            {
                return matched;
            }
        }
        final long read = lock.readLock();
        try
        {
            return matchUnlocked(hashes, count);
        }
        finally
        {
            lock.unlockRead(read);
        }
    }

    // Under a stamp that may turn out invalid: reads the fields once, bounds every index and every probe sequence, so
    // a torn view gives a wrong count (discarded by validate), never an exception or an endless loop.
    private int matchUnlocked(final long[] hashes, final int count)
    {
        final long[] k = keys;
        final int[] t = table;
        if (k == null || t == null)
        {
            return 0;
        }
        final int m = t.length - 1;
        int matched = 0;
        for (int i = 0; i < count; i++)
        {
            final long hash = hashes[i];
            boolean found = false;
            for (int slot = spread(hash) & m, probes = 0; probes <= m; slot = (slot + 1) & m, probes++)
            {
                final int v = t[slot];
                if (v == 0)
                {
                    break;
                }
                if (v - 1 < k.length && k[v - 1] == hash)
                {
                    found = true;
                    break;
                }
            }
            if (!found)
            {
                break;
            }
            matched++;
        }
        return matched;
    }

    private void allocate()
    {
        keys = new long[capacity];
        newer = new int[capacity];
        older = new int[capacity];
        final int slots = tableSize(capacity);
        table = new int[slots];
        mask = slots - 1;
    }

    private static int tableSize(final int capacity)
    {
        int slots = 2;
        while (slots < capacity * 2L)
        {
            slots <<= 1;
        }
        return slots;
    }

    // Under the write lock.
    private void put(final long hash)
    {
        int slot = spread(hash) & mask;
        while (true)
        {
            final int v = table[slot];
            if (v == 0)
            {
                break;
            }
            if (keys[v - 1] == hash)
            {
                touch(v - 1);
                return;
            }
            slot = (slot + 1) & mask;
        }
        final int e;
        if (size < capacity)
        {
            e = size++;
        }
        else
        {
            e = oldest;
            unlink(e);
            removeSlot(keys[e]);
            // The removal may have shifted the free slot found above: probe again.
            slot = spread(hash) & mask;
            while (table[slot] != 0)
            {
                slot = (slot + 1) & mask;
            }
        }
        keys[e] = hash;
        table[slot] = e + 1;
        linkNewest(e);
    }

    private void touch(final int e)
    {
        if (e != newest)
        {
            unlink(e);
            linkNewest(e);
        }
    }

    private void linkNewest(final int e)
    {
        older[e] = newest;
        newer[e] = NONE;
        if (newest != NONE)
        {
            newer[newest] = e;
        }
        newest = e;
        if (oldest == NONE)
        {
            oldest = e;
        }
    }

    private void unlink(final int e)
    {
        final int o = older[e];
        final int n = newer[e];
        if (o != NONE)
        {
            newer[o] = n;
        }
        else
        {
            oldest = n;
        }
        if (n != NONE)
        {
            older[n] = o;
        }
        else
        {
            newest = o;
        }
    }

    // Backward-shift deletion: later entries of the probe run move into the hole when their home allows it.
    private void removeSlot(final long hash)
    {
        int hole = spread(hash) & mask;
        while (keys[table[hole] - 1] != hash)
        {
            hole = (hole + 1) & mask;
        }
        table[hole] = 0;
        int j = hole;
        while (true)
        {
            j = (j + 1) & mask;
            final int v = table[j];
            if (v == 0)
            {
                return;
            }
            final int home = spread(keys[v - 1]) & mask;
            if (((j - home) & mask) >= ((j - hole) & mask))
            {
                table[hole] = v;
                table[j] = 0;
                hole = j;
            }
        }
    }

    private static int spread(final long hash)
    {
        return (int)(hash ^ (hash >>> 32));
    }
}
