package io.multifactor.kernel.scoring;

import io.multifactor.api.Capability;
import io.multifactor.api.DropReason;
import io.multifactor.api.Exclusions;
import io.multifactor.api.Outcome;
import io.multifactor.api.Priority;
import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.kernel.metrics.SingleWriterCounterBlock;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.NoCandidatesPolicy;
import io.multifactor.kernel.plan.RequestRules;

/**
 * The rules of one selection that depend on the request (section "Eligibility, request SLOs and shedding" of
 * docs/semantics.md), around the {@link ScoringKernel}'s full loops, for a request that carries needs, its own latency
 * ceilings or the {@code sheddable} priority, or a decision whose candidates have a context window:
 * <ol>
 *   <li><b>Eligibility</b>, first: a candidate the request does not exclude is dropped with reason
 *       {@link DropReason#CONTEXT} when the request's prompt tokens plus output tokens exceed its context window, else
 *       {@link DropReason#CAPABILITY} when it lacks a capability the request needs. When none is left, the outcome is
 *       {@link Outcome#INELIGIBLE}: no fallback applies.</li>
 *   <li><b>Admission</b>, for a {@code sheddable} request of a decision with {@code admission}: when no eligible
 *       candidate has room (below {@code sheddable_above} times every load ceiling the decision sets), the outcome is
 *       {@link Outcome#SHED}; every eligible candidate is listed without a drop reason or score.</li>
 *   <li>The kernel, on the eligible candidates only (the ineligible ones are passed to it as excluded, so that the
 *       ejection cap, normalization and fallbacks see only the eligible ones; their reasons are written back after it),
 *       with the request's own TTFT and TPOT ceilings where they are tighter than the decision's
 *       ({@link #maxTpotMs}, {@link #maxTtftMs}), on sealed signals when they are sealed (the request's ceilings are
 *       then checked live, as its exclusions are). When every candidate is eligible, the selection is that of a
 *       request without eligibility limits.</li>
 * </ol>
 * The kernel runs here without counting; the drops are counted once the reasons are final, in one pass.
 * {@link #noCandidates} is where {@code on_no_candidates: shed} turns a selection with no survivor into
 * {@link Outcome#SHED} or {@link Outcome#FAILED}. {@link #ineligibility} checks one model alone (a model a client names
 * directly).
 * <p>
 * This class is threadsafe: its state is one scratch set per thread; it allocates nothing after a thread's first call
 * (and a larger decision than that thread has seen), takes no lock and never throws for an expected outcome.
 */
public final class RequestScreen
{
    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    private RequestScreen()
    {
    }

    /**
     * @param plan the decision's plan.
     * @param requestOrNull the request, or null.
     * @return whether the selection goes through this class: a candidate has a context window, or the request carries
     *     limits ({@link Request#carriesLimits()}).
     */
    static boolean screens(final DecisionPlan plan, final Request requestOrNull)
    {
        return plan.screensRequests() || requestOrNull != null && requestOrNull.carriesLimits();
    }

    /**
     * Selects for a request this class screens ({@link #screens}); {@code out} has been started for the plan.
     */
    static void select(
        final DecisionPlan plan,
        final CandidateSignals signals,
        final Exclusions exclusionsOrNull,
        final Request requestOrNull,
        final Selection out,
        final SingleWriterCounterBlock dropCountsOrNull,
        final long p2cBits)
    {
        final RequestRules rules = plan.requestRules();
        final int n = plan.candidateCount();
        final long tokens = requestTokens(rules, requestOrNull);
        final int needs = requestOrNull == null || !rules.restrictsCapabilities() ? 0 : requestOrNull.needs();
        Scratch scratch = null;
        int eligible = 0;
        if (rules.hasContextWindow() || needs != 0)
        {
            for (int i = 0; i < n; i++)
            {
                final int modelId = plan.candidateModelId(i);
                if (exclusionsOrNull != null && exclusionsOrNull.contains(modelId))
                {
                    continue;
                }
                final int reason = eligibilityReason(rules, i, tokens, needs);
                if (reason == DropReason.NONE)
                {
                    eligible++;
                    continue;
                }
                if (scratch == null)
                {
                    scratch = SCRATCH.get().start(plan, exclusionsOrNull);
                }
                scratch.reasons[i] = reason;
                scratch.exclusions.add(modelId);
            }
        }
        final Exclusions effective = scratch == null ? exclusionsOrNull : scratch.exclusions;
        if (scratch != null && eligible == 0)
        {
            // Nothing eligible: the kernel's loops fill in what was observed (every candidate is excluded to them).
            ScoringKernel.selectUnsealed(plan, signals, effective, requestOrNull, out, null, p2cBits);
            writeBack(scratch, out, n);
            SelectionWriter.outcome(out, Outcome.INELIGIBLE, -1);
            countDrops(signals, out, n, dropCountsOrNull);
            return;
        }
        if (requestOrNull != null && requestOrNull.priority() == Priority.SHEDDABLE && rules.sheddableAbove() > 0.0 &&
            !anyRoom(plan, signals, effective, rules.sheddableAbove()))
        {
            ScoringKernel.selectUnsealed(plan, signals, effective, requestOrNull, out, null, p2cBits);
            if (scratch != null)
            {
                writeBack(scratch, out, n);
            }
            final int[] drops = SelectionWriter.dropReasons(out);
            for (int i = 0; i < n; i++)
            {
                if (!DropReason.removesCandidate(drops[i]))
                {
                    SelectionWriter.dropReason(out, i, DropReason.NONE);
                    SelectionWriter.score(out, i, Double.NaN);
                }
            }
            SelectionWriter.outcome(out, Outcome.SHED, -1);
            countDrops(signals, out, n, dropCountsOrNull);
            return;
        }
        if (scratch == null)
        {
            // Every candidate eligible: the selection of a request without eligibility limits (with its own latency
            // ceilings, if any), sealed signals included, which counts its own drops.
            ScoringKernel.selectPublished(plan, signals, effective, requestOrNull, out, dropCountsOrNull, p2cBits);
            return;
        }
        ScoringKernel.selectPublished(plan, signals, effective, requestOrNull, out, null, p2cBits);
        writeBack(scratch, out, n);
        countDrops(signals, out, n, dropCountsOrNull);
    }

