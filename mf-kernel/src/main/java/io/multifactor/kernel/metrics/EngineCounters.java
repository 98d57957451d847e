package io.multifactor.kernel.metrics;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Allocates the engine's counters by label, follows them across plan replacements, and frees those of retired models
 * and decisions so that their ids are reused: the counter capacity bounds the counters of the current plans (plus the
 * recently retired), not every name the engine has ever seen.
 * <p>
 * A plan replacement is one generation: {@link #beginGeneration()}, then {@link #use} for every counter the new plans
 * need (a label already allocated keeps its counter and its value), then {@link #commitGeneration(long)}, which marks
 * every counter not used as retired (in its key, for readers), or {@link #abortGeneration()}, which frees what the
 * generation allocated and leaves the running counters as they were. {@link #reclaim(long, long)} frees a retired
 * counter once a grace period has passed (so that a thread still holding the previous plans' offsets never counts into
 * a reused id) and, for an in-flight counter, once its value is 0 (a lease still open would otherwise end into another
 * model's counter). Counters allocated with {@link #permanent} are never retired.
 * <p>
 * This class is not threadsafe: the engine calls it under its lock. Counting into the counters is done through
 * {@link CounterBuffers#values()} from any thread.
 */
public final class EngineCounters
{
    private final CounterBuffers counters;
    private final Map<String, Entry> byLabel = new HashMap<>();
    private final List<Entry> createdInGeneration = new ArrayList<>();
    private final List<Entry> revivedInGeneration = new ArrayList<>();
    private long generation;
    private int retiredCount;

    /**
     * @param counters the buffers to allocate from.
     */
    public EngineCounters(final CounterBuffers counters)
    {
        this.counters = counters;
    }

    /**
     * Allocates a counter that lives as long as the engine (an engine-wide event, reload or fleet counter).
     *
     * @param label its label ({@link CounterLabel} grammar).
     * @param typeId one of {@link CounterTypes}.
     * @return the counter id.
     * @throws IllegalStateException when every counter is in use.
     */
    public int permanent(final String label, final int typeId)
    {
        final int counterId = counters.allocate(label, typeId);
        final Entry entry = new Entry(label, typeId, counterId, Long.MAX_VALUE);
        entry.permanent = true;
        byLabel.put(label, entry);
        return counterId;
    }

    /**
     * A counter that lives as long as the engine and that a part of the process outside the kernel counts into (the
     * serving layer's {@code mf.prefix.*}): the one allocated before under this label, else a new one.
     *
     * @param label its label ({@link CounterLabel} grammar).
     * @param typeId one of {@link CounterTypes}.
     * @return the counter id.
     * @throws IllegalStateException when a new counter is needed and every counter is in use.
     * @throws IllegalArgumentException when the label belongs to a counter of the plans or of another type.
     */
    public int external(final String label, final int typeId)
    {
        return hasExternal(label, typeId) ? byLabel.get(label).counterId : permanent(label, typeId);
    }

    /**
     * @param label a label.
     * @param typeId one of {@link CounterTypes}.
     * @return whether {@link #external} would find the counter (false: it would allocate one).
     * @throws IllegalArgumentException when {@link #external} would refuse the label.
     */
    public boolean hasExternal(final String label, final int typeId)
    {
        final Entry entry = byLabel.get(label);
        if (entry != null && (!entry.permanent || entry.typeId != typeId))
        {
            throw new IllegalArgumentException("counter " + label + " is already one of the engine's own, or of type " +
                entry.typeId + ", not " + typeId);
        }
        return entry != null;
    }

    /** Starts the set of counters of the next plans. */
    public void beginGeneration()
    {
        generation++;
        createdInGeneration.clear();
        revivedInGeneration.clear();
    }

    /**
     * The counter of {@code label} for the generation being built: the existing one (revived if it was retired, its
     * value kept) or a new one.
     *
     * @param label its label ({@link CounterLabel} grammar).
     * @param typeId one of {@link CounterTypes}; a label keeps the type it was first allocated with.
     * @return the counter id.
     * @throws IllegalStateException when a new counter is needed and every counter is in use.
     */
    public int use(final String label, final int typeId)
    {
        Entry entry = byLabel.get(label);
        if (entry == null)
        {
            entry = new Entry(label, typeId, counters.allocate(label, typeId), generation);
            byLabel.put(label, entry);
            createdInGeneration.add(entry);
        }
        else if (entry.retired)
        {
            entry.retired = false;
            retiredCount--;
            counters.retired(entry.counterId, false);
            revivedInGeneration.add(entry);
        }
        entry.usedInGeneration = generation;
        return entry.counterId;
    }

    /** Forgets the generation being built: frees the counters it allocated and re-retires those it revived. */
    public void abortGeneration()
    {
        for (final Entry entry : createdInGeneration)
        {
            byLabel.remove(entry.label);
            counters.free(entry.counterId);
        }
        for (final Entry entry : revivedInGeneration)
        {
            entry.retired = true;
            retiredCount++;
            counters.retired(entry.counterId, true);
        }
        createdInGeneration.clear();
        revivedInGeneration.clear();
        generation++;
    }

    /**
     * Makes the generation being built the current one: every counter it did not use is retired from {@code nowNs}.
     *
     * @param nowNs the engine clock's time.
     */
    public void commitGeneration(final long nowNs)
    {
        for (final Entry entry : byLabel.values())
        {
            if (!entry.permanent && !entry.retired && entry.usedInGeneration != generation)
            {
                entry.retired = true;
                retiredCount++;
                entry.retiredAtNs = nowNs;
                counters.retired(entry.counterId, true);
            }
        }
        createdInGeneration.clear();
        revivedInGeneration.clear();
    }

    /**
     * Frees the retired counters nothing can count into any more: retired at least {@code graceNs} ago, and for an
     * in-flight counter, reading 0.
     *
     * @param nowNs the engine clock's time.
     * @param graceNs how long a retired counter stays allocated.
     * @return the number of counters freed.
     */
    public int reclaim(final long nowNs, final long graceNs)
    {
        if (retiredCount == 0)
        {
            // The steady state: nothing to look at, nothing allocated.
            return 0;
        }
        int freed = 0;
        for (final Iterator<Entry> it = byLabel.values().iterator(); it.hasNext(); )
        {
            final Entry entry = it.next();
            if (entry.retired && nowNs - entry.retiredAtNs >= graceNs &&
                (!holdsLeases(entry.typeId) || counters.value(entry.counterId) == 0))
            {
                it.remove();
                counters.free(entry.counterId);
                retiredCount--;
                freed++;
            }
        }
        return freed;
    }

    /**
     * @param label a label.
     * @return whether a counter with that label is allocated and not retired.
     */
    public boolean isLive(final String label)
    {
        final Entry entry = byLabel.get(label);
        return entry != null && !entry.retired;
    }

    /** @return the number of counters retired and not yet freed. */
    public int retiredCount()
    {
        return retiredCount;
    }

    /** @return the number of counters allocated (live, retired and permanent). */
    public int allocatedCount()
    {
        return byLabel.size();
    }

    /** @return the buffers. */
    public CounterBuffers counters()
    {
        return counters;
    }

    private static final class Entry
    {
        final String label;
        final int typeId;
        final int counterId;
        long usedInGeneration;
        long retiredAtNs;
        boolean retired;
        boolean permanent;

        Entry(final String label, final int typeId, final int counterId, final long generation)
        {
            this.label = label;
            this.typeId = typeId;
            this.counterId = counterId;
            this.usedInGeneration = generation;
        }
    }

    // A lease may still count out of these: they are freed only once they read 0.
    private static boolean holdsLeases(final int typeId)
    {
        return typeId == CounterTypes.INFLIGHT || typeId == CounterTypes.INFLIGHT_TOKENS;
    }
}
