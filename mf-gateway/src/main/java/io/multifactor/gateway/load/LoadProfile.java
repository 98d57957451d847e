package io.multifactor.gateway.load;

/**
 * What one load run sends: seeded Poisson arrivals at {@code arrivalsPerS} for {@code durationS} or until
 * {@code maxRequests} have been sent, whichever comes first; then up to {@code drainS} for the requests in flight,
 * after which the rest are cut (status 0). Each request is a chat completion (or a text completion) with a prompt of
 * about {@code promptTokens} tokens (4 bytes each) and {@code max_tokens: maxTokens}, streamed unless
 * {@code stream} is false, routed by header {@code x-mf-decision: decision} when a decision is named.
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
    double intervalS)
{
    /**
     * @param maxTtft TTFT ceiling in milliseconds, 0 = none.
     * @param maxTpot TPOT ceiling in milliseconds, 0 = none.
     * @return this profile with those ceilings (a comparison takes them from the configuration's decision).
     */
    public LoadProfile withCeilings(final double maxTtft, final double maxTpot)
    {
        return new LoadProfile(seed, arrivalsPerS, durationS, maxRequests, drainS, decision, model, chat, stream,
            promptTokens, maxTokens, maxTtft, maxTpot, intervalS);
    }

    /**
     * @param seconds seconds of arrivals, > 0.
     * @return this profile for that long.
     */
    public LoadProfile withDurationS(final double seconds)
    {
        return new LoadProfile(seed, arrivalsPerS, seconds, maxRequests, drainS, decision, model, chat, stream,
            promptTokens, maxTokens, maxTtftMs, maxTpotMs, intervalS);
    }

    /**
     * @param newSeed the seed.
     * @return this profile with that seed.
     */
    public LoadProfile withSeed(final long newSeed)
    {
        return new LoadProfile(newSeed, arrivalsPerS, durationS, maxRequests, drainS, decision, model, chat, stream,
            promptTokens, maxTokens, maxTtftMs, maxTpotMs, intervalS);
    }
}
