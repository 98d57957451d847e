package io.multifactor.sim;

/**
 * How each server behind one simulated model works when the simulator models the model's backends one by one: each of
 * the model's {@code backend_refs} is one server with {@code batch} places (a request beyond them waits, in arrival
 * order) and its own LRU of {@code gpuBlocks} prompt blocks of {@code blockTokens} tokens. A request that gets a place
 * looks its prompt's blocks up (the leading ones found are cached), caches them all, and has its first token after the
 * model's drawn TTFT plus its uncached prompt tokens / {@code prefillTokensPerS}: TTFT = queue wait + uncached tokens /
 * prefill rate + base, as the fake model servers do.
 * <pre>
 * models:
 *   m:
 *     ttft_ms: 40
 *     tpot_ms: 20
 *     servers: {batch: 16, gpu_blocks: 4096, block_tokens: 16, prefill_tokens_per_s: 10000}
 * </pre>
 * Instances are immutable and threadsafe.
 *
 * @param blockTokens tokens per cached block, >= 1.
 * @param gpuBlocks blocks each server's cache holds, >= 1.
 * @param prefillTokensPerS uncached prompt tokens a request prefills per second, > 0.
 * @param batch requests each server runs at once, >= 1.
 */
public record BackendServers(int blockTokens, int gpuBlocks, double prefillTokensPerS, int batch)
{
    /**
     * Checks the ranges above.
     *
     * @throws IllegalArgumentException when a value is out of range.
     */
    public BackendServers
    {
        if (blockTokens < 1 || gpuBlocks < 1 || batch < 1 ||
            !(prefillTokensPerS > 0.0 && prefillTokensPerS < Double.POSITIVE_INFINITY))
        {
            throw new IllegalArgumentException("servers out of range: " + this);
        }
    }
}
