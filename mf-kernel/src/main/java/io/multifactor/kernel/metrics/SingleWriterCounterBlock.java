package io.multifactor.kernel.metrics;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;

/**
 * One thread's counts of the engine's selection and drop counters, indexed by Agrona counter id, so that a
 * {@code select} counts with plain stores into memory no other thread writes; {@link PerThreadCounterBlocks} adds what
 * every block counted into the shared Agrona counters once per refresh period.
 * <pre>
 *   values (long[]):  | padding: 16 longs | count of id 0 | count of id 1 | ... | count of id n-1 | padding: 16 longs |
 * </pre>
 * Counts only grow (a block reused by another thread keeps them), so the aggregator adds the difference from what it
 * folded last time and never loses or repeats a count. 128 bytes of padding on each side keep two blocks' counts (and
 * their adjacent-line pairs) apart, wherever the heap places the arrays. A counter id above the array's end grows it
 * (its owner copies, then publishes the new array with a release store); an id below 0 counts nothing.
 * <p>
 * This class is not threadsafe for writers: only the owner thread calls {@link #increment} (opaque stores, no
 * {@code lock}-prefixed instruction); the aggregator reads the counts with acquire loads. A block
 * changes owner only through {@link PerThreadCounterBlocks}, after its previous owner died.
 */
public final class SingleWriterCounterBlock
{
    /** Longs of padding before the first and after the last count. */
    static final int PADDING = 16;

    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle VALUES;

    static
    {
        try
        {
            VALUES = MethodHandles.lookup().findVarHandle(SingleWriterCounterBlock.class, "values", long[].class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    // Written by the owner only (growth, with a release store); read by the owner plainly and by the aggregator with
    // an acquire load.
    private long[] values;

    // Aggregator side, guarded by the lock of PerThreadCounterBlocks: never touched by the owner's increments.
    WeakReference<Thread> owner;
    // The thread that writes this block: set by that thread itself when it claims the block (under the lock), cleared
    // when the block is freed after its death. Read without the lock by any thread asking whether the block is its own
    // (PerThreadCounterBlocks#forCurrentThread(Object)): only it can have written itself here, so a racy read never
    // makes another thread the writer.
    Thread writer;
    // The identity of the blocks this one belongs to (PerThreadCounterBlocks#familyToken), not the blocks themselves:
    // a block is its thread's ThreadLocal value, and a value that reached its ThreadLocal (the blocks hold it) would
    // keep the entry, and with it the engine's counters, alive for as long as the thread lives, after the engine closed.
    final Object family;
    long[] folded;

    /**
     * @param family the identity of the blocks it belongs to.
     * @param idLimit counter ids the block holds before it first grows.
     */
    SingleWriterCounterBlock(final Object family, final int idLimit)
    {
        this.family = family;
        values = new long[PADDING + Math.max(1, idLimit) + PADDING];
        folded = new long[values.length];
    }

    /**
     * Counts one event on a counter. Owner thread only; allocation-free unless the id is beyond every id seen so far
     * (the block grows once), never throws.
     *
     * @param counterId an Agrona counter id; below 0 counts nothing.
     */
    public void increment(final int counterId)
    {
        final long[] values = this.values;
        final int index = counterId + PADDING;
        if (counterId >= 0 && index < values.length - PADDING)
        {
            // Opaque: a plain store on x86 that the JIT may not tear or drop, and that orders nothing else, so the kernel's
            // loop around a drop keeps its values in registers (a release store would pin earlier stores before it).
            // The owner is the only writer, so no atomic read-modify-write is needed; the aggregator sees the count at
            // most a period late, and every count of a thread that ended (its termination happens-before the fold).
            LONGS.setOpaque(values, index, values[index] + 1);
        }
        else
        {
            incrementSlowPath(counterId);
        }
    }

    /**
     * @param counterId an Agrona counter id.
     * @return this block's count of it, as its owner last published it (acquire load); 0 beyond the block.
     */
    public long count(final int counterId)
    {
        final long[] values = current();
        final int index = counterId + PADDING;
        return counterId >= 0 && index < values.length - PADDING ? count(values, index) : 0L;
    }

    /** @return the counts array as last published by the owner (acquire load), padding included. */
    long[] current()
    {
        return (long[])VALUES.getAcquire(this);
    }

    /**
     * @param values an array from {@link #current()}.
     * @param index an index into it.
     * @return the count there (acquire load).
     */
    static long count(final long[] values, final int index)
    {
        return (long)LONGS.getAcquire(values, index);
    }

    private void incrementSlowPath(final int counterId)
    {
        if (counterId < 0)
        {
            return;
        }
        final long[] values = this.values;
        final int held = values.length - 2 * PADDING;
        final int grownIds = Math.max(counterId + 1, held <= (Integer.MAX_VALUE >> 2) ? held * 2 : counterId + 1);
        final long[] grown = new long[PADDING + grownIds + PADDING];
        // The owner's own stores: plain loads see them. Counts land in the new array from here on.
        System.arraycopy(values, 0, grown, 0, values.length);
        grown[counterId + PADDING]++;
        // Release: the aggregator that loads the new array (acquire) sees every count copied into it.
        VALUES.setRelease(this, grown);
    }
}
