package io.multifactor.sim.prompt;

/**
 * What prompts a run sends, when they share prefixes: sessions of {@code turns} turns, turn k (from 1) sending the
 * session's system prompt, its k - 1 earlier questions and answers, and a new question; and a choice among
 * {@code systemPrompts} system prompts of {@code systemTokens} tokens each, shared by every session that draws it.
 * <pre>
 * prompts:
 *   system_prompts: 4       # distinct shared system prompts; 0: none (default 0)
 *   system_tokens: 3000     # tokens of each (default 2000)
 *   hot_share: 0.0          # share of sessions on the first one; the rest draw uniformly over all (default 0)
 *   turns: 1                # turns per session (default 1: every request its own session)
 *   think_time_s: 10        # seconds from one turn to the next of a session (default 10)
 *   message_tokens: 100     # tokens of each question (default 100)
 *   answer_tokens: 200      # tokens of each answer a later turn resends (default 200)
 * </pre>
 * Sessions start as a Poisson process at the run's arrival rate / {@code turns}, so requests arrive at about the run's
 * rate; turn k of a session is sent (k - 1) x {@code think_time_s} after its start, whatever the answers' times (an
 * open loop, as the rest of the load).
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param systemPrompts distinct system prompts, >= 0.
 * @param systemTokens tokens of each system prompt, >= 1.
 * @param hotShare share of sessions on system prompt 0 before the uniform draw, 0..1.
 * @param turns turns per session, >= 1.
 * @param thinkTimeS seconds between two turns of a session, >= 0.
 * @param messageTokens tokens of each question, >= 1.
 * @param answerTokens tokens of each answer resent by later turns, >= 0.
 */
public record PromptWorkload(
    int systemPrompts,
    int systemTokens,
    double hotShare,
    int turns,
    double thinkTimeS,
    int messageTokens,
    int answerTokens)
{
    /** No shared prefixes: the run's own prompt sizes apply. */
    public static final PromptWorkload NONE = new PromptWorkload(0, 1, 0.0, 1, 0.0, 1, 0);

    /**
     * Checks the ranges above.
     *
     * @throws IllegalArgumentException when a value is out of range.
     */
    public PromptWorkload
    {
        if (systemPrompts < 0 || systemTokens < 1 || !(hotShare >= 0.0 && hotShare <= 1.0) || turns < 1 ||
            !(thinkTimeS >= 0.0 && thinkTimeS < Double.POSITIVE_INFINITY) || messageTokens < 1 || answerTokens < 0)
        {
            throw new IllegalArgumentException("prompts out of range: " + this);
        }
    }

    /** @return whether it shapes prompts at all: system prompts or sessions of more than one turn. */
    public boolean active()
    {
        return systemPrompts > 0 || turns > 1;
    }
}
