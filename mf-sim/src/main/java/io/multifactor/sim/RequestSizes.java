package io.multifactor.sim;

/**
 * How request sizes load the simulated models: a share of requests with a long prompt, and the tokens one request
 * slot of a model's {@code capacity} stands for (then a model slows down by the tokens it has in flight, not by the
 * number of requests). The profile keys {@code long_prompts: {share, prompt_tokens}} and {@code tokens_per_slot}.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param longPromptShare share of requests, 0..1, whose prompt has {@code longPromptTokens} tokens.
 * @param longPromptTokens the long prompts' token count.
 * @param tokensPerSlot tokens in flight that load a model like one request; 0 to count requests.
 */
public record RequestSizes(double longPromptShare, int longPromptTokens, int tokensPerSlot)
{
    /** Every prompt has the profile's {@code prompt_tokens}; models slow down by requests in flight. */
    public static final RequestSizes NONE = new RequestSizes(0.0, 0, 0);

    /**
     * @throws IllegalArgumentException when a value is out of range.
     */
    public RequestSizes
    {
        if (!(longPromptShare >= 0.0 && longPromptShare <= 1.0))
        {
            throw new IllegalArgumentException("long_prompts.share must be in [0, 1]: " + longPromptShare);
        }
        if (longPromptTokens < 0 || tokensPerSlot < 0)
        {
            throw new IllegalArgumentException("token counts must be >= 0: " + longPromptTokens + ", " + tokensPerSlot);
        }
    }

    /**
     * @param inflight requests in flight on a model.
     * @param tokensInFlight their tokens (prompt plus output).
     * @return the load that the model's capacity and slowdown apply to.
     */
    public long load(final long inflight, final long tokensInFlight)
    {
        return tokensPerSlot == 0 ? inflight : tokensInFlight / tokensPerSlot;
    }
}
