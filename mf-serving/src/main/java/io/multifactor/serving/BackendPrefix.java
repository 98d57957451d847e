package io.multifactor.serving;

import io.multifactor.config.model.PrefixAffinityConfig;
import org.agrona.concurrent.status.AtomicCounter;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What prefix-cache affinity keeps about one backend (one origin, {@code http://host:port}): its {@link PrefixIndex},
 * the uncached prompt tokens of this process's requests sent there that have no first chunk yet (its wait is those /
 * {@code prefill_tokens_per_s}), and its counters: choices by result (warm, cold, release) and blocks looked up and
 * matched in the choices that picked it (their ratio is its hit rate). The counters are Agrona counters, in a serving
 * process the engine's own ({@code mf.prefix.*} in its counters file, which {@code bin/mf stat} reads, and in its
 * meters): this object counts into them and reads them, nothing else counts them.
 * <p>
 * This class is threadsafe and can be used across threads: counts are atomic, the index is threadsafe.
 */
public final class BackendPrefix
{
    private final String key;
    private final PrefixIndex index;
    private final int blockBytes;
    private final AtomicLong pendingTokens = new AtomicLong();
    /** Choices by result in {@link PrefixTicket}'s order (warm, cold, release), then blocks looked up and matched. */
    private final AtomicCounter[] counters;

    BackendPrefix(final String key, final int blockBytes, final int capacityBlocks, final AtomicCounter[] counters)
    {
        this.key = key;
        this.blockBytes = blockBytes;
        this.index = new PrefixIndex(capacityBlocks);
        this.counters = counters;
    }

    /** @return its counters, which a successor for a new block size takes over (its counts go on). */
    AtomicCounter[] counters()
    {
        return counters;
    }

    /** @return the backend's origin, the {@code backend} tag of its meters. */
    public String key()
    {
        return key;
    }

    /** @return its index of block hashes. */
    public PrefixIndex index()
    {
        return index;
    }

    /** @return the block size its index was built for. */
    public int blockBytes()
    {
        return blockBytes;
    }

    /** @return uncached prompt tokens of requests sent to it that have no first chunk yet. */
    public long pendingTokens()
    {
        return pendingTokens.get();
    }

    /** @return choices of this backend as the warm one. */
    public long warm()
    {
        return counters[PrefixBackends.WARM_COUNTER].get();
    }

    /** @return choices of this backend when no backend was warm. */
    public long cold()
    {
        return counters[PrefixBackends.COLD_COUNTER].get();
    }

    /** @return choices of this backend over a warm one whose wait was too long (the release). */
    public long release()
    {
        return counters[PrefixBackends.RELEASE_COUNTER].get();
    }

    /** @return prompt blocks looked up in the choices that picked it. */
    public long blocksLookedUp()
    {
        return counters[PrefixBackends.LOOKED_UP_COUNTER].get();
    }

    /** @return of those, the blocks its index held (leading, up to the first miss). */
    public long blocksMatched()
    {
        return counters[PrefixBackends.MATCHED_COUNTER].get();
    }

    /**
     * Sizes the index from the server's reported cache: {@code num_gpu_blocks x block_size x 4 / block_bytes} blocks
     * (about 4 bytes of prompt per token), at most {@link PrefixAffinityConfig#MAX_CAPACITY_BLOCKS}.
     *
     * @param numGpuBlocks the server's KV-cache blocks ({@code vllm:cache_config_info}'s {@code num_gpu_blocks}).
     * @param blockSizeTokens tokens per KV-cache block ({@code block_size}).
     * @return the capacity now, in blocks of {@link #blockBytes()}.
     */
    public int sizeFromServer(final long numGpuBlocks, final long blockSizeTokens)
    {
        if (numGpuBlocks <= 0 || blockSizeTokens <= 0)
        {
            return index.capacity();
        }
        final double blocks = (double)numGpuBlocks * blockSizeTokens * 4 / blockBytes;
        final int capacity = (int)Math.max(1, Math.min(PrefixAffinityConfig.MAX_CAPACITY_BLOCKS, blocks));
        index.resize(capacity);
        return capacity;
    }

    void addPending(final long tokens)
    {
        pendingTokens.addAndGet(tokens);
    }

    void count(final int result, final int blocks, final int matchedBlocks)
    {
        counters[result == PrefixTicket.WARM || result == PrefixTicket.RELEASE ? result : PrefixTicket.COLD].increment();
        if (blocks > 0)
        {
            counters[PrefixBackends.LOOKED_UP_COUNTER].getAndAdd(blocks);
            counters[PrefixBackends.MATCHED_COUNTER].getAndAdd(matchedBlocks);
        }
    }
}
