package io.multifactor.servers;

/**
 * Told a backend's KV-cache size as its server reports it ({@code vllm:cache_config_info}'s {@code num_gpu_blocks} and
 * {@code block_size}), on the scrape agent's thread: what sizes a prefix-cache affinity index.
 * <p>
 * Implementations must be threadsafe and quick: the agent's thread calls them between scrapes.
 */
@FunctionalInterface
public interface CacheSizeListener
{
    /**
     * @param backendKey the backend's origin ({@code http://host:port}).
     * @param numGpuBlocks KV-cache blocks of the server, > 0.
     * @param blockSizeTokens tokens per block, > 0.
     */
    void cacheSize(String backendKey, long numGpuBlocks, long blockSizeTokens);
}
