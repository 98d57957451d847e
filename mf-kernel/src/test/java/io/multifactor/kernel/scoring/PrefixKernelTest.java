package io.multifactor.kernel.scoring;

import io.multifactor.api.DropReason;
import io.multifactor.api.Factor;
import io.multifactor.api.Outcome;
import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.NoCandidatesPolicy;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The prefix factor and the cache-aware prompt price on worked examples (section "Prefix-cache affinity" of
 * docs/semantics.md), {@link Request#prefixMatch}'s handling of bad values, and no allocation per selection.
 */
class PrefixKernelTest
{
    // a: 3.00 per 1M prompt tokens, 0.30 cached; b: 1.00, no cached price; c: unpriced.
    private static Plans plans(final double[] weights, final double maxCostPer1M, final int policy)
    {
        final PlansBuilder builder = new PlansBuilder().model("a", 0.9, 3.0, 15.0).model("b", 0.6, 1.0, 2.0)
            .model("c", 0.5, Double.NaN).cachedPromptPrice("a", 0.3);
        return builder.decision("d").candidates("a", "b", "c").weights(weights).slo(0, 0, maxCostPer1M, 0)
            .policy(policy).add().build();
    }

    private static Selection run(final Plans plans, final Request request)
    {
        final DecisionPlan plan = plans.decision(plans.decisionId("d"));
        final Selection out = new Selection();
        ScoringKernel.select(plan, CandidateSignals.standalone(plan.candidateCount()), request.exclusions(), request, out);
        return out;
    }

    private static double[] prefixOnly()
    {
        final double[] w = new double[Factor.COUNT];
        w[Factor.PREFIX] = 1.0;
        return w;
    }

    @Test
    void shouldPreferTheLargerCachedShareAndScoreAMissingShareAsZero()
    {
        final Plans plans = plans(prefixOnly(), 0.0, NoCandidatesPolicy.CHEAPEST);
        final Request request = new Request().prefixMatch(plans.modelId("a"), 0.2).prefixMatch(plans.modelId("b"), 0.8);
        final Selection s = run(plans, request);
        assertThat(s.outcome()).isEqualTo(Outcome.SCORED);
        assertThat(s.selectedModel()).isEqualTo(plans.modelId("b"));
        assertThat(s.value(0, Factor.PREFIX)).isEqualTo(0.2);
        assertThat(s.value(2, Factor.PREFIX)).isNaN();
        assertThat(s.normalized(0, Factor.PREFIX)).isZero();
        assertThat(s.normalized(1, Factor.PREFIX)).isEqualTo(1.0);
        assertThat(s.normalized(2, Factor.PREFIX)).isZero();
        assertThat(s.score(1)).isCloseTo(1.0, within(1e-12));

        // Shared by every candidate that has it: 0.5 each.
        request.clear().prefixMatch(plans.modelId("a"), 0.4).prefixMatch(plans.modelId("b"), 0.4);
        final Selection shared = run(plans, request);
        assertThat(shared.normalized(0, Factor.PREFIX)).isEqualTo(0.5);
        assertThat(shared.selectedModel()).isEqualTo(plans.modelId("a"));
    }

    @Test
    void shouldPriceThePromptAtTheCachedShareWhereTheModelHasACachedPrice()
    {
        final Plans plans = plans(new double[] { 0, 0, 1, 0 }, 0.0, NoCandidatesPolicy.CHEAPEST);
        final Request request = new Request().prefixMatch(plans.modelId("a"), 0.75).prefixMatch(plans.modelId("b"), 0.9)
            .prefixMatch(plans.modelId("c"), 1.0);
        final Selection s = run(plans, request);
        // a: 0.25 x 3.00 + 0.75 x 0.30 = 0.975, cheaper than b, whose share prices nothing (no cached price).
        assertThat(s.costPer1M(0)).isCloseTo(0.975, within(1e-12));
        assertThat(s.costPer1M(1)).isEqualTo(1.0);
        assertThat(s.costPer1M(2)).isNaN();
        assertThat(s.selectedModel()).isEqualTo(plans.modelId("a"));

        // Without the request's share, the prompt price is prompt_per_1m.
        final Selection uncached = run(plans, new Request());
        assertThat(uncached.costPer1M(0)).isEqualTo(3.0);
        assertThat(uncached.selectedModel()).isEqualTo(plans.modelId("b"));

        // The request's token mix prices the cached prompt too: (1000 x 0.975 + 500 x 15) / 1500.
        request.promptTokens(1000).maxOutputTokens(500);
        assertThat(run(plans, request).costPer1M(0)).isCloseTo((1000 * 0.975 + 500 * 15.0) / 1500, within(1e-12));
    }

    @Test
    void shouldApplyTheCostCeilingAndTheCheapestFallbackToTheCachedPrice()
    {
        final Plans plans = plans(new double[] { 1, 0, 0, 0 }, 1.0, NoCandidatesPolicy.CHEAPEST);
        final Request request = new Request().prefixMatch(plans.modelId("a"), 0.75);
        // a at 0.975 is under the ceiling of 1.0; b at 1.0 too (strictly greater drops); c is unpriced.
        final Selection kept = run(plans, request);
        assertThat(kept.dropReason(0)).isEqualTo(DropReason.NONE);
        assertThat(kept.selectedModel()).isEqualTo(plans.modelId("a"));
        request.clear().prefixMatch(plans.modelId("a"), 0.5);
        // a at 0.5 x 3.00 + 0.5 x 0.30 = 1.65 breaks it.
        final Selection dropped = run(plans, request);
        assertThat(dropped.dropReason(0)).isEqualTo(DropReason.COST);
        assertThat(dropped.selectedModel()).isEqualTo(plans.modelId("b"));

        // c (unpriced: never above a price ceiling) left out, a and b above the ceiling of 0.2: cheapest by the
        // cache-aware price, a at 0.30 with P = 1.
        final Plans tight = plans(new double[] { 1, 0, 0, 0 }, 0.2, NoCandidatesPolicy.CHEAPEST);
        final Selection fallback = run(tight, new Request().exclude(tight.modelId("c")).prefixMatch(tight.modelId("a"), 1.0));
        assertThat(fallback.outcome()).isEqualTo(Outcome.FALLBACK_CHEAPEST);
        assertThat(fallback.dropReason(0)).isEqualTo(DropReason.COST);
        assertThat(fallback.costPer1M(0)).isCloseTo(0.3, within(1e-12));
        assertThat(fallback.selectedModel()).isEqualTo(tight.modelId("a"));
        // Without the share, b (1.0 against a's 3.0) is the cheapest.
        assertThat(run(tight, new Request().exclude(tight.modelId("c"))).selectedModel()).isEqualTo(tight.modelId("b"));
    }

    @Test
    void shouldClampSharesForgetNaNIgnoreNegativeHandlesAndClear()
    {
        final Request request = new Request();
        assertThat(request.hasPrefixMatches()).isFalse();
        assertThat(request.prefixMatch(3)).isNaN();
        request.prefixMatch(3, -0.5).prefixMatch(4, 1.5).prefixMatch(5, 0.25).prefixMatch(-1, 0.5);
        assertThat(request.hasPrefixMatches()).isTrue();
        assertThat(request.prefixMatch(3)).isZero();
        assertThat(request.prefixMatch(4)).isEqualTo(1.0);
        assertThat(request.prefixMatch(5)).isEqualTo(0.25);
        assertThat(request.prefixMatch(-1)).isNaN();
        request.prefixMatch(5, Double.NaN);
        assertThat(request.prefixMatch(5)).isNaN();
        // A handle beyond the storage grows it once.
        request.prefixMatch(10_000, 0.5);
        assertThat(request.prefixMatch(10_000)).isEqualTo(0.5);
        request.clear();
        assertThat(request.hasPrefixMatches()).isFalse();
        assertThat(request.prefixMatch(3)).isNaN();
        assertThat(request.prefixMatch(4)).isNaN();
        assertThat(request.prefixMatch(10_000)).isNaN();
        // NaN for a model with no share adds nothing.
        request.prefixMatch(7, Double.NaN);
        assertThat(request.hasPrefixMatches()).isFalse();
    }

    @Test
    void shouldAllocateNothingPerSelectionWithSharesAfterWarmUp()
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        threads.setThreadAllocatedMemoryEnabled(true);
        final long threadId = Thread.currentThread().getId();
        final double[] weights = { 1, 1, 1, 1, 0, 0, 2 };
        final Plans plans = plans(weights, 2.0, NoCandidatesPolicy.CHEAPEST);
        final DecisionPlan plan = plans.decision(plans.decisionId("d"));
        final CandidateSignals signals = CandidateSignals.standalone(plan.candidateCount());
        final Request request = new Request();
        final Selection out = new Selection();
        long checksum = run(plan, signals, request, out, 200_000);
        long allocated = -1;
        for (int round = 0; round < 3 && allocated != 0; round++)
        {
            final long start = threads.getThreadAllocatedBytes(threadId);
            checksum += run(plan, signals, request, out, 100_000);
            allocated = threads.getThreadAllocatedBytes(threadId) - start;
        }
        System.out.println("PrefixKernelTest: 100,000 selections with shares allocated " + allocated + " bytes, " +
            "checksum " + checksum);
        // The two reads of the allocation counter may cost a few bytes themselves; one object per call would be MBs.
        assertThat(allocated).isLessThan(1_000L);
    }

    private static long run(
        final DecisionPlan plan, final CandidateSignals signals, final Request request, final Selection out,
        final int count)
    {
        long checksum = 0;
        for (int k = 0; k < count; k++)
        {
            request.clear().prefixMatch(0, (k & 7) / 7.0).prefixMatch(1, ((k >>> 3) & 7) / 7.0);
            signals.inflight(k % 3, k & 15);
            ScoringKernel.select(plan, signals, null, request, out);
            checksum += out.selectedModel() + out.outcome();
        }
        return checksum;
    }
}
