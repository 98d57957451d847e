package io.multifactor.serving;

import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.metrics.CounterLabel;
import io.multifactor.kernel.metrics.CounterTypes;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersReader;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The process's prefix-cache affinity state per backend origin ({@link BackendPrefix}: index, wait, counters), kept
 * across configuration reloads: a {@link BackendChooser} built for the new plans finds the backends it already knew
 * with their indexes and counts. A backend listed by two models shares one entry; one whose {@code block_bytes}
 * changed starts a new index (its counts go on).
 * <p>
 * Each backend's counters ({@code mf.prefix.choices{backend,result}}, {@code mf.prefix.blocks{backend,kind}}) have one
 * home: with an engine ({@link #PrefixBackends(MultiFactorEngine)}, what a serving process uses), they are the
 * engine's Agrona counters ({@link MultiFactorEngine#externalCounters}, types {@link CounterTypes#PREFIX_CHOICES} and
 * {@link CounterTypes#PREFIX_BLOCKS}), so they are in its counters file for {@code bin/mf stat}; without one (tests,
 * the simulator's router side, benchmarks), counters in memory of this object. Either way {@link BackendPrefix} counts
 * into them and the meters read them through it.
 * <p>
 * This class is threadsafe and can be used across threads; lookups happen when a chooser is built, never per request.
 */
public final class PrefixBackends
{
    /** Visits one counter of one backend. */
    @FunctionalInterface
    public interface CounterVisitor
    {
        /**
         * @param meterName {@code mf.prefix.choices} or {@code mf.prefix.blocks}.
         * @param backend the backend's origin (tag {@code backend}).
         * @param tagKey {@code result} or {@code kind}.
         * @param tagValue warm, cold, release; looked_up, matched.
         * @param counted the backend whose counter it is.
         * @param which the counter: 0..2 the results, 3 looked up, 4 matched ({@link #value}).
         */
        void counter(String meterName, String backend, String tagKey, String tagValue, BackendPrefix counted, int which);
    }

    /** Meter of the choices by result. */
    public static final String CHOICES = "mf.prefix.choices";
    /** Meter of the blocks looked up and matched. */
    public static final String BLOCKS = "mf.prefix.blocks";

    /** A backend's counter of warm choices (index in its counters; {@link PrefixTicket#WARM}). */
    static final int WARM_COUNTER = PrefixTicket.WARM;
    /** A backend's counter of cold choices ({@link PrefixTicket#COLD}). */
    static final int COLD_COUNTER = PrefixTicket.COLD;
    /** A backend's counter of releases ({@link PrefixTicket#RELEASE}). */
    static final int RELEASE_COUNTER = PrefixTicket.RELEASE;
    /** A backend's counter of blocks looked up. */
    static final int LOOKED_UP_COUNTER = 3;
    /** A backend's counter of blocks matched. */
    static final int MATCHED_COUNTER = 4;
    /** Counters per backend. */
    static final int COUNTERS = 5;

    private final ConcurrentHashMap<String, BackendPrefix> byKey = new ConcurrentHashMap<>();
    private final MultiFactorEngine engineOrNull;

    /** State whose counters live in memory of this object (no counters file sees them). */
    public PrefixBackends()
    {
        this.engineOrNull = null;
    }

    /**
     * State whose counters are the engine's ({@link MultiFactorEngine#externalCounters}): in its counters file, which
     * {@code bin/mf stat} reads. Should the engine have no room for a backend's counters, they live in memory instead.
     *
     * @param engine the process's engine.
     */
    public PrefixBackends(final MultiFactorEngine engine)
    {
        this.engineOrNull = engine;
    }

    /**
     * @param key the backend's origin.
     * @param blockBytes its model's {@code block_bytes}.
     * @param capacityBlocks its model's {@code capacity_blocks}.
     * @return its state, created (or re-created for a new block size) when needed.
     */
    BackendPrefix backend(final String key, final int blockBytes, final int capacityBlocks)
    {
        return byKey.compute(key, (k, known) -> known != null && known.blockBytes() == blockBytes ? known :
            new BackendPrefix(k, blockBytes, capacityBlocks, known != null ? known.counters() : counters(k)));
    }

    /**
     * @param backend the label of a backend's meters
     * @return its counters in {@link BackendPrefix}'s order: the engine's when there is one and it has room.
     */
    private AtomicCounter[] counters(final String backend)
    {
        if (engineOrNull != null)
        {
            final String[] labels = new String[COUNTERS];
            final int[] types = new int[COUNTERS];
            for (int r = 0; r < PrefixTicket.RESULTS.length; r++)
            {
                labels[r] = CounterLabel.format(CHOICES, "backend", backend, "result", PrefixTicket.RESULTS[r]);
                types[r] = CounterTypes.PREFIX_CHOICES;
            }
            labels[LOOKED_UP_COUNTER] = CounterLabel.format(BLOCKS, "backend", backend, "kind", "looked_up");
            labels[MATCHED_COUNTER] = CounterLabel.format(BLOCKS, "backend", backend, "kind", "matched");
            types[LOOKED_UP_COUNTER] = CounterTypes.PREFIX_BLOCKS;
            types[MATCHED_COUNTER] = CounterTypes.PREFIX_BLOCKS;
            try
            {
                return engineOrNull.externalCounters(labels, types);
            }
            catch (final IllegalStateException ex)
            {
                // The engine has no room for them: this backend counts in memory (its meters still show it).
            }
        }
        final AtomicCounter[] counters = new AtomicCounter[COUNTERS];
        final UnsafeBuffer memory = new UnsafeBuffer(
            BufferUtil.allocateDirectAligned(COUNTERS * CountersReader.COUNTER_LENGTH, CountersReader.COUNTER_LENGTH));
        for (int i = 0; i < COUNTERS; i++)
        {
            counters[i] = new AtomicCounter(memory, i);
        }
        return counters;
    }

    /**
     * @param key a backend's origin ({@code http://host:port}).
     * @return its state, or {@code null} when no model with {@code prefix_affinity} lists it.
     */
    public BackendPrefix backend(final String key)
    {
        return byKey.get(key);
    }

    /** @return the backends known, in no particular order (a copy). */
    public List<BackendPrefix> backends()
    {
        return new ArrayList<>(byKey.values());
    }

    /**
     * Sizes a backend's index from its server's {@code vllm:cache_config_info} ({@link BackendPrefix#sizeFromServer}).
     *
     * @param key the backend's origin.
     * @param numGpuBlocks {@code num_gpu_blocks}.
     * @param blockSizeTokens {@code block_size}.
     * @return the index's capacity now, or -1 when the backend is not followed.
     */
    public int reportCacheSize(final String key, final long numGpuBlocks, final long blockSizeTokens)
    {
        final BackendPrefix backend = byKey.get(key);
        return backend == null ? -1 : backend.sizeFromServer(numGpuBlocks, blockSizeTokens);
    }

    /**
     * Visits every counter of every backend (for a meter registry: {@code mf.prefix.choices{backend,result}} and
     * {@code mf.prefix.blocks{backend,kind}}); read each with {@link #value}.
     *
     * @param visitor what to call per counter.
     */
    public void forEachCounter(final CounterVisitor visitor)
    {
        for (final BackendPrefix b : byKey.values())
        {
            for (int r = 0; r < PrefixTicket.RESULTS.length; r++)
            {
                visitor.counter(CHOICES, b.key(), "result", PrefixTicket.RESULTS[r], b, r);
            }
            visitor.counter(BLOCKS, b.key(), "kind", "looked_up", b, LOOKED_UP_COUNTER);
            visitor.counter(BLOCKS, b.key(), "kind", "matched", b, MATCHED_COUNTER);
        }
    }

    /**
     * @param backend a backend.
     * @param which a counter as {@link CounterVisitor#counter} numbers it.
     * @return its value.
     */
    public static long value(final BackendPrefix backend, final int which)
    {
        switch (which)
        {
            case WARM_COUNTER:
                return backend.warm();
            case COLD_COUNTER:
                return backend.cold();
            case RELEASE_COUNTER:
                return backend.release();
            case LOOKED_UP_COUNTER:
                return backend.blocksLookedUp();
            default:
                return backend.blocksMatched();
        }
    }

    /**
     * @param meterName {@link #CHOICES} or {@link #BLOCKS}.
     * @return its help text.
     */
    public static String help(final String meterName)
    {
        return CHOICES.equals(meterName)
            ? "Backend choices under prefix-cache affinity by result: warm (where the prefix is cached), cold (no " +
                "backend held it), release (a warm backend waited too long)"
            : "Prompt blocks looked up and matched in the index of the backend chosen (matched / looked_up is its " +
                "prefix hit rate)";
    }
}
