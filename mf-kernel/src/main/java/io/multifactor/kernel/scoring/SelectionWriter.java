package io.multifactor.kernel.scoring;

import io.multifactor.api.DropReason;
import io.multifactor.api.Factor;
import io.multifactor.api.FactorSource;
import io.multifactor.api.Handles;
import io.multifactor.api.InflightTracker;
import io.multifactor.api.LatencyMetric;
import io.multifactor.api.Objective;
import io.multifactor.api.Outcome;
import io.multifactor.api.Selection;
import io.multifactor.api.SessionRule;
import io.multifactor.kernel.plan.DecisionPlan;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;

/**
 * The writer side of a {@link Selection}, for the kernel only: a caller reads a selection, only the kernel writes it.
 * {@code Selection} in mf-api has no writer method and keeps its state private; this class writes that state through
 * a private lookup into it ({@link MethodHandles#privateLookupIn}; on the module path mf-api opens its package to the
 * kernel alone). Every handle is a {@code static final} constant, so once compiled a write is the plain store into the
 * selection's field or array that a method of {@code Selection} would make: no indirection, no allocation. The build's
 * architecture test fails on any use of this class from outside {@code io.multifactor.kernel}.
 * <p>
 * This class has no state and is threadsafe; the selection it writes is not (one thread fills it, then reads it).
 */
public final class SelectionWriter
{
    private static final MethodHandles.Lookup SELECTION = privateLookup();
    private static final VarHandle DECISION_ID = field("decisionId", int.class);
    private static final VarHandle OUTCOME = field("outcome", int.class);
    private static final VarHandle SELECTED_INDEX = field("selectedIndex", int.class);
    private static final VarHandle CANDIDATE_COUNT = field("candidateCount", int.class);
    private static final VarHandle OBJECTIVE = field("objective", int.class);
    private static final VarHandle LATENCY_METRIC = field("latencyMetric", int.class);
    private static final VarHandle LEASE = field("lease", long.class);
    private static final VarHandle RUNNER_UP = field("runnerUp", int.class);
    private static final VarHandle CONFIGURED = field("configured", Selection.Configured.class);
    private static final VarHandle GATHERED = field("gathered", int.class);
    private static final VarHandle TOKENS = field("tokens", boolean.class);
    private static final VarHandle EJECTIONS = field("ejections", boolean.class);
    private static final VarHandle DROP_REASONS = field("dropReasons", int[].class);
    private static final VarHandle TPOT_MS = field("tpotMs", double[].class);
    private static final VarHandle TTFT_MS = field("ttftMs", double[].class);
    private static final VarHandle INFLIGHT = field("inflight", long[].class);
    private static final VarHandle COLUMNS = field("columns", double[][].class);
    private static final VarHandle MISSING = field("missing", double[].class);
    private static final VarHandle INFLIGHT_TOKENS = field("inflightTokens", long[].class);
    private static final VarHandle EJECTED_MILLIS_LEFT = field("ejectedMillisLeft", double[].class);
    private static final VarHandle SCORES = field("scores", double[].class);
    private static final VarHandle ELIMINATED_BY = field("eliminatedBy", int[].class);
    private static final VarHandle CALLER_THREAD_STATE = field("callerThreadState", Object.class);
    private static final VarHandle BOUND_MIN = field("boundMin", double[].class);
    private static final VarHandle BOUND_MAX = field("boundMax", double[].class);
    private static final VarHandle SESSION_RULE = field("sessionRule", int.class);
    private static final VarHandle SESSION_PREVIOUS_MODEL = field("sessionPreviousModel", int.class);
    private static final MethodHandle GROW = method("growSlowPath", MethodType.methodType(void.class, int.class));
    private static final MethodHandle COLUMN = method("column", MethodType.methodType(double[].class, int.class));
    /**
     * The factors whose values the kernel stores for every candidate on every call, so a selection reads its own
     * column of them from the start: those a latency estimator or the leases observe (latency, load).
     */
    private static final int OBSERVED_EVERY_CALL = observedEveryCall();

    private SelectionWriter()
    {
    }

    /**
     * Starts a new selection of a decision, forgetting the previous one: each field is written once, and the reference
     * to the decision's configured arrays only when it is another decision's (one reference store, and its garbage
     * collector barrier, per change of decision rather than per call). The storage grows the first time a larger
     * decision is selected (the only allocation, off the steady state).
     *
     * @param out the selection.
     * @param plan the decision being selected.
     */
    public static void start(final Selection out, final DecisionPlan plan)
    {
        start(out, plan.id(), plan.candidateCount(), plan.objective(), plan.latencyMetric(), plan.configured());
    }

