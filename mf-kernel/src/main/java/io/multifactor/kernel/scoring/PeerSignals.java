package io.multifactor.kernel.scoring;

import io.multifactor.kernel.inflight.RecentRequests;
import io.multifactor.kernel.latency.RecentLatencies;
import org.agrona.concurrent.NanoClock;

/**
 * What the peers' stateful policies read of one decision's candidates, in candidate order, beside its
 * {@link CandidateSignals}: for {@code litellm_latency} each candidate model's rings of its last TTFT and TPOT samples
 * (the model's own, fed where the engine records latency, so every decision naming the model shares them), for
 * {@code prodstack_session} each candidate's requests routed in this decision over {@code request_stats_window} (this
 * decision's own, counted once a selection's choice is final) and the hash of its model's name; and the engine's
 * clock, which times both.
 * <pre>
 *   ttft, tpot:  [ ring(0) | ring(1) | ... ]     the candidates' models' RecentLatencies
 *   routed:      [ rate(0) | rate(1) | ... ]     RecentRequests, this decision's
 *   nodeHashes:  [ h(0)    | h(1)    | ... ]     ProdstackSession.nodeHash(model name)
 * </pre>
 * This class is threadsafe: its arrays are fixed at construction and each element is threadsafe itself.
 */
public final class PeerSignals
{
    private final NanoClock clock;
    private final RecentLatencies[] ttft;
    private final RecentLatencies[] tpot;
    private final RecentRequests[] routed;
    private final long[] nodeHashes;

    /**
     * @param clock the clock that times samples and requests (the engine's).
     * @param ttft each candidate's TTFT ring, in candidate order (copied).
     * @param tpot each candidate's TPOT ring, in candidate order (copied).
     * @param nodeHashes each candidate's {@link ProdstackSession#nodeHash}, in candidate order (copied).
     * @param requestStatsWindowNs the QPS window of {@code prodstack_session}.
     * @throws IllegalArgumentException when the arrays differ in length.
     */
    public PeerSignals(
        final NanoClock clock,
        final RecentLatencies[] ttft,
        final RecentLatencies[] tpot,
        final long[] nodeHashes,
        final long requestStatsWindowNs)
    {
        final int n = ttft.length;
        if (tpot.length != n || nodeHashes.length != n)
        {
            throw new IllegalArgumentException("peer signals: " + n + " TTFT rings, " + tpot.length + " TPOT rings, " +
                nodeHashes.length + " node hashes");
        }
        this.clock = clock;
        this.ttft = ttft.clone();
        this.tpot = tpot.clone();
        this.nodeHashes = nodeHashes.clone();
        this.routed = new RecentRequests[n];
        for (int i = 0; i < n; i++)
        {
            routed[i] = new RecentRequests(requestStatsWindowNs);
        }
    }

    /**
     * Signals of their own (fresh rings, node hashes of the names {@code names}), for tests and tools that drive the
     * kernel without an engine.
     *
     * @param clock the clock that times samples and requests.
     * @param names each candidate's model name, in candidate order.
     * @param requestStatsWindowNs the QPS window.
     * @return the signals, with no sample and no request routed.
     */
    public static PeerSignals standalone(final NanoClock clock, final String[] names, final long requestStatsWindowNs)
    {
        final int n = names.length;
        final RecentLatencies[] ttft = new RecentLatencies[n];
        final RecentLatencies[] tpot = new RecentLatencies[n];
        final long[] hashes = new long[n];
        for (int i = 0; i < n; i++)
        {
            ttft[i] = new RecentLatencies();
            tpot[i] = new RecentLatencies();
            hashes[i] = ProdstackSession.nodeHash(names[i]);
        }
        return new PeerSignals(clock, ttft, tpot, hashes, requestStatsWindowNs);
    }

    /** @return the number of candidates. */
    public int candidateCount()
    {
        return nodeHashes.length;
    }

    /** @return the clock's time now. */
    public long nowNs()
    {
        return clock.nanoTime();
    }

    /**
     * @param index candidate position.
     * @return its model's ring of TTFT samples.
     */
    public RecentLatencies ttft(final int index)
    {
        return ttft[index];
    }

    /**
     * @param index candidate position.
     * @return its model's ring of TPOT samples.
     */
    public RecentLatencies tpot(final int index)
    {
        return tpot[index];
    }

    /**
     * @param index candidate position.
     * @return the requests routed to it in this decision.
     */
    public RecentRequests routed(final int index)
    {
        return routed[index];
    }

    /**
     * @param index candidate position.
     * @return the hash of its model's name.
     */
    public long nodeHash(final int index)
    {
        return nodeHashes[index];
    }

    // The hashes themselves, for the kernel's loop (never written).
    long[] nodeHashes()
    {
        return nodeHashes;
    }

    /**
     * Counts one request routed to a candidate now. Lock-free; allocates nothing.
     *
     * @param index the chosen candidate's position.
     */
    public void countRouted(final int index)
    {
        routed[index].record(clock.nanoTime());
    }
}
