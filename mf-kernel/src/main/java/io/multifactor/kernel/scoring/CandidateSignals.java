package io.multifactor.kernel.scoring;

import io.multifactor.api.DropReason;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.reliability.EjectionTable;
import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The live signals of one decision's candidates, laid out in candidate order so that the kernel reads them in the
 * same loop that filters and bounds: one source per signal of the table ({@link io.multifactor.api.Factor}) that is
 * not configuration - the published latency of each candidate at the decision's percentile, where each candidate's
 * in-flight counter lives, its in-flight tokens, its servers' queue and KV-cache use with their staleness, and whether
 * it is ejected.
 * <pre>
 *   latencyMs:        [ tpot(0) | ttft(0) | tpot(1) | ttft(1) | ... ]    milliseconds, NaN = no observation
 *   serverLoad:       [ queue(0) | kv(0) | queue(1) | kv(1) | ... ]       NaN = no fresh server
 *   stale:            [ s(0) | s(1) | ... ]                                1 = every server of the model is stale
 *   tokenOffsets:     [ off(0)  | off(1)  | ... ]                          value offsets in tokenValues: tokens of the
 *                                                                          candidate's live leases (the lease table's
 *                                                                          counters in the engine)
 *   ejectionSlots:    [ slot(0) | slot(1) | ... ]                          each candidate's word in the EjectionTable
 *   inflightOffsets:  [ off(0)  | off(1)  | ... ]                          value offsets in inflightValues
 *   dropCounterIds:   [ id(0, reason 0) ... id(0, COUNT - 1) | id(1, 0) ... ]   counter id per candidate and reason
 * </pre>
 * One publisher at a time (the engine's refresh thread, or a test) writes latencies with release stores. Kernels read
 * latencies and in-flight counts (which other threads change atomically in the counters' buffer) with plain loads,
 * on purpose: an ordered load (opaque, acquire or volatile) in the loop stops the JIT from keeping the plan's and the
 * selection's arrays in registers and cost about a third of {@code select} in the benchmarks. That is safe because
 * (1) the engine's {@code select} starts with a volatile load of its state, so no load of the loop can be hoisted out
 * of the call: every selection reads every value afresh; (2) each value is one aligned 64-bit word, which a 64-bit JVM
 * loads atomically (no torn value); (3) values of two consecutive publications may mix, which is harmless: each is a
 * valid recent percentile or count. Ejection is read live from each candidate's word in the {@link EjectionTable}
 * (one plain load, the clock read only for a word that is not healthy), for the same reasons. The offsets are fixed
 * at construction, where each is checked to lie in its buffer: the kernel then loads a count at its address without
 * Agrona's bounds check per load. Once a publication is complete the publisher seals it ({@link #seal}): the kernel
 * then reads what depends on published values from {@link PublishedTerms} worked out once, and only what depends on the
 * request and the in-flight counts and tokens live; the next publication undoes the seal until it is sealed in turn. This class is threadsafe
 * under that contract.
 */
public final class CandidateSignals
{
    /** {@link #ejectionPercent} of a candidate whose model has no {@code reliability}. */
    public static final int NO_RELIABILITY = -1;

    private static final VarHandle DOUBLES = MethodHandles.arrayElementVarHandle(double[].class);
    private static final VarHandle BYTES = MethodHandles.arrayElementVarHandle(byte[].class);
    private static final VarHandle TURNS;
    private static final VarHandle TERMS;

    static
    {
        try
        {
            TURNS = MethodHandles.lookup().findVarHandle(CandidateSignals.class, "turns", long.class);
            TERMS = MethodHandles.lookup().findVarHandle(CandidateSignals.class, "terms", PublishedTerms.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    final int candidateCount;
    final double[] latencyMs;
    final AtomicBuffer inflightValues;
    final int[] inflightOffsets;
    final int[] dropCounterIds;
    final double[] serverLoad;
    final byte[] stale;
    final AtomicBuffer tokenValues;
    final int[] tokenOffsets;
    final EjectionTable ejections;
    final int[] ejectionSlots;
    /** Per candidate, its model's {@code max_ejection_percent}, {@link #NO_RELIABILITY} without {@code reliability}. */
    private final int[] ejectionPercents;
    // Whether each source beyond latency and in-flight requests was ever published here: until one was, the kernel
    // reads none of them (every one is missing, 0 or "not ejected"), so a decision without them pays no loads for them;
    // once one was, it reads the sources published (and the tokens of a decision that weighs or bounds them). Plain fields: set once, never cleared; the
    // publication of the values themselves is ordered.
    private boolean serverSignals;
    private boolean tokenSignals;
    private boolean ejectionSignals;
    // Where each candidate's in-flight count and tokens live, for loads without Agrona's per-call bounds check: the
    // buffer's array (null for direct memory) and each value's address in it, checked against the buffer's capacity at
    // construction. The buffers are referenced above, so the memory lives as long as these signals.
    private final byte[] inflightArray;
    private final long[] inflightAddresses;
    private final byte[] tokenArray;
    private final long[] tokenAddresses;
    // The round_robin baseline's turn counter: shared by every thread selecting this decision (one atomic add per
    // selection, no lock); a multi_factor decision never touches it.
    @SuppressWarnings("unused")
    private volatile long turns;
    // The terms of the last publication sealed (seal), null from the next publication on until it is sealed too: two
    // of them, the publisher writing the one it did not write last (PublishedTerms says why that is safe to read).
    @SuppressWarnings("unused")
    private volatile PublishedTerms terms;
    private final PublishedTerms termsA;
    private final PublishedTerms termsB;
    private PublishedTerms lastSealed;
    // What the peers' stateful policies read (litellm_latency, prodstack_session); null for any other decision. Set
    // once before the signals are published (the engine's state is then published with a volatile write).
    private PeerSignals peersOrNull;

    /**
     * Signals whose drops count nowhere ({@link #dropCounterId} is -1 for every candidate and reason).
     *
     * @param inflightValues the counters' values buffer.
     * @param inflightOffsets value offset of each candidate's in-flight counter, in candidate order (copied).
     */
    public CandidateSignals(final AtomicBuffer inflightValues, final int[] inflightOffsets)
    {
        this(inflightValues, inflightOffsets, noDropCounters(inflightOffsets.length));
    }

    /**
     * @param inflightValues the counters' values buffer.
     * @param inflightOffsets value offset of each candidate's in-flight counter, in candidate order (copied).
     * @param dropCounterIds per candidate, in candidate order, {@link DropReason#COUNT} counter ids, one per reason
     *     (the drop counter of the candidate's model and that reason; -1 where none), copied.
     * @throws IllegalArgumentException when {@code dropCounterIds} is not {@code DropReason.COUNT} per candidate.
     */
    public CandidateSignals(final AtomicBuffer inflightValues, final int[] inflightOffsets, final int[] dropCounterIds)
    {
        this(inflightValues, inflightOffsets, dropCounterIds, null, null, ownEjectionTable(inflightOffsets.length),
            identity(inflightOffsets.length), noReliability(inflightOffsets.length));
    }

    /**
     * Signals whose in-flight tokens are read live from counters (the engine's lease table keeps them), like the
     * in-flight counts.
     *
     * @param inflightValues the counters' values buffer, which also holds the in-flight tokens counters.
     * @param inflightOffsets value offset of each candidate's in-flight counter, in candidate order (copied).
     * @param dropCounterIds per candidate, {@link DropReason#COUNT} counter ids (as the other constructor), copied.
     * @param tokenOffsets value offset of each candidate's in-flight tokens counter, in candidate order (copied).
     * @throws IllegalArgumentException when an array does not have one entry per candidate (per reason).
     */
    public CandidateSignals(
        final AtomicBuffer inflightValues, final int[] inflightOffsets, final int[] dropCounterIds, final int[] tokenOffsets)
    {
        this(inflightValues, inflightOffsets, dropCounterIds, inflightValues, tokenOffsets,
            ownEjectionTable(inflightOffsets.length), identity(inflightOffsets.length),
            noReliability(inflightOffsets.length));
    }

    /**
     * An engine decision's signals: in-flight tokens from counters, ejection from the engine's table.
     *
     * @param inflightValues the counters' values buffer, which also holds the in-flight tokens counters.
     * @param inflightOffsets value offset of each candidate's in-flight counter, in candidate order (copied).
     * @param dropCounterIds per candidate, {@link DropReason#COUNT} counter ids (as the other constructor), copied.
     * @param tokenOffsets value offset of each candidate's in-flight tokens counter, in candidate order (copied).
     * @param ejections the table of the models' ejection words.
     * @param ejectionSlots each candidate's slot in that table, in candidate order (copied).
     * @param ejectionPercents per candidate, in candidate order, its model's {@code max_ejection_percent}, or
     *     {@link #NO_RELIABILITY} when it has no {@code reliability} (copied); the ejection cap takes p over the
     *     candidates a request neither excludes nor finds ineligible. When one has {@code reliability}, the kernel reads
     *     the extended signals (ejection among them) from the start.
     * @throws IllegalArgumentException when an array does not have one entry per candidate (per reason) or a slot is
     *     not one of the table's.
     */
    public CandidateSignals(
        final AtomicBuffer inflightValues,
        final int[] inflightOffsets,
        final int[] dropCounterIds,
        final int[] tokenOffsets,
        final EjectionTable ejections,
        final int[] ejectionSlots,
        final int[] ejectionPercents)
    {
        this(inflightValues, inflightOffsets, dropCounterIds, inflightValues, tokenOffsets, ejections, ejectionSlots,
            ejectionPercents);
    }

    private CandidateSignals(
        final AtomicBuffer inflightValues,
        final int[] inflightOffsets,
        final int[] dropCounterIds,
        final AtomicBuffer tokenValuesOrNull,
        final int[] tokenOffsetsOrNull,
        final EjectionTable ejections,
        final int[] ejectionSlots,
        final int[] ejectionPercents)
    {
        if (tokenOffsetsOrNull != null && tokenOffsetsOrNull.length != inflightOffsets.length)
        {
            throw new IllegalArgumentException("token counter offsets: " + tokenOffsetsOrNull.length + " for " +
                inflightOffsets.length + " candidates");
        }
        if (dropCounterIds.length != inflightOffsets.length * DropReason.COUNT)
        {
            throw new IllegalArgumentException("drop counter ids: " + dropCounterIds.length + " for " +
                inflightOffsets.length + " candidates of " + DropReason.COUNT + " reasons");
        }
        this.candidateCount = inflightOffsets.length;
        this.latencyMs = new double[Math.max(1, candidateCount * 2)];
        java.util.Arrays.fill(latencyMs, Double.NaN);
        this.inflightValues = inflightValues;
        this.inflightOffsets = inflightOffsets.clone();
        this.dropCounterIds = dropCounterIds.clone();
        this.serverLoad = new double[Math.max(1, candidateCount * 2)];
        java.util.Arrays.fill(serverLoad, Double.NaN);
        this.stale = new byte[Math.max(1, candidateCount)];
        if (tokenOffsetsOrNull == null)
        {
            // Tokens nothing else keeps: one value per candidate in a small buffer of their own (publishInflightTokens).
            this.tokenValues = new UnsafeBuffer(BufferUtil.allocateDirectAligned(
                Math.max(1, candidateCount) * Long.BYTES, Long.BYTES));
            this.tokenOffsets = new int[candidateCount];
            for (int i = 0; i < candidateCount; i++)
            {
                tokenOffsets[i] = i * Long.BYTES;
            }
        }
        else
        {
            this.tokenValues = tokenValuesOrNull;
            this.tokenOffsets = tokenOffsetsOrNull.clone();
        }
        if (ejectionSlots.length != candidateCount)
        {
            throw new IllegalArgumentException("ejection slots: " + ejectionSlots.length + " for " + candidateCount);
        }
        for (final int slot : ejectionSlots)
        {
            if (slot < 0 || slot >= ejections.capacity())
            {
                throw new IllegalArgumentException("ejection slot " + slot + " outside 0.." + (ejections.capacity() - 1));
            }
        }
        this.ejections = ejections;
        this.ejectionSlots = ejectionSlots.clone();
        if (ejectionPercents.length != candidateCount)
        {
            throw new IllegalArgumentException("ejection percents: " + ejectionPercents.length + " for " +
                candidateCount);
        }
        this.ejectionPercents = ejectionPercents.clone();
        boolean ejecting = false;
        for (final int percent : ejectionPercents)
        {
            ejecting |= percent != NO_RELIABILITY;
        }
        this.ejectionSignals = ejecting;
        this.inflightArray = inflightValues.byteArray();
        this.inflightAddresses = addresses(inflightValues, this.inflightOffsets, "in-flight");
        this.tokenArray = tokenValues.byteArray();
        this.tokenAddresses = addresses(tokenValues, this.tokenOffsets, "token");
        this.termsA = new PublishedTerms(candidateCount);
        this.termsB = new PublishedTerms(candidateCount);
    }

    /**
     * Signals that own their in-flight counts (one 8-byte value per candidate in a small direct buffer), for tests,
     * benchmarks and tools that score observations they were given rather than live counters.
     *
     * @param candidateCount number of candidates.
     * @return signals with no observation and 0 in flight for every candidate.
     */
    public static CandidateSignals standalone(final int candidateCount)
    {
        final int[] offsets = new int[candidateCount];
        for (int i = 0; i < candidateCount; i++)
        {
            offsets[i] = i * Long.BYTES;
        }
        final UnsafeBuffer values = new UnsafeBuffer(BufferUtil.allocateDirectAligned(
            Math.max(1, candidateCount) * Long.BYTES, Long.BYTES));
        return new CandidateSignals(values, offsets);
    }

    /**
     * Gives these signals what a peer's stateful policy reads; before they are published (the engine does it when it
     * builds a decision of {@code litellm_latency} or {@code prodstack_session}; a test, on standalone signals).
     *
     * @param peers the peers' signals of the same candidates, in the same order.
     * @return these signals.
     * @throws IllegalArgumentException when it is not one entry per candidate.
     */
    public CandidateSignals peers(final PeerSignals peers)
    {
        if (peers.candidateCount() != candidateCount)
        {
            throw new IllegalArgumentException("peer signals of " + peers.candidateCount() + " candidates for " +
                candidateCount);
        }
        this.peersOrNull = peers;
        return this;
    }

    /** @return what a peer's stateful policy reads, or null when none was given (its candidates are then unobserved). */
    public PeerSignals peersOrNull()
    {
        return peersOrNull;
    }

    /**
     * @param index candidate position.
     * @param reason a {@link DropReason} code.
     * @return the counter id that a drop of that candidate for that reason counts in, or -1 when none.
     */
    public int dropCounterId(final int index, final int reason)
    {
        return dropCounterIds[index * DropReason.COUNT + reason];
    }

    /** @return number of candidates. */
    public int candidateCount()
    {
        return candidateCount;
    }

    /**
     * Publishes the latency percentiles of one candidate (release stores). One publisher at a time.
     *
     * @param index candidate position.
     * @param tpotMs TPOT percentile in milliseconds, NaN when not observed.
     * @param ttftMs TTFT percentile in milliseconds, NaN when not observed.
     */
    public void publishLatencyMs(final int index, final double tpotMs, final double ttftMs)
    {
        TERMS.setRelease(this, (PublishedTerms)null);
        DOUBLES.setRelease(latencyMs, index << 1, tpotMs);
        DOUBLES.setRelease(latencyMs, (index << 1) + 1, ttftMs);
    }

    /**
     * Publishes the model-server signals of one candidate (release stores). One publisher at a time.
     *
     * @param index candidate position.
     * @param queue the smallest number of waiting requests among its fresh servers, NaN when none is fresh.
     * @param kvCache the smallest KV-cache use (0..1) among its fresh servers, NaN when none is fresh.
     * @param allStale whether the model has servers and every one of them is stale (past its grace period).
     */
    public void publishServerLoad(final int index, final double queue, final double kvCache, final boolean allStale)
    {
        serverSignals = true;
        TERMS.setRelease(this, (PublishedTerms)null);
        DOUBLES.setRelease(serverLoad, index << 1, queue);
        DOUBLES.setRelease(serverLoad, (index << 1) + 1, kvCache);
        BYTES.setRelease(stale, index, allStale ? (byte)1 : (byte)0);
    }

    /**
     * Seals what was published: works out, for {@code plan}, what its selections owe to configuration and to the
     * values published so far alone (the drops of the ceilings on published values, the bounds over the candidates
     * they keep, the terms of quality, latency, cost, queue and KV-cache use), so that until the next publication a
     * selection reads live only the request's exclusions and own cost and the in-flight counts and tokens
     * ({@link ScoringKernel}). The next {@code publish} call undoes it
     * until it is sealed again; signals never sealed are scored by the full loops, with the same result. The
     * publisher's thread only. Allocates nothing after its first two calls, which allocate, for a decision of at most
     * 16 candidates, the terms without each candidate (about 21 KB of heap at 16 candidates, 3 KB at 4).
     *
     * @param plan the decision's plan, the one its selections pass to the kernel.
     */
    public void seal(final DecisionPlan plan)
    {
        final PublishedTerms next = lastSealed == termsA ? termsB : termsA;
        next.write(plan, this);
        lastSealed = next;
        TERMS.setRelease(this, next);
    }

    /**
     * @param plan the plan of the selection.
     * @return the sealed terms of the last publication, for a selection that reads no ejection now; else null.
     */
    PublishedTerms sealedTerms()
    {
        final PublishedTerms t = (PublishedTerms)TERMS.getAcquire(this);
        return t != null && !readsEjections() ? t : null;
    }

    /**
     * Publishes the in-flight tokens of one candidate (release store), for signals whose token counts nothing else
     * keeps (in the engine, the lease table's counters hold them and this is not called).
     *
     * @param index candidate position.
     * @param tokens the sum of the token weights of its live leases.
     */
    public void publishInflightTokens(final int index, final long tokens)
    {
        tokenSignals = true;
        tokenValues.putLongRelease(tokenOffsets[index], tokens);
    }

    /**
     * Sets whether one candidate is ejected, for signals built without an engine's table (their own table, on a clock
     * that stands still): its word becomes ejected for {@code millisLeft} (rounded up to whole milliseconds), half-open
     * with its probe out for 0, healthy for NaN. On an engine's signals it would override the model's state: the
     * engine's own ejection writes the words.
     *
     * @param index candidate position.
     * @param millisLeft milliseconds left of its ejection (0: its probe is out), NaN when it is not ejected.
     */
    public void publishEjection(final int index, final double millisLeft)
    {
        ejectionSignals = true;
        ejections.state(ejectionSlots[index], millisLeft);
    }

    /**
     * From now on the kernel reads the candidates' ejection (the engine calls it when it ejects a model explicitly,
     * whatever its {@code reliability}). Off the hot path.
     */
    public void readEjections()
    {
        ejectionSignals = true;
    }

    /**
     * @param index candidate position.
     * @return its model's {@code max_ejection_percent}, or {@link #NO_RELIABILITY} when it has no {@code reliability}.
     */
    public int ejectionPercent(final int index)
    {
        return ejectionPercents[index];
    }

    private static int[] noReliability(final int candidateCount)
    {
        final int[] percents = new int[candidateCount];
        java.util.Arrays.fill(percents, NO_RELIABILITY);
        return percents;
    }

    /**
     * What {@code select} tests once per call to choose its gather loop: whether it reads a source beyond latency and
     * in-flight requests now. Servers and tokens once published; ejection only while the table has a word out of the
     * healthy phase (one load): a decision with {@code reliability} whose models are all healthy reads no word.
     *
     * @return whether a server load or token count was ever published here, or ejection is read and some model of the
     *     table is ejected, half-open or probing.
     */
    public boolean readsBeyondSeed()
    {
        return serverSignals | tokenSignals || readsEjections();
    }

    /**
     * @return whether {@code select} reads the candidates' ejection words now: the decision has {@code reliability}, or
     *     an ejection was ever published or forced on these signals, and some model of the table is out of the healthy
     *     phase (one load).
     */
    public boolean readsEjections()
    {
        return ejectionSignals && !ejections.allHealthy();
    }

    /** @return whether a server load was ever published on these signals (until then the kernel does not read it). */
    public boolean hasServerSignals()
    {
        return serverSignals;
    }

    /**
     * @return whether an in-flight token count was ever published on these signals (the engine's come from its leases:
     *     a decision reads them when it weighs or bounds them).
     */
    public boolean hasTokenSignals()
    {
        return tokenSignals;
    }

    /**
     * @param index candidate position.
     * @return the smallest queue among its fresh servers, NaN when none is fresh or it has no servers.
     */
    public double queue(final int index)
    {
        return serverLoad[index << 1];
    }

    /**
     * @param index candidate position.
     * @return the smallest KV-cache use among its fresh servers, NaN when none is fresh or it has no servers.
     */
    public double kvCache(final int index)
    {
        return serverLoad[(index << 1) + 1];
    }

    /**
     * @param index candidate position.
     * @return whether the model has servers and all of them are stale.
     */
    public boolean stale(final int index)
    {
        return stale[index] != 0;
    }

    /**
     * @param index candidate position.
     * @return its in-flight tokens.
     */
    public long inflightTokens(final int index)
    {
        // A plain load, as the in-flight count's (the class comment says why that is safe).
        return UnsafeApi.getLong(tokenArray, tokenAddresses[index]);
    }

    /**
     * @param index candidate position.
     * @return whether it is ejected now (dropped with reason {@code ejected}, within the decision's percent cap).
     */
    public boolean ejected(final int index)
    {
        // ejection: one plain load of the model's word; the clock is read only when it is not healthy.
        return ejections.ejected(ejectionSlots[index]);
    }

    /**
     * @param index candidate position.
     * @return milliseconds left of its ejection, NaN when it is not ejected.
     */
    public double ejectedMillisLeft(final int index)
    {
        return ejections.ejectedMillisLeft(ejectionSlots[index]);
    }

    /**
     * Sets the in-flight count of one candidate (volatile store); for {@link #standalone} signals, whose counters
     * nothing else changes.
     *
     * @param index candidate position.
     * @param inflight the count.
     */
    public void inflight(final int index, final long inflight)
    {
        inflightValues.putLongVolatile(inflightOffsets[index], inflight);
    }

    /**
     * @param index candidate position.
     * @return its published TPOT percentile in milliseconds, NaN when not observed.
     */
    public double tpotMs(final int index)
    {
        return latencyMs[index << 1];
    }

    /**
     * @param index candidate position.
     * @return its published TTFT percentile in milliseconds, NaN when not observed.
     */
    public double ttftMs(final int index)
    {
        return latencyMs[(index << 1) + 1];
    }

    /**
     * Takes the next turn of the {@code round_robin} baseline: one atomic add, lock-free, allocates nothing.
     *
     * @return the turn number, from 0, counting every turn taken on these signals.
     */
    public long nextTurn()
    {
        return (long)TURNS.getAndAdd(this, 1L);
    }

    /**
     * @param index candidate position.
     * @return its current in-flight count.
     */
    public long inflight(final int index)
    {
        return UnsafeApi.getLong(inflightArray, inflightAddresses[index]);
    }

    // Each offset's address in the buffer, for UnsafeApi loads; an offset outside the buffer is refused here, once.
    private static long[] addresses(final AtomicBuffer buffer, final int[] offsets, final String what)
    {
        final long[] addresses = new long[offsets.length];
        for (int i = 0; i < offsets.length; i++)
        {
            final int offset = offsets[i];
            if (offset < 0 || offset > buffer.capacity() - Long.BYTES)
            {
                throw new IllegalArgumentException(what + " counter offset " + offset + " outside a buffer of " +
                    buffer.capacity() + " bytes");
            }
            addresses[i] = buffer.addressOffset() + offset;
        }
        return addresses;
    }

    private static int[] noDropCounters(final int candidateCount)
    {
        final int[] ids = new int[candidateCount * DropReason.COUNT];
        java.util.Arrays.fill(ids, -1);
        return ids;
    }

    // Signals scored without an engine: their own table, on a clock that stands still at 0.
    private static EjectionTable ownEjectionTable(final int candidateCount)
    {
        return new EjectionTable(Math.max(1, candidateCount), () -> 0L, 0L);
    }

    private static int[] identity(final int candidateCount)
    {
        final int[] slots = new int[candidateCount];
        for (int i = 0; i < candidateCount; i++)
        {
            slots[i] = i;
        }
        return slots;
    }
}
