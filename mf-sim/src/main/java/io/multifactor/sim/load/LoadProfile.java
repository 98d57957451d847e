package io.multifactor.sim.load;

import io.multifactor.sim.prompt.PromptWorkload;

/**
 * What one load run sends: seeded Poisson arrivals at {@code arrivalsPerS} for {@code durationS} or until
 * {@code maxRequests} have been sent, whichever comes first; then up to {@code drainS} for the requests in flight,
 * after which the rest are cut (status 0). Each request is a chat completion (or a text completion) with a prompt of
 * about {@code promptTokens} tokens (4 bytes each) and {@code max_tokens: maxTokens}, streamed unless
 * {@code stream} is false, routed by header {@code x-mf-decision: decision} when a decision is named. With
 * {@code concurrency} above 0 the load is closed-loop instead, for a saturation throughput: that many requests are kept
 * open, each one that ends replaced at once by the next, for {@code durationS} or {@code maxRequests}.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param seed seed of the arrivals.
 * @param arrivalsPerS mean arrival rate, per second, > 0.
 * @param durationS how long arrivals go on, seconds, > 0.
 * @param maxRequests most requests sent, >= 1.
 * @param drainS how long to wait for the requests still in flight after the last arrival, seconds, >= 0.
 * @param decision decision name for {@code x-mf-decision} and the body's {@code model}, or null (then {@code model}).
 * @param model the body's {@code model} when no decision is named (a server's model name), or null.
 * @param chat chat completions ({@code true}) or text completions.
 * @param stream whether to ask for a streamed response.
 * @param promptTokens prompt size in tokens, >= 1.
 * @param maxTokens {@code max_tokens} of each request, >= 1.
 * @param maxTtftMs TTFT ceiling of SLO attainment, milliseconds, 0 = none.
 * @param maxTpotMs TPOT ceiling of SLO attainment, milliseconds, 0 = none.
 * @param intervalS width of one row of the timeline (progress, chart), seconds, > 0.
 * @param concurrency requests kept open at once in a closed-loop run, or 0 for open-loop Poisson arrivals.
 * @param prompts prompts that share prefixes ({@link PromptWorkload#NONE}: none); when active (open loop only), the
 *     arrivals and each request's messages follow its sessions, and a session of more than one turn sends its key in
 *     the header {@code x-session-id}.
 */
