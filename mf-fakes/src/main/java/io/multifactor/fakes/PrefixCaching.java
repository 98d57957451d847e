package io.multifactor.fakes;

/**
 * How a fake model server caches prompt prefixes, as vLLM's automatic prefix caching does: the prompt is cut into
 * blocks of {@code blockTokens} tokens (4 bytes of the request's message text each, a trailing partial block not
 * cached), hashed as a chain, and kept in an LRU of {@code gpuBlocks} blocks; the leading blocks found there skip their
 * prefill, the others take {@code 1 / prefillTokensPerS} seconds per token before the first token.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param blockTokens tokens per block, >= 1 (vLLM's {@code block_size}, 16 by default there).
 * @param gpuBlocks blocks the KV cache holds, >= 1 (vLLM's {@code num_gpu_blocks}).
 * @param prefillTokensPerS prompt tokens prefilled per second, > 0.
 */
public record PrefixCaching(int blockTokens, int gpuBlocks, double prefillTokensPerS)
{
    /** Bytes of message text per token, the same estimate as the gateway's. */
    public static final int BYTES_PER_TOKEN = 4;

    /**
     * Checks the ranges above.
     *
     * @throws IllegalArgumentException when a value is out of range.
     */
    public PrefixCaching
    {
        if (blockTokens < 1 || gpuBlocks < 1 || !(prefillTokensPerS > 0.0 && prefillTokensPerS < Double.POSITIVE_INFINITY))
        {
            throw new IllegalArgumentException("prefix cache needs block_tokens >= 1, gpu_blocks >= 1 and " +
                "prefill_tokens_per_s > 0, got " + blockTokens + ", " + gpuBlocks + ", " + prefillTokensPerS);
        }
    }

    /** @return bytes of message text per block. */
    public int blockBytes()
    {
        return blockTokens * BYTES_PER_TOKEN;
    }
}
