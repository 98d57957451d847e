package io.multifactor.config;

import io.multifactor.config.read.Durations;
import io.multifactor.config.read.MappingReader;
import io.multifactor.config.read.Problems;
import io.multifactor.config.yaml.Excerpt;
import io.multifactor.config.yaml.YamlMapping;
import io.multifactor.config.yaml.YamlScalar;
import io.multifactor.kernel.plan.AlgorithmType;
import io.multifactor.kernel.plan.LlmdParameters;
import io.multifactor.kernel.plan.PeerParameters;

import java.util.List;

/**
 * Reads the parameter blocks of the peers' policies in a decision's {@code algorithm:}, {@code algorithm: {type: T,
 * T: {params}}}, strictly: a block is read only beside its own {@code type} (another one is refused, located), and a
 * key its peer does not have is refused as unknown with the nearest valid one when plausibly a typo.
 * {@code litellm_simple_shuffle}, {@code litellm_least_busy} and {@code aibrix_least_request} take no parameters at
 * model level (their peers' weights and limits are per deployment), so their blocks are empty or absent;
 * {@code litellm_latency} takes LiteLLM's {@code ttl} (a duration &gt; 0, default 3600s) and
 * {@code lowest_latency_buffer} (a number &gt;= 0, default 0), {@code prodstack_session} production-stack's
 * {@code request_stats_window} (a duration of at least 1ms, default 60s).
 * {@code llmd_weighted} takes llm-d's scorer weights under the scorers' names ({@code queue-scorer},
 * {@code kv-cache-utilization-scorer}, {@code prefix-cache-scorer}); {@code llmd_sticky} the affinity filter's
 * {@code affinityThreshold}, {@code explorationProbability}, {@code maxTTFTPenaltyMs} and
 * {@code peakPrefillThroughput}, and the token-load scorer's {@code queueThresholdTokens}
 * ({@link LlmdParameters} has their defaults).
 * <p>
 * This class is stateless and threadsafe.
 */
final class PeerPolicyReader
{
    /** The keys of {@code llmd_weighted}'s block. */
    private static final List<String> LLMD_WEIGHTED_KEYS =
        List.of("queue-scorer", "kv-cache-utilization-scorer", "prefix-cache-scorer");

    /** The keys of {@code llmd_sticky}'s block. */
    private static final List<String> LLMD_STICKY_KEYS = List.of("affinityThreshold", "explorationProbability",
        "maxTTFTPenaltyMs", "peakPrefillThroughput", "queueThresholdTokens");

    /** The keys of each peer's block, indexed by {@code type - AlgorithmType.FIRST_PEER}. */
    private static final List<List<String>> KEYS = List.of(List.of(), List.of(), List.of(),
        List.of("ttl", "lowest_latency_buffer"), List.of("request_stats_window"), LLMD_WEIGHTED_KEYS, LLMD_STICKY_KEYS);

    private static final long MIN_REQUEST_STATS_WINDOW_NS = 1_000_000L;

    private PeerPolicyReader()
    {
    }

    /**
     * @param first the keys before the peers' blocks.
     * @return those keys, then the block of each peer's policy ({@link AlgorithmType} is the one list of them).
     */
    static List<String> withPeerBlocks(final String... first)
    {
        final List<String> keys = new java.util.ArrayList<>(List.of(first));
        for (int peer = AlgorithmType.FIRST_PEER; AlgorithmType.isPeer(peer); peer++)
        {
            keys.add(AlgorithmType.label(peer));
        }
        return List.copyOf(keys);
    }

    /**
     * @param algorithm the decision's {@code algorithm:} mapping.
     * @param problems where refusals go.
     * @param type the {@link AlgorithmType} code read from its {@code type}, -1 when it was refused.
     * @return the parameters of its peer policy, {@link PeerParameters#DEFAULTS} for another type or after a refusal.
     */
    static PeerParameters read(final MappingReader algorithm, final Problems problems, final int type)
    {
        PeerParameters parameters = PeerParameters.DEFAULTS;
        for (int peer = AlgorithmType.FIRST_PEER; AlgorithmType.isPeer(peer); peer++)
        {
            final String label = AlgorithmType.label(peer);
            if (!algorithm.has(label))
            {
                continue;
            }
            if (peer != type)
            {
                problems.error(algorithm.value(label), algorithm.path(label),
                    "the block " + label + " is read only with type: " + label + " (type is " +
                    (type < 0 ? "refused" : AlgorithmType.label(type)) + ')');
                continue;
            }
            final MappingReader block = algorithm.optionalMapping(label, KEYS.get(peer - AlgorithmType.FIRST_PEER));
            if (block != null && peer == AlgorithmType.LLMD_WEIGHTED)
            {
                parameters = parameters.withLlmd(weighted(block));
            }
            else if (block != null && peer == AlgorithmType.LLMD_STICKY)
            {
                parameters = parameters.withLlmd(sticky(block));
            }
            else if (block != null && block.node() instanceof YamlMapping)
            {
                parameters = parameters(block, problems);
            }
        }
        return parameters;
    }