public record LoadProfile(
    long seed,
    double arrivalsPerS,
    double durationS,
    int maxRequests,
    double drainS,
    String decision,
    String model,
    boolean chat,
    boolean stream,
    int promptTokens,
    int maxTokens,
    double maxTtftMs,
    double maxTpotMs,
    double intervalS,
    int concurrency,
    PromptWorkload prompts)
{
    /**
     * @param seed seed of the arrivals.
     * @param arrivalsPerS mean arrival rate.
     * @param durationS how long arrivals go on.
     * @param maxRequests most requests sent.
     * @param drainS how long to wait for the requests still in flight.
     * @param decision decision name, or null.
     * @param model the body's model, or null.
     * @param chat chat or text completions.
     * @param stream whether to stream.
     * @param promptTokens prompt size in tokens.
     * @param maxTokens {@code max_tokens}.
     * @param maxTtftMs TTFT ceiling.
     * @param maxTpotMs TPOT ceiling.
     * @param intervalS timeline row width.
     * @param concurrency closed-loop requests, or 0.
     * @param prompts shared prefixes, null for none.
     */
    public LoadProfile
    {
        prompts = prompts == null ? PromptWorkload.NONE : prompts;
    }

    /**
     * A profile whose requests all send the same prompt of {@code promptTokens}.
     *
     * @param seed seed of the arrivals.
     * @param arrivalsPerS mean arrival rate, per second, > 0.
     * @param durationS how long arrivals go on, seconds, > 0.
     * @param maxRequests most requests sent, >= 1.
     * @param drainS how long to wait for the requests still in flight, seconds, >= 0.
     * @param decision decision name, or null.
     * @param model the body's {@code model} when no decision is named, or null.
     * @param chat chat completions ({@code true}) or text completions.
     * @param stream whether to ask for a streamed response.
     * @param promptTokens prompt size in tokens, >= 1.
     * @param maxTokens {@code max_tokens} of each request, >= 1.
     * @param maxTtftMs TTFT ceiling, milliseconds, 0 = none.
     * @param maxTpotMs TPOT ceiling, milliseconds, 0 = none.
     * @param intervalS width of one row of the timeline, seconds, > 0.
     * @param concurrency closed-loop requests, or 0 for open loop.
     */
    public LoadProfile(final long seed, final double arrivalsPerS, final double durationS, final int maxRequests,
        final double drainS, final String decision, final String model, final boolean chat, final boolean stream,
        final int promptTokens, final int maxTokens, final double maxTtftMs, final double maxTpotMs,
        final double intervalS, final int concurrency)
    {
        this(seed, arrivalsPerS, durationS, maxRequests, drainS, decision, model, chat, stream, promptTokens, maxTokens,
            maxTtftMs, maxTpotMs, intervalS, concurrency, PromptWorkload.NONE);
    }

    /**
     * An open-loop profile (Poisson arrivals): {@code concurrency} 0.
     *
     * @param seed seed of the arrivals.
     * @param arrivalsPerS mean arrival rate, per second, > 0.
     * @param durationS how long arrivals go on, seconds, > 0.
     * @param maxRequests most requests sent, >= 1.
     * @param drainS how long to wait for the requests still in flight after the last arrival, seconds, >= 0.
     * @param decision decision name for {@code x-mf-decision} and the body's {@code model}, or null.
     * @param model the body's {@code model} when no decision is named, or null.
     * @param chat chat completions ({@code true}) or text completions.
     * @param stream whether to ask for a streamed response.
     * @param promptTokens prompt size in tokens, >= 1.
     * @param maxTokens {@code max_tokens} of each request, >= 1.
     * @param maxTtftMs TTFT ceiling of SLO attainment, milliseconds, 0 = none.
     * @param maxTpotMs TPOT ceiling of SLO attainment, milliseconds, 0 = none.
     * @param intervalS width of one row of the timeline, seconds, > 0.
     */
    public LoadProfile(final long seed, final double arrivalsPerS, final double durationS, final int maxRequests,
        final double drainS, final String decision, final String model, final boolean chat, final boolean stream,
        final int promptTokens, final int maxTokens, final double maxTtftMs, final double maxTpotMs,
        final double intervalS)
    {
        this(seed, arrivalsPerS, durationS, maxRequests, drainS, decision, model, chat, stream, promptTokens, maxTokens,
            maxTtftMs, maxTpotMs, intervalS, 0);
    }

    /** @return whether this is a closed-loop run ({@code concurrency} above 0). */
    public boolean closedLoop()
    {
        return concurrency > 0;
    }

    /**
     * @param maxTtft TTFT ceiling in milliseconds, 0 = none.
     * @param maxTpot TPOT ceiling in milliseconds, 0 = none.
     * @return this profile with those ceilings (a comparison takes them from the configuration's decision).
     */
    public LoadProfile withCeilings(final double maxTtft, final double maxTpot)
    {
        return new LoadProfile(seed, arrivalsPerS, durationS, maxRequests, drainS, decision, model, chat, stream,
            promptTokens, maxTokens, maxTtft, maxTpot, intervalS, concurrency, prompts);
    }

    /**
     * @param seconds seconds of arrivals, > 0.
     * @return this profile for that long.
     */
    public LoadProfile withDurationS(final double seconds)
    {
        return new LoadProfile(seed, arrivalsPerS, seconds, maxRequests, drainS, decision, model, chat, stream,
            promptTokens, maxTokens, maxTtftMs, maxTpotMs, intervalS, concurrency, prompts);
    }

    /**
     * @param newSeed the seed.
     * @return this profile with that seed.
     */
    public LoadProfile withSeed(final long newSeed)
    {
        return new LoadProfile(newSeed, arrivalsPerS, durationS, maxRequests, drainS, decision, model, chat, stream,
            promptTokens, maxTokens, maxTtftMs, maxTpotMs, intervalS, concurrency, prompts);
    }
}