    /**
     * The TPOT ceiling of a selection: the decision's, or the request's own where it is tighter (or the decision sets
     * none).
     *
     * @param plan the decision's plan.
     * @param requestOrNull the request, or null.
     * @return the ceiling in milliseconds, {@code +Infinity} when none.
     */
    public static double maxTpotMs(final DecisionPlan plan, final Request requestOrNull)
    {
        final double decision = plan.effectiveMaxTpotMs();
        final double request = requestOrNull == null ? 0.0 : requestOrNull.maxTpotMs();
        return request > 0.0 && request < decision ? request : decision;
    }

    /**
     * The TTFT ceiling of a selection, as {@link #maxTpotMs}.
     *
     * @param plan the decision's plan.
     * @param requestOrNull the request, or null.
     * @return the ceiling in milliseconds, {@code +Infinity} when none.
     */
    public static double maxTtftMs(final DecisionPlan plan, final Request requestOrNull)
    {
        final double decision = plan.effectiveMaxTtftMs();
        final double request = requestOrNull == null ? 0.0 : requestOrNull.maxTtftMs();
        return request > 0.0 && request < decision ? request : decision;
    }

    /**
     * The tokens a request is checked for against a context window: its prompt tokens
     * ({@link Request#contextPromptTokens()}: 0 when not known) plus its output
     * tokens ({@link Request#maxOutputTokens()}, else the engine's {@code default_output_tokens}).
     *
     * @param rules the decision's rules (for the default output tokens).
     * @param requestOrNull the request, or null.
     * @return the tokens, saturated at {@code Long.MAX_VALUE}.
     */
    public static long requestTokens(final RequestRules rules, final Request requestOrNull)
    {
        return requestTokens(rules.defaultOutputTokens(), requestOrNull);
    }

    /**
     * As {@link #requestTokens(RequestRules, Request)}, with the default output tokens given.
     *
     * @param defaultOutputTokens {@code signals.default_output_tokens}.
     * @param requestOrNull the request, or null.
     * @return the tokens, saturated at {@code Long.MAX_VALUE}.
     */
    public static long requestTokens(final long defaultOutputTokens, final Request requestOrNull)
    {
        final long prompt = requestOrNull == null ? 0L : requestOrNull.contextPromptTokens();
        final long output = requestOrNull == null || requestOrNull.maxOutputTokens() == Request.NO_TOKENS ?
            defaultOutputTokens : requestOrNull.maxOutputTokens();
        final long sum = prompt + output;
        return sum < 0 ? Long.MAX_VALUE : sum;
    }

    /**
     * Whether one model can serve a request at all: the eligibility check of a selection, for a model alone (a model a
     * client names directly rather than a decision).
     *
     * @param contextWindow the model's {@code context_window}, or {@link RequestRules#NO_CONTEXT_WINDOW}.
     * @param capabilities the model's {@code capabilities}, bits of {@link Capability}.
     * @param defaultOutputTokens {@code signals.default_output_tokens}.
     * @param requestOrNull the request, or null.
     * @return {@link DropReason#NONE}, {@link DropReason#CONTEXT} or {@link DropReason#CAPABILITY}.
     */
    public static int ineligibility(
        final long contextWindow, final int capabilities, final long defaultOutputTokens, final Request requestOrNull)
    {
        final long tokens = requestTokens(defaultOutputTokens, requestOrNull);
        final int needs = requestOrNull == null ? 0 : requestOrNull.needs();
        return tokens > contextWindow ? DropReason.CONTEXT :
            (needs & ~capabilities) != 0 ? DropReason.CAPABILITY : DropReason.NONE;
    }