    /**
     * Starts a selection of a decision the engine does not have: no candidates, outcome {@link Outcome#FAILED}.
     *
     * @param out the selection.
     * @param decisionId the handle asked for.
     */
    public static void reset(final Selection out, final int decisionId)
    {
        start(out, decisionId, 0, Objective.WEIGHTED, LatencyMetric.AUTO, Selection.Configured.NONE);
    }

    private static void start(
        final Selection out,
        final int decisionId,
        final int candidateCount,
        final int objective,
        final int latencyMetric,
        final Selection.Configured configured)
    {
        if (candidateCount > ((int[])DROP_REASONS.get(out)).length)
        {
            growSlowPath(out, candidateCount);
        }
        DECISION_ID.set(out, decisionId);
        CANDIDATE_COUNT.set(out, candidateCount);
        OUTCOME.set(out, Outcome.FAILED);
        SELECTED_INDEX.set(out, -1);
        RUNNER_UP.set(out, -1);
        OBJECTIVE.set(out, objective);
        LATENCY_METRIC.set(out, latencyMetric);
        LEASE.set(out, InflightTracker.NO_LEASE);
        GATHERED.set(out, OBSERVED_EVERY_CALL);
        TOKENS.set(out, false);
        EJECTIONS.set(out, false);
        SESSION_RULE.set(out, SessionRule.OFF);
        SESSION_PREVIOUS_MODEL.set(out, Handles.NONE);
        if ((Selection.Configured)CONFIGURED.get(out) != configured)
        {
            CONFIGURED.set(out, configured);
        }
    }

    /**
     * @param out the selection.
     * @param index candidate position.
     * @param factor the {@link Factor} that took it out of the lexicographic finalists, or
     *     {@link Selection#NOT_ELIMINATED}.
     */
    public static void eliminatedBy(final Selection out, final int index, final int factor)
    {
        ((int[])ELIMINATED_BY.get(out))[index] = factor;
    }

    /**
     * Makes the selection read, for this call, the kernel's own column of a factor ({@link #ownColumn}) instead of its
     * configured column or the all-missing one: a request's own cost, the servers' queue or KV-cache use. The factors
     * a latency estimator or the leases observe (latency, load) are read from their own columns from the start.
     *
     * @param out the selection.
     * @param factor a {@link Factor} index.
     */
    public static void gathered(final Selection out, final int factor)
    {
        GATHERED.set(out, (int)GATHERED.get(out) | 1 << factor);
    }

    /**
     * The selection's own column of a factor, for the kernel to write each candidate's value into: fetched once before
     * a loop over the candidates, so that each write is one store into a local array. The selection reads it this
     * call for latency and load, and for another factor once {@link #gathered} was called.
     *
     * @param out the selection.
     * @param factor a {@link Factor} index.
     * @return the column (not a copy), at least {@code candidateCount} long.
     */
    public static double[] ownColumn(final Selection out, final int factor)
    {
        return ((double[][])COLUMNS.get(out))[factor];
    }

    /**
     * Makes the selection read, for this call, the raw signals the kernel gathered beyond the factors: in-flight tokens
     * ({@link #inflightTokens}) and ejections ({@link #ejectedMillisLeft}); a source not read reads 0 or not ejected.
     *
     * @param out the selection.
     * @param tokens whether the in-flight tokens were gathered.
     * @param ejections whether the ejections were gathered.
     */
    public static void sources(final Selection out, final boolean tokens, final boolean ejections)
    {
        TOKENS.set(out, tokens);
        EJECTIONS.set(out, ejections);
    }

    /**
     * Stores the published latencies of the first {@code n} candidates in a pass of their own: TPOT, TTFT and the
     * latency the decision ranks by.
     *
     * @param out the selection.
     * @param tpotMs per candidate, its TPOT in milliseconds, NaN when missing.
     * @param ttftMs per candidate, its TTFT in milliseconds, NaN when missing.
     * @param latencyMs per candidate, the latency its decision ranks by, NaN when missing.
     * @param n how many candidates.
     */
    public static void publishedValues(
        final Selection out, final double[] tpotMs, final double[] ttftMs, final double[] latencyMs, final int n)
    {
        final double[] outTpot = (double[])TPOT_MS.get(out);
        final double[] outTtft = (double[])TTFT_MS.get(out);
        final double[] outLatency = ownColumn(out, Factor.LATENCY);
        for (int i = 0; i < n; i++)
        {
            outTpot[i] = tpotMs[i];
            outTtft[i] = ttftMs[i];
            outLatency[i] = latencyMs[i];
        }
    }

