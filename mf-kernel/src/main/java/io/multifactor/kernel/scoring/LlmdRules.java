package io.multifactor.kernel.scoring;

import io.multifactor.api.DropReason;
import io.multifactor.api.Factor;
import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.kernel.plan.AlgorithmType;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.LlmdParameters;

import java.util.concurrent.ThreadLocalRandom;

/**
 * llm-d's scorers, its max-score picker and its two scheduling profiles, re-implemented from llm-d/llm-d-router at
 * ebab687 (August 2026; {@code pkg/epp/framework/plugins/scheduling/}), as pure functions over primitive
 * per-candidate values, so that the model level (a decision's candidates, {@link BaselineKernel}) and the backend
 * level (one model's backends, mf-serving) run the same code:
 * <ul>
 *   <li>{@code queue-scorer} ({@code scorer/queuedepth/queue.go}): min-max over the candidates' waiting requests,
 *       (most - waiting) / (most - fewest), 1 for every candidate when all wait the same;</li>
 *   <li>{@code kv-cache-utilization-scorer} ({@code scorer/kvcacheutilization}): 1 - KV-cache use;</li>
 *   <li>{@code prefix-cache-scorer} ({@code scorer/prefix/plugin.go}, its default {@code matchLengthWeight} 0): matched
 *       blocks / total blocks, 0 for a prompt of no block;</li>
 *   <li>{@code token-load-scorer} ({@code scorer/tokenload}): 1 - min(1, tokens / {@code queueThresholdTokens}), 1 for
 *       no tokens, where tokens are the candidate's in-flight tokens plus this request's tokens it has not cached;</li>
 *   <li>{@code prefix-cache-affinity-filter} ({@code filter/prefixcacheaffinity/plugin.go}, {@code ttftSource:
 *       prefillThroughput}): with two candidates or more and {@code affinityThreshold} above 0, and unless the request
 *       explores (probability {@code explorationProbability}), keep only the sticky candidates (prefix match at least
 *       {@code affinityThreshold}); none sticky: keep all; with {@code maxTTFTPenaltyMs} above 0 and a candidate that
 *       is not sticky, keep all when the best sticky estimated TTFT exceeds the best other one by more than
 *       {@code maxTTFTPenaltyMs} (the load gate), where estimated TTFT = in-flight tokens /
 *       {@code peakPrefillThroughput} x 1000 ms;</li>
 *   <li>the profile's sum ({@code scheduling/scheduler_profile.go}): each scorer's score clamped to [0, 1] times its
 *       weight, summed;</li>
 *   <li>{@code max-score-picker} ({@code picker/maxscore/picker.go}): the highest sum; the source shuffles the
 *       candidates before a stable sort, so a tie goes to one of the tied drawn uniformly.</li>
 * </ul>
 * {@code llmd_weighted} is the weighted profile of llm-d's chart (queue 2, KV-cache 2, prefix 3, max-score);
 * {@code llmd_sticky} the "sticky until saturated" profile (affinity filter, then {@code token-load-scorer} at weight
 * 1, max-score). A value the caller does not have (NaN) counts as 0, as llm-d reads an endpoint without that metric
 * or attribute.
 * <p>
 * Arrays are per candidate, in candidate order; {@code scores} says which entries take part (NaN: not a candidate)
 * and receives each candidate's sum (a candidate the filter left out scores 0). One 64-bit random draw per call: its
 * low 32 bits pick among a tie, its high 32 bits decide an exploration.
 * <p>
 * This class is stateless and threadsafe; nothing in it allocates.
 */
public final class LlmdRules
{
    /** What a rule returns when there is no candidate. */
    public static final int NONE = -1;

    private LlmdRules()
    {
    }

    /**
     * {@code queue-scorer}.
     *
     * @param waiting the candidate's waiting requests.
     * @param fewestWaiting the fewest waiting requests among the candidates.
     * @param mostWaiting the most waiting requests among the candidates.
     * @return its score, 1 when every candidate waits the same.
     */
    public static double queueScore(final double waiting, final double fewestWaiting, final double mostWaiting)
    {
        if (mostWaiting == fewestWaiting)
        {
            return 1.0;
        }
        return (mostWaiting - waiting) / (mostWaiting - fewestWaiting);
    }

