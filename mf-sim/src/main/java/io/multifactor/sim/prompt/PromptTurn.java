package io.multifactor.sim.prompt;

import io.multifactor.serving.PromptBlocks;

import java.util.SplittableRandom;

/**
 * One request of a {@link PromptWorkload}: when it is sent, its session and turn, and its prompt as token segments in
 * order (the system prompt, then each earlier question and answer, then the new question). A segment is identified by
 * a 64-bit id: a system prompt's id is the same in every session and run, a question's or answer's is its session's
 * own. Its text, for a real request, is {@code tokens} words of 4 bytes ("abc ") drawn from its id.
 * <p>
 * Instances are immutable and threadsafe.
 */
public final class PromptTurn
{
    /** Role of a segment: the system prompt. */
    public static final int SYSTEM = 0;
    /** Role of a segment: a question. */
    public static final int USER = 1;
    /** Role of a segment: an answer. */
    public static final int ASSISTANT = 2;

    private static final String[] ROLE_NAMES = { "system", "user", "assistant" };

    private final long timeNs;
    private final long sessionId;
    private final int turn;
    private final long[] segmentIds;
    private final int[] segmentTokens;
    private final int[] segmentRoles;
    private final long promptTokens;

    PromptTurn(final long timeNs, final long sessionId, final int turn, final long[] segmentIds,
        final int[] segmentTokens, final int[] segmentRoles)
    {
        this.timeNs = timeNs;
        this.sessionId = sessionId;
        this.turn = turn;
        this.segmentIds = segmentIds;
        this.segmentTokens = segmentTokens;
        this.segmentRoles = segmentRoles;
        long tokens = 0;
        for (final int t : segmentTokens)
        {
            tokens += t;
        }
        this.promptTokens = tokens;
    }

    /** @return when it is sent, nanoseconds from the start of the run. */
    public long timeNs()
    {
        return timeNs;
    }

    /** @return its session's key, distinct per session of a run, never 0. */
    public long sessionId()
    {
        return sessionId;
    }

    /** @return its turn in the session, from 1. */
    public int turn()
    {
        return turn;
    }

    /** @return its prompt's tokens. */
    public long promptTokens()
    {
        return promptTokens;
    }

    /** @return its prompt's segments. */
    public int segmentCount()
    {
        return segmentIds.length;
    }

    /**
     * @param i a segment, from 0.
     * @return its id.
     */
    public long segmentId(final int i)
    {
        return segmentIds[i];
    }

    /**
     * @param i a segment, from 0.
     * @return its tokens.
     */
    public int segmentTokens(final int i)
    {
        return segmentTokens[i];
    }

    /**
     * @param i a segment, from 0.
     * @return its role: {@link #SYSTEM}, {@link #USER} or {@link #ASSISTANT}.
     */
    public int segmentRole(final int i)
    {
        return segmentRoles[i];
    }

    /**
     * The prompt cut into full blocks of {@code blockTokens} tokens (a trailing partial block left out, as a server
     * caches only full blocks), hashed as a chain: block i's hash covers blocks 0..i, so two prompts share the hashes of
     * exactly their common leading blocks.
     *
     * @param blockTokens tokens per block, >= 1.
     * @return one hash per full block.
     */
    public long[] blockHashes(final int blockTokens)
    {
        final long[] hashes = new long[(int)(promptTokens / blockTokens)];
        long hash = 0x9E3779B97F4A7C15L;
        int segment = 0;
        int offset = 0;
        for (int b = 0; b < hashes.length; b++)
        {
            int left = blockTokens;
            while (left > 0)
            {
                final int take = Math.min(left, segmentTokens[segment] - offset);
                hash = mix(mix(mix(hash ^ segmentIds[segment]) ^ offset) ^ take);
                offset += take;
                left -= take;
                if (offset == segmentTokens[segment])
                {
                    segment++;
                    offset = 0;
                }
            }
            hashes[b] = hash;
        }
        return hashes;
    }

    /**
     * Appends the prompt as an OpenAI chat {@code messages} array (one message per segment, role and text).
     *
     * @param json where to append.
     * @return {@code json}.
     */
    public StringBuilder appendMessages(final StringBuilder json)
    {
        json.append('[');
        for (int i = 0; i < segmentIds.length; i++)
        {
            json.append(i == 0 ? "" : ",").append("{\"role\":\"").append(ROLE_NAMES[segmentRoles[i]])
                .append("\",\"content\":\"");
            appendText(json, segmentIds[i], segmentTokens[i]);
            json.append("\"}");
        }
        return json.append(']');
    }

    /**
     * Appends the prompt's bytes as the gateway captures those of the chat request {@link #appendMessages} writes (each
     * segment's role, a 0 byte, its text, a 0 byte), so the simulator's router cuts and hashes the bytes a real one
     * would: equal segments give equal bytes, whatever the servers' block size.
     *
     * @param prompt where to append.
     * @param scratch a builder this call may clear and fill.
     * @return {@code prompt}.
     */
    public PromptBlocks appendChatBytes(final PromptBlocks prompt, final StringBuilder scratch)
    {
        scratch.setLength(0);
        for (int i = 0; i < segmentIds.length; i++)
        {
            scratch.append(ROLE_NAMES[segmentRoles[i]]).append('\0');
            appendText(scratch, segmentIds[i], segmentTokens[i]);
            scratch.append('\0');
        }
        final char[] chars = new char[scratch.length()];
        scratch.getChars(0, chars.length, chars, 0);
        // ASCII only: one byte per character.
        prompt.appendUtf8(chars, 0, chars.length, chars.length);
        return prompt;
    }

    /**
     * Appends the prompt as one text (the segments' texts in order), for a text completion.
     *
     * @param text where to append.
     * @return {@code text}.
     */
    public StringBuilder appendText(final StringBuilder text)
    {
        for (int i = 0; i < segmentIds.length; i++)
        {
            appendText(text, segmentIds[i], segmentTokens[i]);
        }
        return text;
    }

    private static void appendText(final StringBuilder text, final long segmentId, final int tokens)
    {
        final SplittableRandom words = new SplittableRandom(segmentId);
        for (int t = 0; t < tokens; t++)
        {
            text.append((char)('a' + words.nextInt(26))).append((char)('a' + words.nextInt(26)))
                .append((char)('a' + words.nextInt(26))).append(' ');
        }
    }

    /** A 64-bit finalizer (the one of SplitMix64). */
    static long mix(final long value)
    {
        long z = value;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
