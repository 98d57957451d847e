package io.multifactor.sim.prompt;

import io.multifactor.config.read.MappingReader;
import io.multifactor.config.yaml.YamlNode;
import io.multifactor.config.yaml.YamlScalar;

import java.util.List;

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

    /** The keys of a {@code prompts} block. */
    public static final List<String> KEYS = List.of("system_prompts", "system_tokens", "hot_share", "turns",
        "think_time_s", "message_tokens", "answer_tokens");

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

    /**
     * Reads a {@code prompts} block of a simulation or load profile, reporting what is wrong to the reader's problems.
     *
     * @param reader the block's reader (opened with {@link #KEYS}), or null when the profile has none.
     * @return the workload, {@link #NONE} when absent or wrong.
     */
    public static PromptWorkload read(final MappingReader reader)
    {
        if (reader == null)
        {
            return PromptWorkload.NONE;
        }
        final int errorsBefore = reader.problems().errors().size();
        final int systemPrompts = (int)reader.optionalInteger("system_prompts", 0L, 0L, 1_000_000L);
        final int systemTokens = (int)reader.optionalInteger("system_tokens", 2000L, 1L, 1_000_000L);
        final double hotShare = reader.optionalNumber("hot_share", 0.0, true);
        if (hotShare > 1.0)
        {
            final YamlNode node = reader.value("hot_share");
            reader.problems().error(node, reader.path("hot_share"), "must be in [0, 1], got " +
                (node instanceof YamlScalar ? ((YamlScalar)node).text() : node.describe()));
        }
        final int turns = (int)reader.optionalInteger("turns", 1L, 1L, 10_000L);
        final double thinkTimeS = reader.optionalNumber("think_time_s", 10.0, true);
        final int messageTokens = (int)reader.optionalInteger("message_tokens", 100L, 1L, 1_000_000L);
        final int answerTokens = (int)reader.optionalInteger("answer_tokens", 200L, 0L, 1_000_000L);
        if (reader.problems().errors().size() != errorsBefore)
        {
            return PromptWorkload.NONE;
        }
        return new PromptWorkload(systemPrompts, systemTokens, hotShare, turns, thinkTimeS, messageTokens, answerTokens);
    }
}
