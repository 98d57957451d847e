package io.multifactor.config;

import io.multifactor.config.model.PrefixAffinityConfig;
import io.multifactor.config.read.Durations;
import io.multifactor.config.read.MappingReader;
import io.multifactor.config.yaml.Excerpt;
import io.multifactor.config.yaml.YamlScalar;

import java.util.List;

/**
 * Reads a model's {@code prefix_affinity:} block ({@code block_bytes}, {@code min_match}, {@code max_ttft_penalty},
 * {@code prefill_tokens_per_s}, {@code capacity_blocks}), in the project's format and in an overlay, reporting every
 * problem where it is.
 * <p>
 * This class is stateless and threadsafe.
 */
final class PrefixAffinityReader
{
    static final String KEY = "prefix_affinity";
    static final List<String> KEYS =
        List.of("block_bytes", "min_match", "max_ttft_penalty", "prefill_tokens_per_s", "capacity_blocks");

    private PrefixAffinityReader()
    {
    }

    /**
     * @param model the model's mapping.
     * @return the block, {@code null} when absent; meaningful only when no error was reported.
     */
    static PrefixAffinityConfig read(final MappingReader model)
    {
        final MappingReader block = model.optionalMapping(KEY, KEYS);
        if (block == null)
        {
            return null;
        }
        final PrefixAffinityConfig d = PrefixAffinityConfig.NONE;
        final long blockBytes = block.optionalInteger("block_bytes", PrefixAffinityConfig.DEFAULT_BLOCK_BYTES,
            PrefixAffinityConfig.MIN_BLOCK_BYTES, PrefixAffinityConfig.MAX_BLOCK_BYTES);
        final double minMatch = block.optionalNumber("min_match", d.minMatch(), true);
        if (minMatch > 1)
        {
            block.problems().error(block.value("min_match"), block.path("min_match"),
                "must be in 0..1 (a share of the prompt's blocks), got " +
                Excerpt.value(((YamlScalar)block.value("min_match")).text()));
        }
        final long penaltyNs = block.optionalDurationNs("max_ttft_penalty", d.maxTtftPenaltyNs());
        final double prefill = block.optionalNumber("prefill_tokens_per_s", d.prefillTokensPerS(), true);
        if (prefill == 0)
        {
            block.problems().error(block.value("prefill_tokens_per_s"), block.path("prefill_tokens_per_s"),
                "must be > 0, got 0");
        }
        final long capacity = block.optionalInteger("capacity_blocks", d.capacityBlocks(), 1,
            PrefixAffinityConfig.MAX_CAPACITY_BLOCKS);
        return new PrefixAffinityConfig((int)blockBytes, minMatch, penaltyNs == Durations.INVALID ? 0 : penaltyNs,
            prefill, (int)capacity);
    }
}