    /**
     * Stores one candidate's published latencies, TPOT and TTFT, as {@link #publishedValues(Selection, double[],
     * double[], double[], int)} does for all of them; the latency it ranks by goes into the latency factor's column
     * ({@link #ownColumn}).
     *
     * @param out the selection.
     * @param index candidate position.
     * @param tpotMs its TPOT in milliseconds, NaN when missing.
     * @param ttftMs its TTFT in milliseconds, NaN when missing.
     */
    public static void publishedValues(final Selection out, final int index, final double tpotMs, final double ttftMs)
    {
        ((double[])TPOT_MS.get(out))[index] = tpotMs;
        ((double[])TTFT_MS.get(out))[index] = ttftMs;
    }

    /**
     * What a selection stores per candidate besides its published values and its factors' values
     * ({@link #publishedValues(Selection, int, double, double)}, {@link #ownColumn}): why it was dropped and its
     * in-flight count.
     *
     * @param out the selection.
     * @param index candidate position.
     * @param dropReason a {@link DropReason} code, {@link DropReason#NONE} for a survivor.
     * @param inflight its in-flight count.
     */
    public static void liveValues(final Selection out, final int index, final int dropReason, final long inflight)
    {
        ((int[])DROP_REASONS.get(out))[index] = dropReason;
        ((long[])INFLIGHT.get(out))[index] = inflight;
    }

    /**
     * @param out the selection.
     * @param index candidate position.
     * @param inflightTokens its in-flight tokens.
     */
    public static void inflightTokens(final Selection out, final int index, final long inflightTokens)
    {
        ((long[])INFLIGHT_TOKENS.get(out))[index] = inflightTokens;
    }

    /**
     * @param out the selection.
     * @param index candidate position.
     * @param ejectedMillisLeft milliseconds left of its ejection, NaN when not ejected.
     */
    public static void ejectedMillisLeft(final Selection out, final int index, final double ejectedMillisLeft)
    {
        ((double[])EJECTED_MILLIS_LEFT.get(out))[index] = ejectedMillisLeft;
    }

