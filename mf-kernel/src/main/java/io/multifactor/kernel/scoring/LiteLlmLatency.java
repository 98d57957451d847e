package io.multifactor.kernel.scoring;

/**
 * LiteLLM's {@code latency-based-routing} rule, re-implemented from {@code litellm/router_strategy/lowest_latency.py}
 * of BerriAI/litellm ({@code LowestLatencyLoggingHandler._get_available_deployments}): given each endpoint's mean of
 * its last latencies (0 for one without any, as LiteLLM's {@code "latency": [0]} for a deployment not yet used), keep
 * those whose mean is at most lowest + {@code lowest_latency_buffer} x lowest and pick one of them uniformly at random.
 * The one home of that rule: the model level ({@link BaselineKernel}, over a decision's candidates) and the backend
 * level (mf-serving's backend choice, over one model's backends) both call it.
 * <p>
 * This class is stateless and threadsafe; {@link #choose} allocates nothing.
 */
public final class LiteLlmLatency
{
    private LiteLlmLatency()
    {
    }

    /**
     * @param meanMs each endpoint's mean latency in milliseconds (0 when it has none), NaN for one left out.
     * @param n the number of endpoints (a prefix of {@code meanMs}).
     * @param lowestLatencyBuffer {@code lowest_latency_buffer}, finite and >= 0.
     * @param randomBits 64 uniform bits that draw among the kept.
     * @return the chosen endpoint's position, -1 when every one is left out.
     */
    public static int choose(final double[] meanMs, final int n, final double lowestLatencyBuffer, final long randomBits)
    {
        double lowest = Double.POSITIVE_INFINITY;
        for (int i = 0; i < n; i++)
        {
            final double mean = meanMs[i];
            lowest = mean < lowest ? mean : lowest;
        }
        if (lowest == Double.POSITIVE_INFINITY)
        {
            return -1;
        }
        final double threshold = lowest + lowestLatencyBuffer * lowest;
        int kept = 0;
        for (int i = 0; i < n; i++)
        {
            kept += meanMs[i] <= threshold ? 1 : 0;
        }
        // The high 32 bits scaled to the count, as Request.nextIndex draws.
        int left = (int)(((randomBits >>> 32) * kept) >>> 32);
        for (int i = 0; i < n; i++)
        {
            if (meanMs[i] <= threshold && left-- == 0)
            {
                return i;
            }
        }
        return -1;
    }
}