    /**
     * What a selection with no survivor ends in when its policy is {@code fail} or {@code shed}: {@code shed} sheds when
     * every candidate left in (neither excluded nor ineligible) was dropped for a load reason, and fails otherwise.
     *
     * @param plan the decision's plan.
     * @param out the selection, every candidate dropped.
     * @return {@link Outcome#SHED} or {@link Outcome#FAILED}.
     */
    static int noCandidates(final DecisionPlan plan, final Selection out)
    {
        if (plan.policy() != NoCandidatesPolicy.SHED)
        {
            return Outcome.FAILED;
        }
        final int n = out.candidateCount();
        boolean any = false;
        for (int i = 0; i < n; i++)
        {
            final int reason = out.dropReason(i);
            if (DropReason.removesCandidate(reason))
            {
                continue;
            }
            if (!DropReason.isLoad(reason))
            {
                return Outcome.FAILED;
            }
            any = true;
        }
        return any ? Outcome.SHED : Outcome.FAILED;
    }

    private static int eligibilityReason(final RequestRules rules, final int i, final long tokens, final int needs)
    {
        return tokens > rules.contextWindow(i) ? DropReason.CONTEXT :
            (needs & ~rules.capabilities(i)) != 0 ? DropReason.CAPABILITY : DropReason.NONE;
    }

    // Admission: whether an eligible candidate has room under every load ceiling the decision sets; a decision that sets
    // none always has room.
    private static boolean anyRoom(
        final DecisionPlan plan, final CandidateSignals signals, final Exclusions removedOrNull, final double share)
    {
        final long maxInflight = plan.effectiveMaxInflight();
        final long maxTokens = plan.effectiveMaxInflightTokens();
        final double maxQueue = plan.effectiveMaxQueue();
        final double maxKvCache = plan.effectiveMaxKvCache();
        final boolean inflightSet = maxInflight != Long.MAX_VALUE;
        final boolean tokensSet = maxTokens != Long.MAX_VALUE;
        final boolean queueSet = maxQueue != Double.POSITIVE_INFINITY;
        final boolean kvSet = maxKvCache != Double.POSITIVE_INFINITY;
        if (!(inflightSet | tokensSet | queueSet | kvSet))
        {
            return true;
        }
        final int n = plan.candidateCount();
        for (int i = 0; i < n; i++)
        {
            if (removedOrNull != null && removedOrNull.contains(plan.candidateModelId(i)))
            {
                continue;
            }
            final double queue = signals.queue(i);
            final double kvCache = signals.kvCache(i);
            // A missing queue or KV-cache value (NaN) has room.
            if ((!inflightSet || signals.inflight(i) < share * maxInflight) &&
                (!tokensSet || signals.inflightTokens(i) < share * maxTokens) &&
                (!queueSet || !(queue >= share * maxQueue)) &&
                (!kvSet || !(kvCache >= share * maxKvCache)))
            {
                return true;
            }
        }
        return false;
    }

    private static void writeBack(final Scratch scratch, final Selection out, final int n)
    {
        final int[] reasons = scratch.reasons;
        for (int i = 0; i < n; i++)
        {
            if (reasons[i] != DropReason.NONE)
            {
                SelectionWriter.dropReason(out, i, reasons[i]);
            }
        }
    }

    private static void countDrops(
        final CandidateSignals signals, final Selection out, final int n, final SingleWriterCounterBlock countsOrNull)
    {
        if (countsOrNull == null)
        {
            return;
        }
        for (int i = 0; i < n; i++)
        {
            final int reason = out.dropReason(i);
            if (reason != DropReason.NONE)
            {
                countsOrNull.increment(signals.dropCounterId(i, reason));
            }
        }
    }

    /**
     * One thread's scratch: the request's exclusions plus the ineligible candidates, and each candidate's eligibility
     * reason. Not threadsafe: one per thread.
     */
    private static final class Scratch
    {
        final Exclusions exclusions = new Exclusions();
        int[] reasons = new int[16];

        Scratch start(final DecisionPlan plan, final Exclusions exclusionsOrNull)
        {
            final int n = plan.candidateCount();
            if (reasons.length < n)
            {
                reasons = new int[n];
            }
            java.util.Arrays.fill(reasons, 0, n, DropReason.NONE);
            exclusions.clear();
            if (exclusionsOrNull != null)
            {
                for (int i = 0; i < n; i++)
                {
                    final int modelId = plan.candidateModelId(i);
                    if (exclusionsOrNull.contains(modelId))
                    {
                        exclusions.add(modelId);
                    }
                }
            }
            return this;
        }
    }
}
