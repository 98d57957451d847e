package io.multifactor.kernel.metrics;

import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.status.CountersReader;

import java.lang.ref.WeakReference;
import java.util.Arrays;

/**
 * The per-thread counter blocks of one engine and their aggregator: each thread that counts gets a
 * {@link SingleWriterCounterBlock} of its own ({@link #forCurrentThread()}), and {@link #aggregate()}, run by the
 * refresh agent once per period, adds what every block counted since the previous run into the shared Agrona counters
 * (as {@code LongAdder} stripes, but owned by one thread each instead of contended). Readers of the counters (in this
 * process or another, through the counters file) see every count at most one aggregation late.
 * <p>
 * Blocks of threads that died are reused, so that short-lived threads leave no growth: {@link #aggregate()} first sees
 * that a block's owner is dead ({@link Thread#isAlive()} false, or the thread collected), then folds the block's last
 * counts in, then frees it (at most {@value #FREE_BLOCKS_KEPT} free blocks are kept; the others go to the garbage
 * collector, their counts folded). A thread that needs a block takes a free one or, when there is none, takes over the
 * block of a dead owner after folding its last counts in. Seeing a thread dead orders its last stores before ours
 * (JLS 17.4.4), so the block keeps one writer at a time and its counts stay exact.
 * <p>
 * {@link #forCurrentThread()} may be called from any thread: after a thread's first call (which takes this object's
 * lock and may allocate a block) it is a {@code ThreadLocal} lookup, lock-free and allocation-free.
 * {@link #aggregate()} belongs to one thread at a time. This class is threadsafe under that contract.
 */
public final class PerThreadCounterBlocks
{
    /** Free blocks kept for reuse; a burst of threads beyond that leaves its blocks to the garbage collector. */
    public static final int FREE_BLOCKS_KEPT = 64;

    /** Live blocks a thread without a free block looks at for one whose owner died. */
    static final int TAKEOVER_PROBES = 8;

    private static final int INITIAL_ID_LIMIT = 64;

    private final AtomicBuffer values;
    private final int counterCapacity;
    private final ThreadLocal<SingleWriterCounterBlock> byThread;
    /** What a block holds to say it is one of these (it must not hold these blocks: see SingleWriterCounterBlock). */
    private final Object familyToken = new Object();
    private final Object lock = new Object();

    // Guarded by lock.
    private SingleWriterCounterBlock[] live = new SingleWriterCounterBlock[16];
    private int liveCount;
    private final SingleWriterCounterBlock[] free = new SingleWriterCounterBlock[FREE_BLOCKS_KEPT];
    private int freeCount;
    private int takeoverCursor;
    private int idLimit;
    private long blocksCreated;

    /**
     * @param values the Agrona counters' values buffer that the counts are added into.
     */
    public PerThreadCounterBlocks(final AtomicBuffer values)
    {
        this(values, INITIAL_ID_LIMIT);
    }

    /**
     * @param values the Agrona counters' values buffer that the counts are added into.
     * @param idLimit counter ids a new block holds before it grows (see {@link #idLimit(int)}).
     */
    public PerThreadCounterBlocks(final AtomicBuffer values, final int idLimit)
    {
        this.values = values;
        this.counterCapacity = values.capacity() / CountersReader.COUNTER_LENGTH;
        this.byThread = ThreadLocal.withInitial(this::claim);
        idLimit(idLimit);
    }

    /**
     * The calling thread's block. Lock-free and allocation-free after the thread's first call.
     *
     * @return the block only the calling thread writes.
     */
    public SingleWriterCounterBlock forCurrentThread()
    {
        return byThread.get();
    }

    /**
     * The calling thread's block, without the {@code ThreadLocal} lookup when {@code cachedOrNull} is it: a block a
     * previous call returned to the caller, kept where the caller keeps per-thread state (the engine keeps it in the
     * caller's {@link io.multifactor.api.Selection}). A block is the calling thread's exactly when the thread is its
     * writer: only a thread itself becomes a block's writer, so another thread's block, a dead thread's, or one of
     * another engine, is never taken for it. Lock-free and allocation-free after the thread's first call.
     *
     * @param cachedOrNull what the caller kept from an earlier call, or null.
     * @return the block only the calling thread writes.
     */
    public SingleWriterCounterBlock forCurrentThread(final Object cachedOrNull)
    {
        if (cachedOrNull instanceof SingleWriterCounterBlock)
        {
            final SingleWriterCounterBlock cached = (SingleWriterCounterBlock)cachedOrNull;
            if (cached.writer == Thread.currentThread() && cached.family == familyToken)
            {
                return cached;
            }
        }
        return byThread.get();
    }

