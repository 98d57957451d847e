package io.multifactor.kernel.plan;

/**
 * The parameters of llm-d's two scheduling profiles, {@code llmd_weighted} and {@code llmd_sticky}, under llm-d's own
 * names and with its defaults (llm-d/llm-d-router at ebab687, August 2026): the weights of {@code queue-scorer},
 * {@code kv-cache-utilization-scorer} and {@code prefix-cache-scorer} in the weighted profile of its chart
 * ({@code config/charts/routerlib/templates/_config.yaml}: 2, 2, 3); the {@code prefix-cache-affinity-filter}'s
 * {@code affinityThreshold} (0.80), {@code explorationProbability} (0), {@code maxTTFTPenaltyMs} (18000) and
 * {@code peakPrefillThroughput} (15928 tokens/s), and the {@code token-load-scorer}'s {@code queueThresholdTokens}
 * (4194304). The weighted profile reads the weights, the sticky one the rest. The rules that use them are
 * {@code io.multifactor.kernel.scoring.LlmdRules}'.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param queueScorerWeight weight of {@code queue-scorer}, finite, {@code >= 0}.
 * @param kvCacheUtilizationScorerWeight weight of {@code kv-cache-utilization-scorer}, finite, {@code >= 0}.
 * @param prefixCacheScorerWeight weight of {@code prefix-cache-scorer}, finite, {@code >= 0}.
 * @param affinityThreshold {@code affinityThreshold}, 0..1: a candidate whose prefix match is at least this is sticky
 *     (0 turns the filter off).
 * @param explorationProbability {@code explorationProbability}, 0..1: the chance that a request skips the filter.
 * @param maxTtftPenaltyMs {@code maxTTFTPenaltyMs}, finite, {@code >= 0}: the load gate (0: always stick).
 * @param peakPrefillThroughput {@code peakPrefillThroughput}, tokens per second, finite, {@code > 0} (may be 0 only
 *     when the gate is off): estimated TTFT = in-flight tokens / this x 1000 ms.
 * @param queueThresholdTokens {@code queueThresholdTokens}, {@code >= 1}: the token load at which the token-load
 *     score reaches 0.
 */
public record LlmdParameters(
    double queueScorerWeight,
    double kvCacheUtilizationScorerWeight,
    double prefixCacheScorerWeight,
    double affinityThreshold,
    double explorationProbability,
    double maxTtftPenaltyMs,
    double peakPrefillThroughput,
    long queueThresholdTokens)
{
    /** Default weight of {@code queue-scorer} in llm-d's shipped weighted profile. */
    public static final double DEFAULT_QUEUE_SCORER_WEIGHT = 2.0;

    /** Default weight of {@code kv-cache-utilization-scorer} in llm-d's shipped weighted profile. */
    public static final double DEFAULT_KV_CACHE_UTILIZATION_SCORER_WEIGHT = 2.0;

    /** Default weight of {@code prefix-cache-scorer} in llm-d's shipped weighted profile. */
    public static final double DEFAULT_PREFIX_CACHE_SCORER_WEIGHT = 3.0;

    /** Default {@code affinityThreshold} of {@code prefix-cache-affinity-filter}. */
    public static final double DEFAULT_AFFINITY_THRESHOLD = 0.80;

    /** Default {@code explorationProbability} of {@code prefix-cache-affinity-filter}. */
    public static final double DEFAULT_EXPLORATION_PROBABILITY = 0.0;

    /** Default {@code maxTTFTPenaltyMs} of {@code prefix-cache-affinity-filter}. */
    public static final double DEFAULT_MAX_TTFT_PENALTY_MS = 18_000.0;

    /** Default {@code peakPrefillThroughput} (tokens/s; llm-d's figure for Qwen3-32B on two H100s, TP=2). */
    public static final double DEFAULT_PEAK_PREFILL_THROUGHPUT = 15_928.0;

    /** Default {@code queueThresholdTokens} of {@code token-load-scorer} (4Mi tokens). */
    public static final long DEFAULT_QUEUE_THRESHOLD_TOKENS = 4_194_304L;

    /** Every default. */
    public static final LlmdParameters DEFAULTS = new LlmdParameters(DEFAULT_QUEUE_SCORER_WEIGHT,
        DEFAULT_KV_CACHE_UTILIZATION_SCORER_WEIGHT, DEFAULT_PREFIX_CACHE_SCORER_WEIGHT, DEFAULT_AFFINITY_THRESHOLD,
        DEFAULT_EXPLORATION_PROBABILITY, DEFAULT_MAX_TTFT_PENALTY_MS, DEFAULT_PEAK_PREFILL_THROUGHPUT,
        DEFAULT_QUEUE_THRESHOLD_TOKENS);

    /**
     * @throws IllegalArgumentException for a value out of range.
     */
    public LlmdParameters
    {
        requireWeight("queue-scorer", queueScorerWeight);
        requireWeight("kv-cache-utilization-scorer", kvCacheUtilizationScorerWeight);
        requireWeight("prefix-cache-scorer", prefixCacheScorerWeight);
        requireUnit("affinityThreshold", affinityThreshold);
        requireUnit("explorationProbability", explorationProbability);
        if (!(maxTtftPenaltyMs >= 0.0 && maxTtftPenaltyMs < Double.POSITIVE_INFINITY))
        {
            throw new IllegalArgumentException("maxTTFTPenaltyMs must be finite and >= 0: " + maxTtftPenaltyMs);
        }
        if (!(peakPrefillThroughput >= 0.0 && peakPrefillThroughput < Double.POSITIVE_INFINITY) ||
            peakPrefillThroughput == 0.0 && maxTtftPenaltyMs > 0.0)
        {
            throw new IllegalArgumentException("peakPrefillThroughput must be finite and > 0 (0 only with " +
                "maxTTFTPenaltyMs 0): " + peakPrefillThroughput);
        }
        if (queueThresholdTokens < 1)
        {
            throw new IllegalArgumentException("queueThresholdTokens must be >= 1: " + queueThresholdTokens);
        }
    }

    private static void requireWeight(final String name, final double weight)
    {
        if (!(weight >= 0.0 && weight < Double.POSITIVE_INFINITY))
        {
            throw new IllegalArgumentException(name + " weight must be finite and >= 0: " + weight);
        }
    }

    private static void requireUnit(final String name, final double value)
    {
        if (!(value >= 0.0 && value <= 1.0))
        {
            throw new IllegalArgumentException(name + " must be in 0..1: " + value);
        }
    }
}
