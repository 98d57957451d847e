package io.multifactor.kernel.fleet;

import io.multifactor.kernel.latency.LatencyWindow;
import org.HdrHistogram.Histogram;

import java.util.HashMap;
import java.util.Map;

/**
 * Per-model fleet signals keyed by model name: an in-flight count and the TTFT and TPOT samples of one interval, as
 * HdrHistograms with the range and precision of {@link LatencyWindow}. One instance carries what this replica
 * publishes (its local counts and the samples recorded since the last exchange); another carries what the others
 * published (the sum of their last counts and the intervals received since the last exchange).
 * <p>
 * Holds at most {@link #capacity()} models; histograms are allocated the first time a slot is used and reused after
 * {@link #clear()}, so memory stays bounded by the capacity whatever a transport receives.
 * <p>
 * This class is not threadsafe: it belongs to the fleet agent's thread.
 */
public final class FleetSignals
{
    /** {@link #indexOf(String)} of a name that is not held, and {@link #add(String)} when full. */
    public static final int NONE = -1;

    private final int capacity;
    private final String[] names;
    private final long[] inflight;
    private final Histogram[] ttft;
    private final Histogram[] tpot;
    private final Map<String, Integer> indexByName;
    private int size;

    /**
     * @param capacity the most models held at once, at least 1.
     * @throws IllegalArgumentException when capacity is below 1.
     */
    public FleetSignals(final int capacity)
    {
        if (capacity < 1)
        {
            throw new IllegalArgumentException("capacity must be at least 1: " + capacity);
        }
        this.capacity = capacity;
        names = new String[capacity];
        inflight = new long[capacity];
        ttft = new Histogram[capacity];
        tpot = new Histogram[capacity];
        indexByName = new HashMap<>(capacity * 2);
    }

    /** @return a histogram with the range and precision of the engine's latency windows. */
    public static Histogram newIntervalHistogram()
    {
        return new Histogram(1, LatencyWindow.MAX_TRACKABLE_MICROS, LatencyWindow.SIGNIFICANT_DIGITS);
    }

    /** @return the most models held at once. */
    public int capacity()
    {
        return capacity;
    }

    /** @return the number of models held. */
    public int size()
    {
        return size;
    }

    /**
     * @param index 0..size-1.
     * @return the model name at that index.
     */
    public String name(final int index)
    {
        return names[index];
    }

    /**
     * @param index 0..size-1.
     * @return the in-flight count of that model.
     */
    public long inflight(final int index)
    {
        return inflight[index];
    }

    /**
     * @param index 0..size-1.
     * @param count the in-flight count of that model.
     */
    public void inflight(final int index, final long count)
    {
        inflight[index] = count;
    }

    /**
     * @param index 0..size-1.
     * @return the TTFT interval of that model, in microseconds (add to it, read it; do not keep it).
     */
    public Histogram ttft(final int index)
    {
        return ttft[index];
    }

    /**
     * @param index 0..size-1.
     * @return the TPOT interval of that model, in microseconds.
     */
    public Histogram tpot(final int index)
    {
        return tpot[index];
    }

    /**
     * @param name a model name.
     * @return its index, or {@link #NONE}.
     */
    public int indexOf(final String name)
    {
        final Integer index = indexByName.get(name);
        return index == null ? NONE : index;
    }

    /**
     * The index of a model, added with count 0 and empty intervals when it is not held yet.
     *
     * @param name a model name.
     * @return its index, or {@link #NONE} when it is new and {@link #capacity()} models are already held.
     */
    public int add(final String name)
    {
        final Integer known = indexByName.get(name);
        if (known != null)
        {
            return known;
        }
        if (size == capacity)
        {
            return NONE;
        }
        final int index = size++;
        names[index] = name;
        inflight[index] = 0;
        if (ttft[index] == null)
        {
            ttft[index] = newIntervalHistogram();
            tpot[index] = newIntervalHistogram();
        }
        indexByName.put(name, index);
        return index;
    }

    /** Forgets every model (their histograms are reset and kept for reuse). */
    public void clear()
    {
        for (int i = 0; i < size; i++)
        {
            names[i] = null;
            inflight[i] = 0;
            resetIfUsed(ttft[i]);
            resetIfUsed(tpot[i]);
        }
        indexByName.clear();
        size = 0;
    }

    /** Empties every interval and keeps the names and counts. */
    public void clearIntervals()
    {
        for (int i = 0; i < size; i++)
        {
            resetIfUsed(ttft[i]);
            resetIfUsed(tpot[i]);
        }
    }

    // Resetting clears the whole counts array: skip the (common) empty ones.
    private static void resetIfUsed(final Histogram histogram)
    {
        if (histogram.getTotalCount() != 0)
        {
            histogram.reset();
        }
    }

    /**
     * Copies another instance (names, counts, intervals) into this one, after clearing it.
     *
     * @param other the source; models beyond this capacity are left out.
     */
    public void copyFrom(final FleetSignals other)
    {
        clear();
        for (int i = 0; i < other.size; i++)
        {
            final int index = add(other.names[i]);
            if (index == NONE)
            {
                return;
            }
            inflight[index] = other.inflight[i];
            if (other.ttft[i].getTotalCount() != 0)
            {
                ttft[index].add(other.ttft[i]);
            }
            if (other.tpot[i].getTotalCount() != 0)
            {
                tpot[index].add(other.tpot[i]);
            }
        }
    }
}
