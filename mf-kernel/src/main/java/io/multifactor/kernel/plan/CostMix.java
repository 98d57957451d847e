package io.multifactor.kernel.plan;

/**
 * The cost of a candidate under a token mix: {@code C = (a*P + b*K) / (a + b)} with {@code a}, {@code b} the prompt and
 * completion shares and {@code P}, {@code K} the prompt and completion prices per 1M tokens. A price whose share is 0
 * does not count (its absence does not matter); a price whose share is above 0 and that is absent (NaN) makes the cost
 * absent.
 * <p>
 * Computed as {@code (a/(a+b))*P + (b/(a+b))*K}, which cannot overflow for finite prices and gives {@code P} exactly
 * for the default mix {@code {prompt: 1, completion: 0}}.
 * <p>
 * This class is stateless and threadsafe; {@link #blend} allocates nothing.
 */
public final class CostMix
{
    /** Prompt share of the default mix. */
    public static final double DEFAULT_PROMPT = 1.0;

    /** Completion share of the default mix. */
    public static final double DEFAULT_COMPLETION = 0.0;

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
        final double total = promptShare + completionShare;
        double cost = 0.0;
        if (promptShare > 0.0)
        {
            cost += promptShare / total * promptPer1M;
        }
        if (completionShare > 0.0)
        {
            cost += completionShare / total * completionPer1M;
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
