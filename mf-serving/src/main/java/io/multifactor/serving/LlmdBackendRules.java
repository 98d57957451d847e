package io.multifactor.serving;

import io.multifactor.kernel.plan.LlmdParameters;
import io.multifactor.kernel.scoring.LlmdRules;

import java.util.Arrays;

/**
 * llm-d's two scheduling profiles as a model's backend choice ({@code backend_choice: llmd_weighted} or
 * {@code llmd_sticky}): the same rules as at model level ({@link LlmdRules}), over one model's backends instead of a
 * decision's candidates, from what this process knows of each backend:
 * <ul>
 *   <li>waiting requests and KV-cache use: the backend's own scraped values while fresh (4.3), missing otherwise
 *       ({@link BackendChooser#serverLoad} fills them);</li>
 *   <li>prefix match: the share of the prompt's leading blocks in the backend's {@link PrefixIndex}
 *       ({@link LlmdRules#prefixScore}, with the model's {@code prefix_affinity.block_bytes}), the role of llm-d's
 *       approximate prefix producer; 0 for a model without {@code prefix_affinity};</li>
 *   <li>in-flight tokens: the backend's pending uncached prompt tokens ({@link BackendPrefix#pendingTokens()}: the
 *       uncached tokens of requests sent there that have no first chunk yet), which is what llm-d's
 *       {@code inflight-load-producer} counts by default (uncached prompt tokens, released at the first chunk of a
 *       stream); 0 without {@code prefix_affinity}.</li>
 * </ul>
 * Each call returns the chosen backend's index in file order; it opens no {@link PrefixTicket} and counts nothing:
 * the caller does, as {@link BackendChooser#choose(int, PromptBlocks, long, PrefixTicket)} does for 4.7's choice, so
 * that the request's blocks enter the chosen backend's index and its uncached tokens join its pending tokens.
 * <p>
 * This class is stateless and threadsafe; a {@link Scratch} belongs to one thread. Nothing allocates once the scratch
 * holds the model's backends.
 */
public final class LlmdBackendRules
{
    private LlmdBackendRules()
    {
    }

    /**
     * The per-backend values of one choice, reused from choice to choice: one per thread.
     * <p>
     * This class is not threadsafe: one thread uses an instance at a time.
     */
    public static final class Scratch
    {
        private double[] waiting = new double[0];
        private double[] kvCacheUse = new double[0];
        private double[] match = new double[0];
        private double[] tokens = new double[0];
        private double[] scores = new double[0];

        /**
         * Makes room for a model's backends (the only allocation, when a model has more backends than any before).
         *
         * @param backendCount the model's backends.
         * @return this scratch.
         */
        public Scratch ensure(final int backendCount)
        {
            if (waiting.length < backendCount)
            {
                waiting = new double[backendCount];
                kvCacheUse = new double[backendCount];
                match = new double[backendCount];
                tokens = new double[backendCount];
                scores = new double[backendCount];
            }
            return this;
        }

        /** @return per backend, its waiting requests (NaN: unknown), for the caller to fill; at least ensured long. */
        public double[] waiting()
        {
            return waiting;
        }

        /** @return per backend, its KV-cache use 0..1 (NaN: unknown), for the caller to fill. */
        public double[] kvCacheUse()
        {
            return kvCacheUse;
        }

        /** @return per backend, the prefix match of the last choice. */
        public double[] match()
        {
            return match;
        }

        /** @return per backend, the profile's score in the last choice. */
        public double[] scores()
        {
            return scores;
        }
    }

    /**
     * {@code llmd_weighted} over one model's backends: {@code queue-scorer}, {@code kv-cache-utilization-scorer} and
     * {@code prefix-cache-scorer} at the parameters' weights, then the max-score picker (ties drawn from
     * {@code randomBits}).
     *
     * @param parameters the weights.
     * @param backendCount the model's backends.
     * @param prefixesOrNull the model's per-backend prefix state in file order (the array behind {@link
     *     BackendChooser#prefixBackends(int)}), null without {@code prefix_affinity}.
     * @param promptOrNull the request's captured prompt, or null when it has none.
     * @param scratch its {@link Scratch#waiting()} and {@link Scratch#kvCacheUse()} filled for these backends
     *     ({@link BackendChooser#serverLoad}).
     * @param randomBits a uniform 64-bit draw.
     * @return the chosen backend's index, {@link LlmdRules#NONE} for a model without backends.
     */
    public static int weighted(
        final LlmdParameters parameters,
        final int backendCount,
        final BackendPrefix[] prefixesOrNull,
        final PromptBlocks promptOrNull,
        final Scratch scratch,
        final long randomBits)
    {
        scratch.ensure(backendCount);
        matches(backendCount, prefixesOrNull, promptOrNull, scratch);
        Arrays.fill(scratch.scores, 0, backendCount, 0.0);
        return LlmdRules.weighted(parameters, scratch.waiting, scratch.kvCacheUse, scratch.match, backendCount,
            scratch.scores, randomBits);
    }

    /**
     * {@code llmd_sticky} over one model's backends: {@code prefix-cache-affinity-filter} with its load gate, then
     * {@code token-load-scorer} and the max-score picker (ties drawn from {@code randomBits}).
     *
     * @param parameters the filter's and the scorer's parameters.
     * @param backendCount the model's backends.
     * @param prefixesOrNull the model's per-backend prefix state in file order, null without {@code prefix_affinity}.
     * @param promptOrNull the request's captured prompt, or null when it has none.
     * @param promptTokens the request's prompt token estimate ({@link OpenAiRequest#promptTokens()}); each backend's
     *     load adds the part it has not cached.
     * @param scratch the scratch of this thread.
     * @param randomBits a uniform 64-bit draw.
     * @return the chosen backend's index, {@link LlmdRules#NONE} for a model without backends.
     */
    public static int sticky(
        final LlmdParameters parameters,
        final int backendCount,
        final BackendPrefix[] prefixesOrNull,
        final PromptBlocks promptOrNull,
        final long promptTokens,
        final Scratch scratch,
        final long randomBits)
    {
        scratch.ensure(backendCount);
        matches(backendCount, prefixesOrNull, promptOrNull, scratch);
        for (int i = 0; i < backendCount; i++)
        {
            scratch.tokens[i] = prefixesOrNull == null ? 0.0 : Math.max(0L, prefixesOrNull[i].pendingTokens());
            scratch.scores[i] = 0.0;
        }
        return LlmdRules.sticky(parameters, scratch.match, scratch.tokens, promptTokens, backendCount, scratch.scores,
            randomBits);
    }

    // Each backend's share of the prompt's leading blocks in its index; 0 without an index or a prompt.
    private static void matches(
        final int backendCount, final BackendPrefix[] prefixesOrNull, final PromptBlocks promptOrNull,
        final Scratch scratch)
    {
        if (prefixesOrNull == null || promptOrNull == null || backendCount == 0)
        {
            Arrays.fill(scratch.match, 0, backendCount, 0.0);
            return;
        }
        final int blocks = promptOrNull.cut(prefixesOrNull[0].blockBytes());
        for (int i = 0; i < backendCount; i++)
        {
            final int matched = blocks == 0 ? 0 : prefixesOrNull[i].index().matchedBlocks(promptOrNull.hashes(),
                blocks);
            scratch.match[i] = LlmdRules.prefixScore(matched, blocks);
        }
    }
}