    /**
     * {@code kv-cache-utilization-scorer}.
     *
     * @param kvCacheUse the candidate's KV-cache use, 0..1.
     * @return its score.
     */
    public static double kvCacheScore(final double kvCacheUse)
    {
        return 1.0 - kvCacheUse;
    }

    /**
     * {@code prefix-cache-scorer}: also the match the affinity filter compares with {@code affinityThreshold}.
     *
     * @param matchedBlocks the prompt's leading blocks the candidate holds.
     * @param totalBlocks the prompt's blocks.
     * @return matched / total, 0 for a prompt of no block.
     */
    public static double prefixScore(final long matchedBlocks, final long totalBlocks)
    {
        return totalBlocks == 0 ? 0.0 : (double)matchedBlocks / totalBlocks;
    }

    /**
     * {@code token-load-scorer}.
     *
     * @param tokens the candidate's token load (in flight, plus the request's own uncached tokens).
     * @param queueThresholdTokens the load at which the score reaches 0.
     * @return its score.
     */
    public static double tokenLoadScore(final double tokens, final double queueThresholdTokens)
    {
        if (!(tokens > 0.0))
        {
            return 1.0;
        }
        return 1.0 - (tokens > queueThresholdTokens ? queueThresholdTokens : tokens) / queueThresholdTokens;
    }

    /**
     * The affinity filter's TTFT estimate with {@code ttftSource: prefillThroughput}.
     *
     * @param inflightTokens the candidate's in-flight tokens.
     * @param peakPrefillThroughput prompt tokens one server prefills per second.
     * @return the estimate in milliseconds.
     */
    public static double estimatedTtftMs(final double inflightTokens, final double peakPrefillThroughput)
    {
        return inflightTokens / peakPrefillThroughput * 1000.0;
    }

    /**
     * The profile's clamp of each scorer's score before it is weighted.
     *
     * @param score a scorer's score.
     * @return it, clamped to [0, 1].
     */
    public static double scoreRange(final double score)
    {
        if (score < 0.0)
        {
            return 0.0;
        }
        return score > 1.0 ? 1.0 : score;
    }

    /**
     * {@code llmd_weighted}: {@code queue-scorer}, {@code kv-cache-utilization-scorer} and {@code prefix-cache-scorer}
     * at their weights, then the max-score picker.
     *
     * @param parameters the weights.
     * @param waiting waiting requests per candidate (NaN: 0).
     * @param kvCacheUse KV-cache use per candidate, 0..1 (NaN: 0).
     * @param prefixMatch prefix match per candidate, {@link #prefixScore} (NaN: 0).
     * @param count how many entries the arrays hold.
     * @param scores in: NaN for an entry that is not a candidate; out: each candidate's weighted sum.
     * @param randomBits a uniform 64-bit draw.
     * @return the chosen entry, {@link #NONE} when no entry is a candidate.
     */
    public static int weighted(
        final LlmdParameters parameters,
        final double[] waiting,
        final double[] kvCacheUse,
        final double[] prefixMatch,
        final int count,
        final double[] scores,
        final long randomBits)
    {
        double fewest = Double.POSITIVE_INFINITY;
        double most = Double.NEGATIVE_INFINITY;
        int candidates = 0;
        for (int i = 0; i < count; i++)
        {
            if (scores[i] != scores[i])
            {
                continue;
            }
            final double queue = orZero(waiting[i]);
            fewest = queue < fewest ? queue : fewest;
            most = queue > most ? queue : most;
            candidates++;
        }
        if (candidates == 0)
        {
            return NONE;
        }
        final double queueWeight = parameters.queueScorerWeight();
        final double kvWeight = parameters.kvCacheUtilizationScorerWeight();
        final double prefixWeight = parameters.prefixCacheScorerWeight();
        for (int i = 0; i < count; i++)
        {
            if (scores[i] != scores[i])
            {
                continue;
            }
            scores[i] = queueWeight * scoreRange(queueScore(orZero(waiting[i]), fewest, most)) +
                kvWeight * scoreRange(kvCacheScore(orZero(kvCacheUse[i]))) +
                prefixWeight * scoreRange(orZero(prefixMatch[i]));
        }
        return maxScore(scores, count, prefixMatch, Double.NEGATIVE_INFINITY, randomBits);
    }

