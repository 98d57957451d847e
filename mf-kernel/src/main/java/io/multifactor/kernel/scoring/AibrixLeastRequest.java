package io.multifactor.kernel.scoring;

import io.multifactor.api.DropReason;
import io.multifactor.api.Request;
import io.multifactor.api.Selection;

import java.util.concurrent.ThreadLocalRandom;

/**
 * AIBrix's {@code least-request} routing rule, re-implemented from {@code pkg/plugins/gateway/algorithms/
 * least_request.go} of vllm-project/aibrix: among the candidates with the fewest running requests that this process
 * sent (its in-flight leases), one drawn uniformly at random ({@code targetPods[rand.Intn(len(targetPods))]}); unlike
 * LiteLLM's {@code least-busy}, a tie does not go to the first.
 * <p>
 * This class is stateless and threadsafe; {@link #choose} allocates nothing.
 */
final class AibrixLeastRequest
{
    private AibrixLeastRequest()
    {
    }

    /**
     * @param out the selection being written, whose drop reasons mark the survivors.
     * @param loadColumn every candidate's in-flight count, in candidate order.
     * @param n the number of candidates.
     * @param fewest the fewest in-flight count among the survivors.
     * @param requestOrNull the request, whose generator draws among the tied; null: the thread's generator.
     * @return the chosen candidate's position, -1 when no survivor has {@code fewest}.
     */
    static int choose(
        final Selection out, final double[] loadColumn, final int n, final double fewest, final Request requestOrNull)
    {
        int tied = 0;
        for (int i = 0; i < n; i++)
        {
            if (out.dropReason(i) == DropReason.NONE && loadColumn[i] == fewest)
            {
                tied++;
            }
        }
        if (tied == 0)
        {
            return -1;
        }
        int left = tied == 1 ? 0 :
            requestOrNull != null ? requestOrNull.nextIndex(tied) : ThreadLocalRandom.current().nextInt(tied);
        for (int i = 0; i < n; i++)
        {
            if (out.dropReason(i) == DropReason.NONE && loadColumn[i] == fewest && left-- == 0)
            {
                return i;
            }
        }
        return -1;
    }
}