    private static LlmdParameters weighted(final MappingReader block)
    {
        final LlmdParameters d = LlmdParameters.DEFAULTS;
        final double queue = block.optionalNumber("queue-scorer", d.queueScorerWeight(), true);
        final double kvCache = block.optionalNumber("kv-cache-utilization-scorer", d.kvCacheUtilizationScorerWeight(),
            true);
        final double prefix = block.optionalNumber("prefix-cache-scorer", d.prefixCacheScorerWeight(), true);
        if (queue != queue || kvCache != kvCache || prefix != prefix)
        {
            return d;
        }
        return new LlmdParameters(queue, kvCache, prefix, d.affinityThreshold(), d.explorationProbability(),
            d.maxTtftPenaltyMs(), d.peakPrefillThroughput(), d.queueThresholdTokens());
    }

    private static LlmdParameters sticky(final MappingReader block)
    {
        final LlmdParameters d = LlmdParameters.DEFAULTS;
        final double threshold = unit(block, "affinityThreshold", d.affinityThreshold());
        final double exploration = unit(block, "explorationProbability", d.explorationProbability());
        final double penaltyMs = block.optionalNumber("maxTTFTPenaltyMs", d.maxTtftPenaltyMs(), true);
        final double peak = block.optionalNumber("peakPrefillThroughput", d.peakPrefillThroughput(), true);
        final long queueThreshold =
            block.optionalInteger("queueThresholdTokens", d.queueThresholdTokens(), 1, Long.MAX_VALUE);
        if (peak == 0.0 && penaltyMs > 0.0)
        {
            block.problems().error(block.value("peakPrefillThroughput"), block.path("peakPrefillThroughput"),
                "must be > 0 while maxTTFTPenaltyMs is above 0 (the load gate divides the in-flight tokens by it), " +
                "got 0");
            return d;
        }
        if (threshold != threshold || exploration != exploration || penaltyMs != penaltyMs || peak != peak)
        {
            return d;
        }
        return new LlmdParameters(d.queueScorerWeight(), d.kvCacheUtilizationScorerWeight(),
            d.prefixCacheScorerWeight(), threshold, exploration, penaltyMs, peak, queueThreshold);
    }

    // A share or probability in 0..1; NaN after reporting a problem.
    private static double unit(final MappingReader block, final String key, final double absent)
    {
        final double value = block.optionalNumber(key, absent, true);
        if (value > 1.0)
        {
            block.problems().error(block.value(key), block.path(key), "must be in 0..1, got " +
                Excerpt.value(((YamlScalar)block.value(key)).text()));
            return Double.NaN;
        }
        return value;
    }

    // The keys of litellm_latency and prodstack_session (a block holds only its own: the others are refused above).
    private static PeerParameters parameters(final MappingReader block, final Problems problems)
    {
        final PeerParameters defaults = PeerParameters.DEFAULTS;
        final long ttlNs = block.optionalDurationNs("ttl", defaults.ttlNs());
        final double buffer = block.optionalNumber("lowest_latency_buffer", defaults.lowestLatencyBuffer(), true);
        final long windowNs = block.optionalDurationNs("request_stats_window", defaults.requestStatsWindowNs());
        if (windowNs != Durations.INVALID && windowNs < MIN_REQUEST_STATS_WINDOW_NS)
        {
            problems.error(block.value("request_stats_window"), block.path("request_stats_window"),
                "must be at least 1ms (the QPS window is cut into 64 buckets), got " +
                Excerpt.value(((YamlScalar)block.value("request_stats_window")).text()));
            return defaults;
        }
        if (ttlNs == Durations.INVALID || Double.isNaN(buffer) || windowNs == Durations.INVALID)
        {
            return defaults;
        }
        return new PeerParameters(ttlNs, buffer, windowNs);
    }
}
