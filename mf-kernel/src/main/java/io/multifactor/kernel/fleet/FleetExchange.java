package io.multifactor.kernel.fleet;

/**
 * A transport that shares one replica's signals with the other replicas of its fleet and brings theirs back: Redis
 * ({@code mf-redis}) or in memory ({@code mf-testkit}). The {@code FleetAgent} calls {@link #exchange} every
 * {@link #tickNs()} on its one thread.
 * <p>
 * Contract of one call: take {@code local} (this replica's current in-flight counts and the latency samples recorded
 * since the previous call; a transport that publishes less often keeps them until it does, within bounded memory);
 * then write into {@code remote}, per model name, the sum of the other live replicas' last published in-flight counts
 * (replacing the previous counts; a model absent means 0) and add the other replicas' intervals that arrived since the
 * previous call (the agent empties the intervals after merging them). A replica whose last publication is older than
 * {@link #EXPIRY_PERIODS} periods no longer counts. A failure (network, timeout) returns {@link #FAILED} and leaves
 * {@code remote}'s counts as they were; the agent forgets them once no exchange has succeeded for
 * {@link #EXPIRY_PERIODS} periods. What comes from other replicas is untrusted: a transport skips and counts what does
 * not decode, and never puts more than {@code remote.capacity()} models into {@code remote}.
 * <p>
 * Implementations are used by one thread at a time (the agent's); {@link #close()} may come from another thread once
 * the agent stopped.
 */
public interface FleetExchange extends AutoCloseable
{
    /** {@link #exchange} published and read: {@code remote} holds fresh counts. */
    int EXCHANGED = 1;

    /** {@link #exchange} had nothing due (for example it publishes on period boundaries): {@code remote} unchanged. */
    int IDLE = 0;

    /** {@link #exchange} failed: {@code remote}'s counts are the last known ones, its intervals empty. */
    int FAILED = -1;

    /** A replica's contribution lasts this many periods after its last publication. */
    int EXPIRY_PERIODS = 4;

    /**
     * One exchange; never throws for a network problem (returns {@link #FAILED}).
     *
     * @param nowNs the agent's clock, in nanoseconds.
     * @param local this replica's counts and new intervals, keyed by model name.
     * @param remote where to write the other replicas' counts and intervals.
     * @return {@link #EXCHANGED}, {@link #IDLE} or {@link #FAILED}.
     */
    int exchange(long nowNs, FleetSignals local, FleetSignals remote);

    /** @return the exchange period ({@code exchange_every}), in nanoseconds. */
    long periodNs();

    /** @return how often the agent calls {@link #exchange}, in nanoseconds (at most {@link #periodNs()}). */
    long tickNs();

    /** @return the number of other replicas whose contribution counted in the last successful exchange. */
    int liveRemoteReplicas();

    /** @return entries from other replicas skipped because they did not decode or were out of range. */
    long skippedEntryCount();

    /** Releases the transport's resources; the agent has stopped calling it. */
    @Override
    void close();
}
