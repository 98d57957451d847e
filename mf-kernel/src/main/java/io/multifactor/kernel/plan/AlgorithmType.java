package io.multifactor.kernel.plan;

/**
 * Codes of a decision's {@code algorithm.type}: the {@code multi_factor} selection (the default) or one of the baseline
 * policies that a policy comparison measures it against. The baselines ignore weights and ceilings: round robin, a
 * uniform random draw, the fewest in-flight leases, and the lowest latency signal (unobserved candidates first); the
 * peers' policies, each re-implemented from its published source, select among the same candidates by their own rule.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class AlgorithmType
{
    /** Filter by the ceilings, then rank by the weighted factors (the default). */
    public static final int MULTI_FACTOR = 0;

    /** The candidates in turn, in {@code modelRefs} order. */
    public static final int ROUND_ROBIN = 1;

    /** One candidate uniformly at random. */
    public static final int RANDOM = 2;

    /** The candidate with the fewest in-flight leases; ties go to the earlier in {@code modelRefs}. */
    public static final int LEAST_INFLIGHT = 3;

    /**
     * The candidate with the lowest latency signal (TPOT percentile, else TTFT percentile, under the decision's
     * {@code latency_metric}); an unobserved candidate comes first; ties go to the earlier in {@code modelRefs}.
     */
    public static final int LOWEST_LATENCY = 4;

    /**
     * LiteLLM Router's {@code simple-shuffle} (its default strategy): at model level, where candidates carry no
     * {@code weight}, {@code rpm} or {@code tpm}, one candidate uniformly at random, the rule of {@link #RANDOM}.
     */
    public static final int LITELLM_SIMPLE_SHUFFLE = 5;

    /**
     * LiteLLM Router's {@code least-busy}: the fewest requests this router sent and not yet finished (its in-flight
     * leases); ties go to the earlier in {@code modelRefs}, the rule of {@link #LEAST_INFLIGHT}.
     */
    public static final int LITELLM_LEAST_BUSY = 6;

    /**
     * AIBrix's {@code least-request}: the fewest running requests this process sent (its in-flight leases); ties are
     * broken uniformly at random.
     */
    public static final int AIBRIX_LEAST_REQUEST = 7;

    /**
     * LiteLLM's {@code latency-based-routing}: the mean of each candidate's last 10 latency samples within {@code ttl}
     * (0 without any), the candidates within {@code lowest_latency_buffer} of the lowest kept, one of them at random.
     */
    public static final int LITELLM_LATENCY = 8;

    /**
     * vLLM production-stack's {@code session} router: a consistent hash of the request's session key over the
     * candidates; without a key, the candidate never sent a request, else the lowest QPS over
     * {@code request_stats_window}.
     */
    public static final int PRODSTACK_SESSION = 9;

    /**
     * llm-d's weighted scorer profile (its chart's default): {@code queue-scorer} 2, {@code kv-cache-utilization-scorer}
     * 2 and {@code prefix-cache-scorer} 3 (the weights {@link LlmdParameters} holds), then the max-score picker, ties
     * drawn at random.
     */
    public static final int LLMD_WEIGHTED = 10;

    /**
     * llm-d's "sticky until saturated" profile: {@code prefix-cache-affinity-filter} (threshold 0.8 with its load gate
     * {@code maxTTFTPenaltyMs} over {@code peakPrefillThroughput}), then {@code token-load-scorer} and the max-score
     * picker, ties drawn at random.
     */
    public static final int LLMD_STICKY = 11;

    private static final String[] LABELS = { "multi_factor", "round_robin", "random", "least_inflight", "lowest_latency",
        "litellm_simple_shuffle", "litellm_least_busy", "aibrix_least_request", "litellm_latency", "prodstack_session",
        "llmd_weighted", "llmd_sticky" };

    /** The first code of a peer's policy (re-implemented from its source); the codes below it are ours. */
    public static final int FIRST_PEER = LITELLM_SIMPLE_SHUFFLE;

    private AlgorithmType()
    {
    }

    /**
     * @param type a code of this class.
     * @return its YAML spelling.
     * @throws IllegalArgumentException for an unknown code.
     */
    public static String label(final int type)
    {
        if (type < 0 || type >= LABELS.length)
        {
            throw new IllegalArgumentException("unknown algorithm type code: " + type);
        }
        return LABELS[type];
    }

    /**
     * @param label a YAML spelling, such as {@code "round_robin"}.
     * @return its code, or -1 when the spelling is unknown.
     */
    public static int parse(final String label)
    {
        for (int i = 0; i < LABELS.length; i++)
        {
            if (label.equals(LABELS[i]))
            {
                return i;
            }
        }
        return -1;
    }

    /**
     * @param type a code of this class.
     * @return whether it is a baseline (anything but {@link #MULTI_FACTOR}).
     */
    public static boolean isBaseline(final int type)
    {
        return type != MULTI_FACTOR;
    }

    /**
     * @param type a code of this class.
     * @return whether it is a peer's policy (re-implemented from its published source), which reads its own
     *     parameter block {@code algorithm.<type>} rather than {@code multi_factor}'s.
     */
    public static boolean isPeer(final int type)
    {
        return type >= FIRST_PEER && type < LABELS.length;
    }

    /** @return every YAML spelling, {@code multi_factor} first, in code order. */
    public static String[] labels()
    {
        return LABELS.clone();
    }
}
