package io.multifactor.kernel.reliability;

import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.status.CountersReader;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * The ejection words of every model, by slot (the model's in-flight counter id, which follows its name across
 * reloads), the probe lease each half-open model has out, and the models' state machines by slot, for the end of a
 * lease to find its model.
 * <pre>
 *   words:        [ word(slot 0) | word(slot 1) | ... ]    EjectionWord layout, 0 = never ejected
 *   probeLeases:  [ lease(0)     | lease(1)     | ... ]    the probe of a PROBING slot
 * </pre>
 * {@link #ejected(int)} is what {@code select} calls per candidate: one plain load of the word, and the clock read only
 * when the word is not healthy. Plain loads are safe for the same reasons as the kernel's other signals: the engine's
 * {@code select} starts with a volatile load, each word is one aligned 64-bit value (never torn), and a word one
 * transition old is a valid recent state. Writers change words only by compare-and-swap (or an atomic exchange).
 * <p>
 * The table also counts its words that are not healthy ({@link #allHealthy()}): one counter, changed only when a word
 * leaves or enters the healthy phase (rare: an ejection, the end of a probe), so that {@code select} on a decision whose
 * models are all healthy - the common case of a decision with {@code reliability} - learns it from one load and reads
 * no word. The count is raised before a word leaves the healthy phase and lowered after one enters it, so it is never
 * below the number of words that are not healthy.
 * <p>
 * This class is threadsafe: reads and transitions are lock-free and allocation-free from any thread; {@link #models}
 * is replaced under the engine's lock and read with one volatile load.
 */
public final class EjectionTable
{
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle UNHEALTHY_WORDS;

    static
    {
        try
        {
            UNHEALTHY_WORDS = MethodHandles.lookup().findVarHandle(EjectionTable.class, "unhealthyWords", int.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final long[] words;
    private final long[] probeLeases;
    private final NanoClock clock;
    private final long originNs;
    private volatile ModelEjection[] models;
    // Words not in the healthy phase, or about to leave it, or just back in it (see the class comment).
    @SuppressWarnings("unused")
    private volatile int unhealthyWords;

    /**
     * @param capacity number of slots: the engine's counter capacity (slots are in-flight counter ids).
     * @param clock the engine's clock.
     * @param originNs the clock's time at the engine's start: word times are milliseconds since then.
     */
    public EjectionTable(final int capacity, final NanoClock clock, final long originNs)
    {
        this.words = new long[Math.max(1, capacity)];
        this.probeLeases = new long[words.length];
        this.clock = clock;
        this.originNs = originNs;
        this.models = new ModelEjection[words.length];
    }

    /**
     * @param counterOffset an in-flight counter's value offset.
     * @return its slot in this table.
     */
    public static int slotOf(final int counterOffset)
    {
        return counterOffset / CountersReader.COUNTER_LENGTH;
    }

    /** @return the number of slots. */
    public int capacity()
    {
        return words.length;
    }

    /** @return now on the engine's clock, in milliseconds since its origin (one clock read). */
    public long nowMs()
    {
        return Math.floorDiv(clock.nanoTime() - originNs, 1_000_000L);
    }

    /**
     * Whether every word is healthy, so that no model of this table is ejected, half-open or probing: one load (an
     * acquire load: each call reads it afresh, and what the thread reads after it is at least as recent), no clock
     * read. It may lag a transition by as long as a plain load of the word would.
     *
     * @return true when no word is out of the healthy phase.
     */
    public boolean allHealthy()
    {
        return (int)UNHEALTHY_WORDS.getAcquire(this) == 0;
    }

    /**
     * Whether {@code select} sees the model of a slot as ejected now. One plain load; the clock is read only when the
     * word is not healthy. Allocates nothing.
     *
     * @param slot a slot.
     * @return whether it is ejected (or half-open with its probe out).
     */
    public boolean ejected(final int slot)
    {
        final long word = words[slot];
        return EjectionWord.phase(word) != EjectionWord.HEALTHY && EjectionWord.ejectedAt(word, nowMs());
    }

    /**
     * @param slot a slot.
     * @return the milliseconds its ejection has left (0 while its probe is out), NaN when it is not ejected.
     */
    public double ejectedMillisLeft(final int slot)
    {
        final long word = words[slot];
        final int phase = EjectionWord.phase(word);
        if (phase == EjectionWord.HEALTHY)
        {
            return Double.NaN;
        }
        if (phase == EjectionWord.PROBING)
        {
            return 0.0;
        }
        final long leftMs = EjectionWord.timeMs(word) - nowMs();
        return leftMs > 0 ? leftMs : Double.NaN;
    }

    /**
     * Sets a slot's state directly, for tables that hold given observations rather than an engine's models: ejected
     * for {@code millisLeft} from now (rounded up to whole milliseconds), half-open with its probe out for 0, healthy
     * for NaN (or a negative value). Lock-free.
     *
     * @param slot a slot.
     * @param millisLeft milliseconds of ejection left, 0 for a probe out, NaN for healthy.
     */
    public void state(final int slot, final double millisLeft)
    {
        final long word;
        if (!(millisLeft >= 0.0))
        {
            word = 0L;
        }
        else if (millisLeft == 0.0)
        {
            word = EjectionWord.of(EjectionWord.PROBING, 0, nowMs());
        }
        else
        {
            word = EjectionWord.of(EjectionWord.EJECTED, 0, nowMs() + (long)Math.ceil(Math.min(millisLeft, 1e15)));
        }
        exchange(slot, word);
    }

    /**
     * @param slot a slot.
     * @return its word (a plain load).
     */
    public long word(final int slot)
    {
        return words[slot];
    }

    /**
     * @param slot a slot.
     * @return its word (a volatile load).
     */
    long wordVolatile(final int slot)
    {
        return (long)LONGS.getVolatile(words, slot);
    }

    boolean compareAndSet(final int slot, final long expected, final long next)
    {
        final boolean wasHealthy = EjectionWord.phase(expected) == EjectionWord.HEALTHY;
        final boolean healthy = EjectionWord.phase(next) == EjectionWord.HEALTHY;
        if (wasHealthy && !healthy)
        {
            // Counted before the word leaves the healthy phase: a select that reads the count 0 afterwards reads a word
            // that was still healthy.
            UNHEALTHY_WORDS.getAndAdd(this, 1);
            if (!LONGS.compareAndSet(words, slot, expected, next))
            {
                UNHEALTHY_WORDS.getAndAdd(this, -1);
                return false;
            }
            return true;
        }
        final boolean swapped = LONGS.compareAndSet(words, slot, expected, next);
        if (swapped && !wasHealthy && healthy)
        {
            UNHEALTHY_WORDS.getAndAdd(this, -1);
        }
        return swapped;
    }

    void reset(final int slot)
    {
        exchange(slot, 0L);
    }

    // Sets a word whatever it held, keeping the count of words out of the healthy phase.
    private void exchange(final int slot, final long word)
    {
        final boolean healthy = EjectionWord.phase(word) == EjectionWord.HEALTHY;
        if (!healthy)
        {
            UNHEALTHY_WORDS.getAndAdd(this, 1);
        }
        final long previous = (long)LONGS.getAndSet(words, slot, word);
        if (EjectionWord.phase(previous) != EjectionWord.HEALTHY)
        {
            UNHEALTHY_WORDS.getAndAdd(this, -1);
        }
    }

    long probeLease(final int slot)
    {
        return (long)LONGS.getVolatile(probeLeases, slot);
    }

    void probeLease(final int slot, final long lease)
    {
        LONGS.setVolatile(probeLeases, slot, lease);
    }

    /**
     * @param counterOffset the in-flight counter value offset of a lease.
     * @return the state machine of the model counting on it, or null (no model, or one retired since).
     */
    public ModelEjection model(final int counterOffset)
    {
        final ModelEjection[] models = this.models;
        final int slot = counterOffset / CountersReader.COUNTER_LENGTH;
        return slot >= 0 && slot < models.length ? models[slot] : null;
    }

    /**
     * Under the engine's lock: publishes the state machines of the current plans' models (one volatile write).
     *
     * @param bySlot the state machine of each slot, null where no current model counts; copied.
     */
    public void models(final ModelEjection[] bySlot)
    {
        models = Arrays.copyOf(bySlot, words.length);
    }

    /**
     * From the lease sweep: a lease was reclaimed after {@code inflight_max_age}; if it was its model's probe, the
     * probe counts as a failure.
     *
     * @param counterOffset the lease's in-flight counter offset.
     * @param lease the lease.
     */
    public void onReclaimed(final int counterOffset, final long lease)
    {
        final ModelEjection model = model(counterOffset);
        if (model != null)
        {
            model.onProbeLost(lease);
        }
    }
}
