package io.multifactor.serving;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * One attempt's part in prefix-cache affinity, from the backend choice to the backend's answer: which backend was
 * chosen and why, the uncached prompt tokens it added to that backend's wait, and the prompt whose blocks enter the
 * backend's index when it answers. {@link #answered()} (a first chunk, or a 2xx non-streamed answer) enters the blocks
 * and takes the tokens off the wait; {@link #abandoned()} (a failure, a cancel, the end of the attempt) only takes the
 * tokens off; whichever comes first acts, the other does nothing.
 * <p>
 * For a model with {@code backend_choice} the ticket carries the attempt's part in that rule instead: the request's
 * session key (set at the attempt's start), and the chosen backend's {@link BackendSignals}, counted in when chosen,
 * given the attempt's TTFT ({@link #firstTokenMicros}) and counted out once when the attempt ends ({@link #ended()}).
 * <p>
 * Reusable across attempts; {@link RequestLifecycle} holds one and calls it. This class is threadsafe for
 * {@link #answered()}, {@link #abandoned()} and {@link #ended()}, which may race; {@link #open} and
 * {@link #session} are called by the request's owner.
 */
public final class PrefixTicket
{
    /** Result of a choice: the warm backend with the largest match. */
    public static final int WARM = 0;
    /** Result of a choice: no backend was warm; the one with the smallest wait. */
    public static final int COLD = 1;
    /** Result of a choice: a warm backend waited too long; the one with the smallest wait instead. */
    public static final int RELEASE = 2;
    /** Results in counter order, the {@code result} tag of {@code mf.prefix.choices}. */
    static final String[] RESULTS = {"warm", "cold", "release"};

    private static final int IDLE = 0;
    private static final int OPEN = 1;

    private final AtomicInteger state = new AtomicInteger(IDLE);
    private BackendPrefix backend;
    private PromptBlocks prompt;
    private int blocks;
    private long pendingTokens;
    private int result = -1;
    private double share;
    private final AtomicInteger ruleState = new AtomicInteger(IDLE);
    private BackendSignals ruleBackend;
    private boolean hasSession;
    private long sessionKey;

    void open(final BackendPrefix chosen, final PromptBlocks blocksOf, final int blockCount, final long tokens,
        final int choiceResult, final double matchShare)
    {
        abandoned();
        backend = chosen;
        prompt = blocksOf;
        blocks = blockCount;
        pendingTokens = tokens;
        result = choiceResult;
        share = matchShare;
        chosen.addPending(tokens);
        // Published last: a racing answered/abandoned that sees OPEN sees the fields too.
        state.set(OPEN);
    }

    /**
     * The backend answered (its first chunk, or a 2xx non-streamed response): the prompt's blocks enter its index and
     * its wait drops by this attempt's tokens. Once per attempt; nothing after {@link #abandoned()}.
     *
     * @return whether this call acted.
     */
    public boolean answered()
    {
        if (!state.compareAndSet(OPEN, IDLE))
        {
            return false;
        }
        backend.addPending(-pendingTokens);
        if (prompt.cutBlockBytes() == backend.blockBytes())
        {
            backend.index().insert(prompt.hashes(), blocks);
        }
        return true;
    }

    /**
     * The attempt ended without an answer (or after one: then nothing happens): its tokens leave the backend's wait,
     * nothing enters the index.
     *
     * @return whether this call acted.
     */
    public boolean abandoned()
    {
        if (!state.compareAndSet(OPEN, IDLE))
        {
            return false;
        }
        backend.addPending(-pendingTokens);
        return true;
    }

    /**
     * Sets the session key of the attempt about to choose a backend (what {@code prodstack_session} hashes); public for
     * the simulator, which plays {@link RequestLifecycle}'s part.
     *
     * @param hasKey whether the request carries one.
     * @param key the key.
     */
    public void session(final boolean hasKey, final long key)
    {
        hasSession = hasKey;
        sessionKey = key;
    }

    boolean hasSession()
    {
        return hasSession;
    }

    long sessionKey()
    {
        return sessionKey;
    }

    // The backend chosen by a backend_choice rule: counted in until the attempt ends.
    void openRule(final BackendSignals chosen)
    {
        ended();
        ruleBackend = chosen;
        chosen.begun();
        // Published last, as in open.
        ruleState.set(OPEN);
    }

    /**
     * The attempt's first content: its TTFT joins the chosen backend's samples (a {@code backend_choice} rule's).
     *
     * @param micros the TTFT in microseconds.
     */
    public void firstTokenMicros(final long micros)
    {
        if (ruleState.get() == OPEN)
        {
            ruleBackend.firstTokenMicros(micros);
        }
    }

    /**
     * The attempt ended (completed, failed or cancelled): the chosen backend counts it out. Once per attempt.
     *
     * @return whether this call acted.
     */
    public boolean ended()
    {
        if (!ruleState.compareAndSet(OPEN, IDLE))
        {
            return false;
        }
        ruleBackend.ended();
        return true;
    }

    /** @return whether a choice is waiting for the backend's answer. */
    public boolean isOpen()
    {
        return state.get() == OPEN;
    }

    /** @return the last choice's result ({@link #WARM}, {@link #COLD}, {@link #RELEASE}), -1 before one. */
    public int result()
    {
        return result;
    }

    /** @return the last choice's match share on the chosen backend, 0..1. */
    public double share()
    {
        return share;
    }
}