    /**
     * Sizes the blocks for counter ids below {@code idLimit}: blocks created from now on hold them without growing (a
     * block grows on its own when its owner counts a higher id). Off the request path.
     *
     * @param idLimit one more than the highest counter id counted.
     */
    public void idLimit(final int idLimit)
    {
        synchronized (lock)
        {
            this.idLimit = Math.max(1, Math.min(idLimit, counterCapacity));
        }
    }

    /**
     * Adds what each block counted since the previous aggregation into the shared counters, then frees the blocks of
     * threads that died. One thread at a time; allocates only when a block grew since.
     *
     * @return the number of counter values changed.
     */
    public int aggregate()
    {
        synchronized (lock)
        {
            int changed = 0;
            int i = 0;
            while (i < liveCount)
            {
                final SingleWriterCounterBlock block = live[i];
                // Death first, then the fold: every count of a thread seen dead is in what the fold reads.
                final boolean ownerDead = isDead(block);
                changed += fold(block);
                if (ownerDead)
                {
                    removeLive(i);
                    release(block);
                }
                else
                {
                    i++;
                }
            }
            return changed;
        }
    }

    /** @return blocks owned by threads not yet seen dead. */
    public int liveBlocks()
    {
        synchronized (lock)
        {
            return liveCount;
        }
    }

    /** @return blocks kept for reuse. */
    public int freeBlocks()
    {
        synchronized (lock)
        {
            return freeCount;
        }
    }

    /** @return blocks allocated since creation (a block reused is not counted again). */
    public long blocksCreated()
    {
        synchronized (lock)
        {
            return blocksCreated;
        }
    }

    // The calling thread's first call: a free block, a dead owner's block, or a new one.
    private SingleWriterCounterBlock claim()
    {
        final Thread thread = Thread.currentThread();
        synchronized (lock)
        {
            SingleWriterCounterBlock block = null;
            if (freeCount > 0)
            {
                block = free[--freeCount];
                free[freeCount] = null;
                addLive(block);
            }
            else
            {
                block = takeOverDeadBlock();
            }
            if (block == null)
            {
                block = new SingleWriterCounterBlock(familyToken, idLimit);
                blocksCreated++;
                addLive(block);
            }
            block.owner = new WeakReference<>(thread);
            block.writer = thread;
            return block;
        }
    }

    // Under lock: a live block whose owner died, its last counts folded in, still in the live list; or null.
    private SingleWriterCounterBlock takeOverDeadBlock()
    {
        final int probes = Math.min(liveCount, TAKEOVER_PROBES);
        for (int p = 0; p < probes; p++)
        {
            takeoverCursor = takeoverCursor + 1 < liveCount ? takeoverCursor + 1 : 0;
            final SingleWriterCounterBlock block = live[takeoverCursor];
            if (isDead(block))
            {
                fold(block);
                return block;
            }
        }
        return null;
    }

    // Under lock: adds the block's counts since its previous fold into the shared counters.
    private int fold(final SingleWriterCounterBlock block)
    {
        final long[] counts = block.current();
        long[] folded = block.folded;
        if (folded.length < counts.length)
        {
            folded = Arrays.copyOf(folded, counts.length);
            block.folded = folded;
        }
        final AtomicBuffer values = this.values;
        final int end = Math.min(counts.length - SingleWriterCounterBlock.PADDING,
            SingleWriterCounterBlock.PADDING + counterCapacity);
        int changed = 0;
        for (int index = SingleWriterCounterBlock.PADDING; index < end; index++)
        {
            final long count = SingleWriterCounterBlock.count(counts, index);
            final long delta = count - folded[index];
            if (delta != 0)
            {
                values.getAndAddLong(CountersReader.counterOffset(index - SingleWriterCounterBlock.PADDING), delta);
                folded[index] = count;
                changed++;
            }
        }
        return changed;
    }

    private static boolean isDead(final SingleWriterCounterBlock block)
    {
        final Thread owner = block.owner == null ? null : block.owner.get();
        return owner == null || !owner.isAlive();
    }

    private void addLive(final SingleWriterCounterBlock block)
    {
        if (liveCount == live.length)
        {
            live = Arrays.copyOf(live, live.length * 2);
        }
        live[liveCount++] = block;
    }

    private void removeLive(final int index)
    {
        live[index] = live[--liveCount];
        live[liveCount] = null;
        if (live.length > 64 && liveCount < live.length / 4)
        {
            // After a burst of threads: give the slots back.
            live = Arrays.copyOf(live, live.length / 2);
        }
    }

    private void release(final SingleWriterCounterBlock block)
    {
        block.owner = null;
        block.writer = null;
        if (freeCount < free.length)
        {
            free[freeCount++] = block;
        }
    }
}
