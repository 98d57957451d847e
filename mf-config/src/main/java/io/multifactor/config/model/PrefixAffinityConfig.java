package io.multifactor.config.model;

/**
 * A model's {@code prefix_affinity:} block: how the choice among its backends follows the prompt prefixes each backend
 * has already seen (a prompt goes where its prefix is likely cached, until that backend's estimated wait grows too
 * long). Read and validated here; used by the serving layer's backend choice.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param blockBytes {@code block_bytes}: the prompt is cut into blocks of this many bytes, >= 16, default 256; 0 in
 *     {@link #NONE}.
 * @param minMatch {@code min_match}: a backend holding at least this share of the prompt's blocks is warm, 0..1,
 *     default 0.5.
 * @param maxTtftPenaltyNs {@code max_ttft_penalty}: the warm backend is kept unless its estimated wait exceeds the
 *     best cold one's by more than this, default 2 s.
 * @param prefillTokensPerS {@code prefill_tokens_per_s}: the rate a backend's pending prompt tokens are assumed to
 *     be prefilled at, > 0, default 10000.
 * @param capacityBlocks {@code capacity_blocks}: blocks each backend's index holds when its server does not report
 *     its cache size, 1..1,048,576, default 65536.
 */
public record PrefixAffinityConfig(
    int blockBytes, double minMatch, long maxTtftPenaltyNs, double prefillTokensPerS, int capacityBlocks)
{
    /** Smallest {@code block_bytes}. */
    public static final int MIN_BLOCK_BYTES = 16;
    /** Largest {@code block_bytes}: 1 MiB. */
    public static final int MAX_BLOCK_BYTES = 1024 * 1024;
    /** Default {@code block_bytes}: 256 (about 64 tokens). */
    public static final int DEFAULT_BLOCK_BYTES = 256;
    /** Default {@code min_match}. */
    public static final double DEFAULT_MIN_MATCH = 0.5;
    /** Default {@code max_ttft_penalty}: 2 s. */
    public static final long DEFAULT_MAX_TTFT_PENALTY_NS = 2_000_000_000L;
    /** Default {@code prefill_tokens_per_s}. */
    public static final double DEFAULT_PREFILL_TOKENS_PER_S = 10_000;
    /** Default {@code capacity_blocks}. */
    public static final int DEFAULT_CAPACITY_BLOCKS = 65_536;
    /** Largest index of one backend, configured or sized from its server's report: 1,048,576 blocks. */
    public static final int MAX_CAPACITY_BLOCKS = 1 << 20;

    /** No {@code prefix_affinity:} block: the backends are chosen without regard to prefixes. */
    public static final PrefixAffinityConfig NONE = new PrefixAffinityConfig(
        0, DEFAULT_MIN_MATCH, DEFAULT_MAX_TTFT_PENALTY_NS, DEFAULT_PREFILL_TOKENS_PER_S, DEFAULT_CAPACITY_BLOCKS);

    /** @return whether the block was given (the backend choice follows prefixes). */
    public boolean enabled()
    {
        return blockBytes > 0;
    }
}