    /**
     * The column of one factor as the selection reads it this call, for the kernel's ranking loop: the value of that
     * factor per candidate (a plan's array, the selection's own, or an all-missing column). Never written through.
     *
     * @param out the selection.
     * @param factor a {@link Factor} index.
     * @return the column (not a copy), at least {@code candidateCount} long.
     */
    public static double[] column(final Selection out, final int factor)
    {
        try
        {
            return (double[])COLUMN.invokeExact(out, factor);
        }
        catch (final RuntimeException | Error ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /**
     * The engine's per-thread state kept in a selection across calls (its counter block for the thread that selects
     * with it), which the engine checks is the calling thread's before using it. The engine only.
     *
     * @param out the selection.
     * @return what the engine kept, or null.
     */
    public static Object callerThreadState(final Selection out)
    {
        return CALLER_THREAD_STATE.get(out);
    }

    /**
     * Keeps the engine's per-thread state in a selection, for its next call. The engine only.
     *
     * @param out the selection.
     * @param state what to keep.
     */
    public static void callerThreadState(final Selection out, final Object state)
    {
        CALLER_THREAD_STATE.set(out, state);
    }

    /**
     * The column the kernel's ranking loop reads for a factor it does not score: every value missing, so the factor
     * adds exactly 0 whatever its observed values are. Never written through.
     *
     * @param out the selection.
     * @return the all-missing column (not a copy), at least {@code candidateCount} long.
     */
    public static double[] missingColumn(final Selection out)
    {
        return (double[])MISSING.get(out);
    }

    /**
     * Records that no survivor has a value of the factors from {@code fromFactor} on (+Infinity and -Infinity): for
     * the factors of the table a kernel's loop does not gather, whatever the table holds beyond those it knows.
     *
     * @param out the selection.
     * @param fromFactor the first {@link Factor} index the loop does not bound.
     */
    public static void noBounds(final Selection out, final int fromFactor)
    {
        final double[] min = (double[])BOUND_MIN.get(out);
        final double[] max = (double[])BOUND_MAX.get(out);
        for (int f = fromFactor; f < Factor.COUNT; f++)
        {
            min[f] = Double.POSITIVE_INFINITY;
            max[f] = Double.NEGATIVE_INFINITY;
        }
    }

    /**
     * Records the bounds of one factor over the survivors that have it (+Infinity and -Infinity when none has it).
     *
     * @param out the selection.
     * @param factor a {@link Factor} index.
     * @param min smallest value.
     * @param max largest value.
     */
    public static void bounds(final Selection out, final int factor, final double min, final double max)
    {
        ((double[])BOUND_MIN.get(out))[factor] = min;
        ((double[])BOUND_MAX.get(out))[factor] = max;
    }

    /**
     * @param out the selection.
     * @return its per-candidate score array (not a copy), for the kernel's scoring loop.
     */
    public static double[] scores(final Selection out)
    {
        return (double[])SCORES.get(out);
    }

    /**
     * @param out the selection.
     * @return its per-candidate drop reason array (not a copy), for the kernel's scoring loop.
     */
    public static int[] dropReasons(final Selection out)
    {
        return (int[])DROP_REASONS.get(out);
    }

    /**
     * @param out the selection.
     * @param index position of a surviving candidate.
     * @param score its score.
     */
    public static void score(final Selection out, final int index, final double score)
    {
        ((double[])SCORES.get(out))[index] = score;
    }

    /**
     * Sets the outcome and the chosen candidate.
     *
     * @param out the selection.
     * @param outcome an {@link Outcome} code.
     * @param selectedIndex position of the chosen candidate, or -1 when nothing was chosen.
     */
    public static void outcome(final Selection out, final int outcome, final int selectedIndex)
    {
        OUTCOME.set(out, outcome);
        SELECTED_INDEX.set(out, selectedIndex);
    }

    /**
     * Drops a candidate after scoring (reserve on select found its model full).
     *
     * @param out the selection.
     * @param index candidate position.
     * @param reason a {@link DropReason} code.
     */
    public static void dropReason(final Selection out, final int index, final int reason)
    {
        ((int[])DROP_REASONS.get(out))[index] = reason;
    }

    /**
     * @param out the selection.
     * @param index the survivor {@code pick: p2c} drew beside the winner, or -1.
     */
    public static void runnerUp(final Selection out, final int index)
    {
        RUNNER_UP.set(out, index);
    }

    /**
     * @param out the selection.
     * @param lease the lease taken on the chosen model, or {@link InflightTracker#NO_LEASE}.
     */
    public static void lease(final Selection out, final long lease)
    {
        LEASE.set(out, lease);
    }

    /**
     * @param out the selection.
     * @param rule the {@link SessionRule} that made the choice.
     * @param previousModel handle of the model the session's entry held before, or {@link Handles#NONE}.
     */
    public static void session(final Selection out, final int rule, final int previousModel)
    {
        SESSION_RULE.set(out, rule);
        SESSION_PREVIOUS_MODEL.set(out, previousModel);
    }

    private static void growSlowPath(final Selection out, final int candidateCount)
    {
        try
        {
            GROW.invokeExact(out, candidateCount);
        }
        catch (final RuntimeException | Error ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private static int observedEveryCall()
    {
        int mask = 0;
        for (int f = 0; f < Factor.COUNT; f++)
        {
            final int source = Factor.source(f);
            if (source == FactorSource.LATENCY_ESTIMATOR || source == FactorSource.LEASES)
            {
                mask |= 1 << f;
            }
        }
        return mask;
    }

    private static MethodHandles.Lookup privateLookup()
    {
        try
        {
            return MethodHandles.privateLookupIn(Selection.class, MethodHandles.lookup());
        }
        catch (final IllegalAccessException ex)
        {
            throw new IllegalStateException("mf-api must open io.multifactor.api to the kernel", ex);
        }
    }

    private static VarHandle field(final String name, final Class<?> type)
    {
        try
        {
            return SELECTION.findVarHandle(Selection.class, name, type);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new IllegalStateException("Selection has no field " + name + " of " + type, ex);
        }
    }

    private static MethodHandle method(final String name, final MethodType type)
    {
        try
        {
            return SELECTION.findVirtual(Selection.class, name, type);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new IllegalStateException("Selection has no method " + name + type, ex);
        }
    }
}
