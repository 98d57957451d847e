package io.multifactor.kernel.reliability;

import org.agrona.concurrent.AtomicBuffer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The ejection state machine of one model: its run of consecutive failures, its word in the {@link EjectionTable}
 * (phase, k, time) and the transitions between them, each one compare-and-swap of the word.
 * <pre>
 *   HEALTHY --n failures in a row--&gt; EJECTED(k' = decayed k + 1, until now + min(base * k', max))
 *   HEALTHY --Retry-After d--&gt; EJECTED(decayed k, until now + min(d, max))
 *   EJECTED, until passed (half-open) --first lease begun (one CAS)--&gt; PROBING
 *   PROBING --probe ends: success--&gt; HEALTHY(k, since now)
 *   PROBING --probe ends: failure, or reclaimed after inflight_max_age--&gt; EJECTED(k + 1, now + min(base * (k + 1), max))
 *   PROBING --probe ends: Retry-After d--&gt; EJECTED(k, now + min(d, max))
 *   PROBING --probe ends without a status--&gt; EJECTED(k, the old until): half-open again
 * </pre>
 * k decays while healthy: one less per {@code base_ejection_time} since the model became healthy, never below 0, folded
 * in when it is next ejected. While a model is ejected or probing, only its probe's result counts (and a Retry-After
 * may lengthen an ejection, never shorten it); results of leases begun before the ejection change nothing. Without a
 * policy (no {@code reliability}) nothing ejects the model but {@link #ejectForMillis}, and its probe's end with a
 * status makes it healthy.
 * <p>
 * This class is threadsafe: every method is lock-free and allocation-free from any number of threads, except
 * {@link #policy} and {@link #counters}, which the engine calls under its lock on reload.
 */
public final class ModelEjection
{
    /** {@link #admit()}: a lease may be taken as usual. */
    public static final int ADMITTED = 0;

    /** {@link #admit()}: the caller claimed the half-open model's probe; its lease must be passed to {@link #probe}. */
    public static final int PROBE_CLAIMED = 1;

    /** {@link #admit()}: another lease is the probe of this half-open model; reserve on select tries the next one. */
    public static final int PROBE_TAKEN = 2;

    private static final VarHandle RUN;

    static
    {
        try
        {
            RUN = MethodHandles.lookup().findVarHandle(ModelEjection.class, "failureRun", long.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final EjectionTable table;
    private final int slot;
    private volatile EjectionPolicy policyOrNull;
    @SuppressWarnings("unused")
    private volatile long failureRun;
    private volatile AtomicBuffer countersOrNull;
    private volatile int fiveXxOffset = -1;
    private volatile int retryAfterOffset = -1;

    /**
     * A healthy model (its word is reset to 0: never ejected).
     *
     * @param table the table holding its word.
     * @param slot its slot (the in-flight counter id).
     * @param policyOrNull its policy, or null when it has no {@code reliability}.
     */
    public ModelEjection(final EjectionTable table, final int slot, final EjectionPolicy policyOrNull)
    {
        this.table = table;
        this.slot = slot;
        this.policyOrNull = policyOrNull;
        table.reset(slot);
    }

    /** @return its slot in the table. */
    public int slot()
    {
        return slot;
    }

    /** @return its policy, null when it has none. */
    public EjectionPolicy policy()
    {
        return policyOrNull;
    }

    /**
     * On reload: replaces the policy; a model that loses its policy is healthy again at once.
     *
     * @param next the new policy, or null.
     */
    public void policy(final EjectionPolicy next)
    {
        policyOrNull = next;
        if (next == null)
        {
            failureRun = 0;
            table.reset(slot);
        }
    }

    /**
     * On reload: where ejections are counted, by cause.
     *
     * @param values the counters' values buffer.
     * @param fiveXxOffset value offset of the counter of ejections for consecutive failures, -1 for none.
     * @param retryAfterOffset value offset of the counter of ejections for a Retry-After, -1 for none.
     */
    public void counters(final AtomicBuffer values, final int fiveXxOffset, final int retryAfterOffset)
    {
        this.countersOrNull = values;
        this.fiveXxOffset = fiveXxOffset;
        this.retryAfterOffset = retryAfterOffset;
    }

    /**
     * Before a lease is taken on this model by reserve on select (or just after, by {@code begin}): healthy or ejected
     * with time left, the lease is an ordinary one; half-open, the caller tries to claim the probe with one CAS.
     * One plain load when healthy; lock-free, allocates nothing.
     *
     * @return {@link #ADMITTED}, {@link #PROBE_CLAIMED} or {@link #PROBE_TAKEN}.
     */
    public int admit()
    {
        final long word = table.word(slot);
        return EjectionWord.phase(word) == EjectionWord.HEALTHY ? ADMITTED : admitSlowPath(word);
    }

    /**
     * After {@link #admit()} returned {@link #PROBE_CLAIMED}: the lease that is the probe.
     *
     * @param lease the probe's lease.
     */
    public void probe(final long lease)
    {
        table.probeLease(slot, lease);
    }

    /**
     * After {@link #admit()} returned {@link #PROBE_CLAIMED} but no lease could be taken: gives the claim back (the
     * model is half-open again).
     */
    public void unclaim()
    {
        final long word = table.wordVolatile(slot);
        if (EjectionWord.phase(word) == EjectionWord.PROBING)
        {
            table.compareAndSet(slot, word, EjectionWord.of(
                EjectionWord.EJECTED, EjectionWord.ejections(word), EjectionWord.timeMs(word)));
        }
    }

    /**
     * The result of a lease of this model that just ended (released once). Healthy and no failure: one plain load of
     * the word and, after a failure run, one store; lock-free, allocates nothing.
     *
     * @param lease the lease.
     * @param result a {@link RequestResult} code.
     * @param retryAfterMillis the Retry-After delay, for {@link RequestResult#RETRY_AFTER}.
     */
    public void onEnd(final long lease, final int result, final long retryAfterMillis)
    {
        final long word = table.word(slot);
        if (EjectionWord.phase(word) == EjectionWord.HEALTHY)
        {
            final EjectionPolicy policy = policyOrNull;
            if (policy == null || result == RequestResult.NOTHING)
            {
                return;
            }
            if (result == RequestResult.SUCCESS)
            {
                if (failureRun != 0)
                {
                    failureRun = 0;
                }
                return;
            }
            if (result == RequestResult.FAILURE)
            {
                failure(policy);
            }
            else
            {
                retryAfter(policy, retryAfterMillis);
            }
            return;
        }
        onEndWhileEjected(lease, word, result, retryAfterMillis);
    }

    /**
     * From the lease sweep: if {@code lease} is this model's probe, it never ended and counts as a failure.
     *
     * @param lease a reclaimed lease of this model.
     */
    public void onProbeLost(final long lease)
    {
        final long word = table.wordVolatile(slot);
        if (EjectionWord.phase(word) == EjectionWord.PROBING && table.probeLease(slot) == lease)
        {
            probeEnded(word, RequestResult.FAILURE, 0);
        }
    }

    /**
     * Ejects the model for {@code millis} from now, whatever its policy and without raising k (what a scenario's
     * {@code ejected_ms} states, and an operator's override). Counts no ejection.
     *
     * @param millis how long, > 0.
     */
    public void ejectForMillis(final long millis)
    {
        final long nowMs = table.nowMs();
        final long untilMs = nowMs + Math.max(1, millis);
        while (true)
        {
            final long word = table.wordVolatile(slot);
            final EjectionPolicy policy = policyOrNull;
            // Leaving healthy: the decay of k so far is folded in, as for any other ejection.
            final int k = policy != null && EjectionWord.phase(word) == EjectionWord.HEALTHY ?
                policy.decayed(EjectionWord.ejections(word), nowMs - EjectionWord.timeMs(word)) :
                EjectionWord.ejections(word);
            if (table.compareAndSet(slot, word, EjectionWord.of(EjectionWord.EJECTED, k, untilMs)))
            {
                failureRun = 0;
                return;
            }
        }
    }

    /** @return the word now (a volatile load), for readers off the hot path. */
    public long word()
    {
        return table.wordVolatile(slot);
    }

    /** @return the current run of consecutive failures (for tests and diagnostics). */
    public long failureRun()
    {
        return failureRun;
    }

    private int admitSlowPath(final long word)
    {
        final int phase = EjectionWord.phase(word);
        if (phase == EjectionWord.PROBING)
        {
            return PROBE_TAKEN;
        }
        if (EjectionWord.timeMs(word) > table.nowMs())
        {
            // Still ejected: a lease of a model the decision kept (max_ejection_percent), or one begun directly.
            return ADMITTED;
        }
        // Half-open: the one CAS that makes this lease the probe (a write only in this rare state).
        final long probing = EjectionWord.of(EjectionWord.PROBING, EjectionWord.ejections(word), EjectionWord.timeMs(word));
        return table.compareAndSet(slot, word, probing) ? PROBE_CLAIMED : PROBE_TAKEN;
    }

    private void failure(final EjectionPolicy policy)
    {
        final long run = (long)RUN.getAndAdd(this, 1L) + 1;
        if (run < policy.consecutiveFailures())
        {
            return;
        }
        final long nowMs = table.nowMs();
        final long word = table.wordVolatile(slot);
        if (EjectionWord.phase(word) != EjectionWord.HEALTHY)
        {
            return;
        }
        final int k = policy.decayed(EjectionWord.ejections(word), nowMs - EjectionWord.timeMs(word)) + 1;
        // One CAS: if another thread's transition won, the model is no longer healthy and this failure is spent.
        if (table.compareAndSet(slot, word, EjectionWord.of(EjectionWord.EJECTED, k, nowMs + policy.ejectionMs(k))))
        {
            failureRun = 0;
            count(fiveXxOffset);
        }
    }

    private void retryAfter(final EjectionPolicy policy, final long retryAfterMillis)
    {
        final long nowMs = table.nowMs();
        final long untilMs = nowMs + Math.min(retryAfterMillis, policy.maxEjectionMs());
        while (true)
        {
            final long word = table.wordVolatile(slot);
            final int phase = EjectionWord.phase(word);
            final long next;
            if (phase == EjectionWord.HEALTHY)
            {
                next = EjectionWord.of(EjectionWord.EJECTED,
                    policy.decayed(EjectionWord.ejections(word), nowMs - EjectionWord.timeMs(word)), untilMs);
            }
            else if (phase == EjectionWord.EJECTED && untilMs > EjectionWord.timeMs(word))
            {
                // Lengthens an ejection (never shortens it): re-ejecting keeps the later deadline.
                next = EjectionWord.of(EjectionWord.EJECTED, EjectionWord.ejections(word), untilMs);
            }
            else
            {
                return;
            }
            if (table.compareAndSet(slot, word, next))
            {
                failureRun = 0;
                if (phase == EjectionWord.HEALTHY || EjectionWord.timeMs(word) <= nowMs)
                {
                    count(retryAfterOffset);
                }
                return;
            }
        }
    }

    private void onEndWhileEjected(final long lease, final long word, final int result, final long retryAfterMillis)
    {
        if (EjectionWord.phase(word) == EjectionWord.PROBING)
        {
            if (table.probeLease(slot) == lease)
            {
                probeEnded(word, result, retryAfterMillis);
            }
            return;
        }
        final EjectionPolicy policy = policyOrNull;
        if (policy != null && result == RequestResult.RETRY_AFTER)
        {
            retryAfter(policy, retryAfterMillis);
        }
    }

    // Only the probe's owner (or the sweep that reclaimed it, never both: a lease is released once) gets here.
    private void probeEnded(final long word, final int result, final long retryAfterMillis)
    {
        final int k = EjectionWord.ejections(word);
        final EjectionPolicy policy = policyOrNull;
        final long next;
        int countAt = -1;
        if (result == RequestResult.NOTHING)
        {
            next = EjectionWord.of(EjectionWord.EJECTED, k, EjectionWord.timeMs(word));
        }
        else if (result == RequestResult.SUCCESS || policy == null)
        {
            next = EjectionWord.of(EjectionWord.HEALTHY, k, table.nowMs());
        }
        else if (result == RequestResult.FAILURE)
        {
            next = EjectionWord.of(EjectionWord.EJECTED, k + 1, table.nowMs() + policy.ejectionMs(k + 1));
            countAt = fiveXxOffset;
        }
        else
        {
            next = EjectionWord.of(EjectionWord.EJECTED, k,
                table.nowMs() + Math.min(retryAfterMillis, policy.maxEjectionMs()));
            countAt = retryAfterOffset;
        }
        if (table.compareAndSet(slot, word, next))
        {
            failureRun = 0;
            count(countAt);
        }
    }

    private void count(final int offset)
    {
        final AtomicBuffer values = countersOrNull;
        if (offset >= 0 && values != null)
        {
            values.getAndAddLong(offset, 1);
        }
    }
}
