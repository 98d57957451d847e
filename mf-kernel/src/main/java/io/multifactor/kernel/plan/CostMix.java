package io.multifactor.kernel.plan;

/**
 * The cost of a candidate under a token mix: {@code C = (a*P + b*K) / (a + b)} with {@code a}, {@code b} the prompt and
 * completion shares and {@code P}, {@code K} the prompt and completion prices per 1M tokens. A price whose share is 0
 * does not count (its absence does not matter); a price whose share is above 0 and that is absent (NaN) makes the cost
 * absent.
 * <p>
 * Computed as {@code (a/(a+b))*P + (b/(a+b))*K}, which cannot overflow for finite prices and gives {@code P} exactly
 * for the default mix {@code {prompt: 1, completion: 0}}; a loop over candidates works the weights {@code a/(a+b)} and
 * {@code b/(a+b)} out once ({@link #promptWeight}, {@link #completionWeight}) and blends each with
 * {@link #blendByWeights}, to the same bit.
 * <p>
 * This class is stateless and threadsafe; {@link #blend} allocates nothing.
 */
public final class CostMix
{
    /** Prompt share of the default mix. */
    public static final double DEFAULT_PROMPT = 1.0;

    /** Completion share of the default mix. */
    public static final double DEFAULT_COMPLETION = 0.0;

    /** {@link #promptWeight} and {@link #completionWeight} of a share of 0: that price does not count. */
    public static final double NO_WEIGHT = -1.0;

    private CostMix()
    {
    }

    /**
     * @param promptShare a, finite and >= 0.
     * @param completionShare b, finite and >= 0; {@code a + b} above 0 and finite.
     * @param promptPer1M P, NaN when absent.
     * @param completionPer1M K, NaN when absent.
     * @return the cost per 1M tokens, NaN when a price with a non-zero share is absent.
     */
    public static double blend(
        final double promptShare, final double completionShare, final double promptPer1M, final double completionPer1M)
    {
        return blendByWeights(promptWeight(promptShare, completionShare), completionWeight(promptShare, completionShare),
            promptPer1M, completionPer1M);
    }

    /**
     * The prompt price's weight in {@link #blendByWeights}, worked out once for a mix rather than once per candidate.
     *
     * @param promptShare a, as {@link #blend}'s.
     * @param completionShare b, as {@link #blend}'s.
     * @return {@code a / (a + b)}, or {@link #NO_WEIGHT} when {@code a} is 0 (the prompt price does not count).
     */
    public static double promptWeight(final double promptShare, final double completionShare)
    {
        return promptShare > 0.0 ? promptShare / (promptShare + completionShare) : NO_WEIGHT;
    }

    /**
     * The completion price's weight in {@link #blendByWeights}, as {@link #promptWeight}.
     *
     * @param promptShare a, as {@link #blend}'s.
     * @param completionShare b, as {@link #blend}'s.
     * @return {@code b / (a + b)}, or {@link #NO_WEIGHT} when {@code b} is 0.
     */
    public static double completionWeight(final double promptShare, final double completionShare)
    {
        return completionShare > 0.0 ? completionShare / (promptShare + completionShare) : NO_WEIGHT;
    }

    /**
     * {@link #blend} with the mix's weights worked out already: {@code (a/(a+b))*P + (b/(a+b))*K}, each price counted
     * when its weight is not {@link #NO_WEIGHT}, to the same bit as {@link #blend}.
     *
     * @param promptWeight {@link #promptWeight} of the mix.
     * @param completionWeight {@link #completionWeight} of the mix.
     * @param promptPer1M P, NaN when absent.
     * @param completionPer1M K, NaN when absent.
     * @return the cost per 1M tokens, NaN when a price that counts is absent.
     */
    public static double blendByWeights(
        final double promptWeight, final double completionWeight, final double promptPer1M, final double completionPer1M)
    {
        double cost = 0.0;
        // A weight of a share above 0 is >= 0 even where the division underflows; NO_WEIGHT is below 0.
        if (promptWeight >= 0.0)
        {
            cost += promptWeight * promptPer1M;
        }
        if (completionWeight >= 0.0)
        {
            cost += completionWeight * completionPer1M;
        }
        return cost;
    }

    /**
     * The cache-aware prompt price of a model for one request: {@code (1 - P) * promptPer1M + P * cachedPromptPer1M},
     * with P the share of the request's prompt cached for it (section "Prefix-cache affinity" of docs/semantics.md).
     *
     * @param promptPer1M the model's prompt price, NaN when absent (then the result is NaN: missing).
     * @param cachedPromptPer1M its cached prompt price, finite and >= 0.
     * @param cachedShare P, 0..1.
     * @return the prompt price per 1M tokens for this request.
     */
    public static double cachedPrompt(final double promptPer1M, final double cachedPromptPer1M, final double cachedShare)
    {
        return (1.0 - cachedShare) * promptPer1M + cachedShare * cachedPromptPer1M;
    }

    /**
     * @param promptShare a.
     * @param completionShare b.
     * @return whether the pair is a valid mix: both finite and >= 0, not both 0, sum finite.
     */
    public static boolean isValid(final double promptShare, final double completionShare)
    {
        final double total = promptShare + completionShare;
        return promptShare >= 0.0 && completionShare >= 0.0 && total > 0.0 && total < Double.POSITIVE_INFINITY;
    }
}
