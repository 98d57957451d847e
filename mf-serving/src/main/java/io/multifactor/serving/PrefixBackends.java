package io.multifactor.serving;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The process's prefix-cache affinity state per backend origin ({@link BackendPrefix}: index, wait, counters), kept
 * across configuration reloads: a {@link BackendChooser} built for the new plans finds the backends it already knew
 * with their indexes and counts. A backend listed by two models shares one entry; one whose {@code block_bytes}
 * changed starts a new index (its counts restart).
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

    private final ConcurrentHashMap<String, BackendPrefix> byKey = new ConcurrentHashMap<>();

    /**
     * @param key the backend's origin.
     * @param blockBytes its model's {@code block_bytes}.
     * @param capacityBlocks its model's {@code capacity_blocks}.
     * @return its state, created (or re-created for a new block size) when needed.
     */
    BackendPrefix backend(final String key, final int blockBytes, final int capacityBlocks)
    {
        return byKey.compute(key, (k, known) ->
            known != null && known.blockBytes() == blockBytes ? known : new BackendPrefix(k, blockBytes, capacityBlocks));
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
            visitor.counter(BLOCKS, b.key(), "kind", "looked_up", b, 3);
            visitor.counter(BLOCKS, b.key(), "kind", "matched", b, 4);
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
            case 0:
                return backend.warm();
            case 1:
                return backend.cold();
            case 2:
                return backend.release();
            case 3:
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