    /**
     * {@code llmd_sticky}: the prefix-cache affinity filter with its load gate, then {@code token-load-scorer} (weight
     * 1) and the max-score picker.
     *
     * @param parameters the filter's and the scorer's parameters.
     * @param prefixMatch prefix match per candidate, {@link #prefixScore} (NaN: 0).
     * @param inflightTokens in-flight tokens per candidate (NaN: 0).
     * @param promptTokens the request's prompt tokens (0 or less: unknown); a candidate's token load adds the share it
     *     has not cached, {@code promptTokens x (1 - match)}.
     * @param count how many entries the arrays hold.
     * @param scores in: NaN for an entry that is not a candidate; out: each candidate's token-load score, 0 for one
     *     the filter left out.
     * @param randomBits a uniform 64-bit draw.
     * @return the chosen entry, {@link #NONE} when no entry is a candidate.
     */
    public static int sticky(
        final LlmdParameters parameters,
        final double[] prefixMatch,
        final double[] inflightTokens,
        final double promptTokens,
        final int count,
        final double[] scores,
        final long randomBits)
    {
        final double threshold = parameters.affinityThreshold();
        int candidates = 0;
        int stuck = 0;
        double bestStuckMs = Double.MAX_VALUE;
        double bestOtherMs = Double.MAX_VALUE;
        for (int i = 0; i < count; i++)
        {
            if (scores[i] != scores[i])
            {
                continue;
            }
            candidates++;
            final double ttftMs = estimatedTtftMs(orZero(inflightTokens[i]), parameters.peakPrefillThroughput());
            if (orZero(prefixMatch[i]) >= threshold)
            {
                stuck++;
                bestStuckMs = ttftMs < bestStuckMs ? ttftMs : bestStuckMs;
            }
            else
            {
                bestOtherMs = ttftMs < bestOtherMs ? ttftMs : bestOtherMs;
            }
        }
        if (candidates == 0)
        {
            return NONE;
        }
        final boolean explores = parameters.explorationProbability() > 0.0 &&
            (randomBits >>> 32) * 0x1.0p-32 < parameters.explorationProbability();
        final double penaltyMs = parameters.maxTtftPenaltyMs();
        final boolean filters = candidates > 1 && threshold > 0.0 && !explores && stuck > 0 &&
            !(penaltyMs > 0.0 && stuck < candidates && bestStuckMs - bestOtherMs > penaltyMs);
        final double keptAtLeast = filters ? threshold : Double.NEGATIVE_INFINITY;
        final double queueThreshold = parameters.queueThresholdTokens();
        for (int i = 0; i < count; i++)
        {
            if (scores[i] != scores[i])
            {
                continue;
            }
            final double match = orZero(prefixMatch[i]);
            final double uncached = promptTokens > 0.0 ? promptTokens * (1.0 - match) : 0.0;
            scores[i] = match >= keptAtLeast ?
                scoreRange(tokenLoadScore(orZero(inflightTokens[i]) + uncached, queueThreshold)) : 0.0;
        }
        return maxScore(scores, count, prefixMatch, keptAtLeast, randomBits);
    }

    /**
     * Runs {@code llmd_weighted} or {@code llmd_sticky} over a decision's survivors (the candidates {@link
     * BaselineKernel} did not leave out), from the kernel's model-level signals: W(m) and K(m) of 4.3, the request's
     * P(m) of 4.7 and the model's in-flight tokens of 4.4. Writes the queue, KV-cache and prefix columns, the in-flight
     * tokens and, for {@code llmd_sticky}, the tokens as the load column; the survivors' scores are the profile's sums.
     *
     * @param plan the decision's plan, of type {@code llmd_weighted} or {@code llmd_sticky}.
     * @param signals its candidates' signals.
     * @param requestOrNull the request (P(m), prompt tokens, generator), or null.
     * @param out the selection being written, whose drop reasons mark the survivors.
     * @return the chosen candidate, {@link #NONE} when there is no survivor.
     */
    static int select(
        final DecisionPlan plan, final CandidateSignals signals, final Request requestOrNull, final Selection out)
    {
        final int n = plan.candidateCount();
        final double[] scores = SelectionWriter.scores(out);
        final double[] queue = SelectionWriter.ownColumn(out, Factor.QUEUE);
        final double[] kvCache = SelectionWriter.ownColumn(out, Factor.KV_CACHE);
        final double[] prefix = SelectionWriter.ownColumn(out, Factor.PREFIX);
        final boolean sticky = plan.algorithmType() == AlgorithmType.LLMD_STICKY;
        final double[] load = SelectionWriter.ownColumn(out, Factor.LOAD);
        double tMin = Double.POSITIVE_INFINITY;
        double tMax = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++)
        {
            queue[i] = signals.queue(i);
            kvCache[i] = signals.kvCache(i);
            prefix[i] = requestOrNull == null ? Double.NaN : requestOrNull.prefixMatch(plan.candidateModelId(i));
            final long tokens = signals.inflightTokens(i);
            SelectionWriter.inflightTokens(out, i, tokens);
            final boolean survivor = out.dropReason(i) == DropReason.NONE;
            scores[i] = survivor ? 0.0 : Double.NaN;
            if (sticky)
            {
                load[i] = tokens;
                if (survivor)
                {
                    tMin = Math.min(tMin, tokens);
                    tMax = Math.max(tMax, tokens);
                }
            }
        }
        SelectionWriter.gathered(out, Factor.QUEUE);
        SelectionWriter.gathered(out, Factor.KV_CACHE);
        SelectionWriter.gathered(out, Factor.PREFIX);
        SelectionWriter.sources(out, true, false);
        if (sticky)
        {
            SelectionWriter.bounds(out, Factor.LOAD, tMin, tMax);
        }
        final long bits = requestOrNull != null ? requestOrNull.nextBits() : ThreadLocalRandom.current().nextLong();
        final LlmdParameters parameters = plan.llmd();
        if (sticky)
        {
            final double promptTokens = requestOrNull == null ? 0.0 : requestOrNull.promptTokens();
            return sticky(parameters, prefix, load, promptTokens, n, scores, bits);
        }
        return weighted(parameters, queue, kvCache, prefix, n, scores, bits);
    }

    // The max-score picker over the candidates whose match is at least keptAtLeast: the highest score; a tie goes to
    // the tied one the draw's low 32 bits pick.
    private static int maxScore(
        final double[] scores, final int count, final double[] prefixMatch, final double keptAtLeast, final long bits)
    {
        double best = Double.NEGATIVE_INFINITY;
        int tied = 0;
        for (int i = 0; i < count; i++)
        {
            final double score = scores[i];
            if (score != score || orZero(prefixMatch[i]) < keptAtLeast)
            {
                continue;
            }
            if (tied == 0 || score > best)
            {
                best = score;
                tied = 1;
            }
            else if (score == best)
            {
                tied++;
            }
        }
        if (tied == 0)
        {
            return NONE;
        }
        int left = tied == 1 ? 0 : (int)(((bits & 0xFFFF_FFFFL) * tied) >>> 32);
        for (int i = 0; i < count; i++)
        {
            final double score = scores[i];
            if (score == best && orZero(prefixMatch[i]) >= keptAtLeast && left-- == 0)
            {
                return i;
            }
        }
        return NONE;
    }

    private static double orZero(final double value)
    {
        return value != value ? 0.0 : value;
    }
}
