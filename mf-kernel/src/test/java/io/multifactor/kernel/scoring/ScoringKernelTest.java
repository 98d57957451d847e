package io.multifactor.kernel.scoring;

import io.multifactor.api.DropReason;
import io.multifactor.api.Factor;
import io.multifactor.api.Handles;
import io.multifactor.api.Outcome;
import io.multifactor.api.Selection;
import io.multifactor.kernel.plan.NoCandidatesPolicy;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import org.junit.jupiter.api.Test;

import static io.multifactor.kernel.scoring.KernelRun.excluded;
import static io.multifactor.kernel.scoring.KernelRun.none;
import static io.multifactor.kernel.scoring.KernelRun.obs;
import static io.multifactor.kernel.scoring.KernelRun.select;
import static io.multifactor.kernel.scoring.KernelRun.selectedName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** One example per rule of docs/semantics.md, on the kernel alone. */
class ScoringKernelTest
{
    private static final double NaN = Double.NaN;

    /** premium: best quality, dearest, slow, busy; standard: fastest, least busy; economy: cheapest. */
    private static Plans threeModels(
        final double q, final double l, final double c, final double n,
        final double maxTpotMs, final double maxTtftMs, final double maxCost, final long maxInflight, final int policy)
    {
        return new PlansBuilder()
            .model("premium", 0.9, 10.0)
            .model("standard", 0.6, 3.0)
            .model("economy", 0.2, 0.5)
            .decision("d").candidates("premium", "standard", "economy").weights(q, l, c, n)
            .slo(maxTpotMs, maxTtftMs, maxCost, maxInflight).policy(policy).add()
            .build();
    }

    private static Plans weighted(final double q, final double l, final double c, final double n)
    {
        return threeModels(q, l, c, n, 0, 0, 0, 0, NoCandidatesPolicy.CHEAPEST);
    }

    private static Selection selectObserved(final Plans plans)
    {
        return select(plans, "d", obs(80, 400, 9), obs(40, 300, 2), obs(60, 200, 5));
    }

    @Test
    void shouldPickHighestQualityWhenOnlyQualityWeighs()
    {
        final Plans plans = weighted(1, 0, 0, 0);
        final Selection s = selectObserved(plans);
        assertThat(s.outcome()).isEqualTo(Outcome.SCORED);
        assertThat(selectedName(plans, s)).isEqualTo("premium");
        assertThat(s.selectedScore()).isEqualTo(1.0);
        assertThat(s.normalized(2, Factor.QUALITY)).isEqualTo(0.0);
    }

    @Test
    void shouldPickCheapestWhenOnlyCostWeighs()
    {
        final Plans plans = weighted(0, 0, 1, 0);
        assertThat(selectedName(plans, selectObserved(plans))).isEqualTo("economy");
    }

    @Test
    void shouldPickLeastLoadedWhenOnlyLoadWeighs()
    {
        final Plans plans = weighted(0, 0, 0, 1);
        final Selection s = selectObserved(plans);
        assertThat(selectedName(plans, s)).isEqualTo("standard");
        assertThat(s.normalized(0, Factor.LOAD)).isEqualTo(0.0);
    }

    @Test
    void shouldPickFastestWhenOnlyLatencyWeighs()
    {
        final Plans plans = weighted(0, 1, 0, 0);
        assertThat(selectedName(plans, selectObserved(plans))).isEqualTo("standard");
    }

    @Test
    void shouldUseTtftWhenTpotIsNotObserved()
    {
        final Plans plans = weighted(0, 1, 0, 0);
        final Selection s = select(plans, "d", obs(NaN, 400, 0), obs(NaN, 300, 0), obs(NaN, 200, 0));
        assertThat(selectedName(plans, s)).isEqualTo("economy");
        assertThat(s.latencyMs(1)).isEqualTo(300.0);
        assertThat(s.normalized(1, Factor.LATENCY)).isEqualTo(0.5);
    }

    @Test
    void shouldDropCandidateAboveTpotCeiling()
    {
        final Plans plans = threeModels(1, 0, 0, 0, 50, 0, 0, 0, NoCandidatesPolicy.CHEAPEST);
        final Selection s = selectObserved(plans);
        assertThat(s.dropReason(0)).isEqualTo(DropReason.TPOT);
        assertThat(s.score(0)).isNaN();
        assertThat(s.outcome()).isEqualTo(Outcome.SCORED);
        assertThat(selectedName(plans, s)).isEqualTo("standard");
    }

    @Test
    void shouldKeepCandidateExactlyAtEveryCeiling()
    {
        final Plans plans = threeModels(1, 0, 0, 0, 80, 400, 10, 9, NoCandidatesPolicy.CHEAPEST);
        final Selection s = selectObserved(plans);
        assertThat(s.dropReason(0)).isEqualTo(DropReason.NONE);
        assertThat(selectedName(plans, s)).isEqualTo("premium");
    }

    @Test
    void shouldDropForFirstBrokenCeilingInOrderTpotTtftCostInflight()
    {
        final Plans plans = threeModels(1, 0, 0, 0, 70, 250, 2, 4, NoCandidatesPolicy.CHEAPEST);
        final Selection s = selectObserved(plans);
        assertThat(s.dropReason(0)).isEqualTo(DropReason.TPOT);
        assertThat(s.dropReason(1)).isEqualTo(DropReason.TTFT);
        assertThat(s.dropReason(2)).isEqualTo(DropReason.INFLIGHT);

        final Plans costCeiling = threeModels(1, 0, 0, 0, 0, 0, 2, 0, NoCandidatesPolicy.CHEAPEST);
        final Selection c = selectObserved(costCeiling);
        assertThat(c.dropReason(0)).isEqualTo(DropReason.COST);
        assertThat(c.dropReason(1)).isEqualTo(DropReason.COST);
        assertThat(selectedName(costCeiling, c)).isEqualTo("economy");
    }

    @Test
    void shouldNeverDropCandidateWithMissingObservationOrPrice()
    {
        final Plans plans = new PlansBuilder()
            .model("unpriced", 0.5, NaN).model("priced", 0.5, 9.0)
            .decision("d").candidates("unpriced", "priced").slo(1, 1, 1, 0).add().build();
        final Selection s = select(plans, "d", none(), none());
        assertThat(s.dropReason(0)).isEqualTo(DropReason.NONE);
        assertThat(s.dropReason(1)).isEqualTo(DropReason.COST);
        assertThat(selectedName(plans, s)).isEqualTo("unpriced");
    }

    @Test
    void shouldFallBackToCheapestWhenEveryCandidateIsDropped()
    {
        final Plans plans = threeModels(1, 0, 0, 0, 10, 0, 0, 0, NoCandidatesPolicy.CHEAPEST);
        final Selection s = selectObserved(plans);
        assertThat(s.outcome()).isEqualTo(Outcome.FALLBACK_CHEAPEST);
        assertThat(selectedName(plans, s)).isEqualTo("economy");
        assertThat(s.dropReason(2)).isEqualTo(DropReason.TPOT);
        assertThat(s.selectedScore()).isNaN();
    }

    @Test
    void shouldIgnoreUnpricedCandidatesAndKeepFreeOnesInCheapestFallback()
    {
        final Plans plans = new PlansBuilder()
            .model("unpriced", 0.5, NaN).model("paid", 0.5, 4.0).model("free", 0.5, 0.0).model("free-too", 0.5, 0.0)
            .decision("d").candidates("unpriced", "paid", "free", "free-too").slo(1, 0, 0, 0).add().build();
        final Selection s = select(plans, "d", obs(5, NaN, 0), obs(5, NaN, 0), obs(5, NaN, 0), obs(5, NaN, 0));
        assertThat(s.outcome()).isEqualTo(Outcome.FALLBACK_CHEAPEST);
        assertThat(selectedName(plans, s)).isEqualTo("free");
    }

    @Test
    void shouldFallBackToFirstCandidateWhenNoneIsPriced()
    {
        final Plans plans = new PlansBuilder()
            .model("a", 0.5, NaN).model("b", 0.5, NaN)
            .decision("d").candidates("a", "b").slo(1, 0, 0, 0).add().build();
        final Selection s = select(plans, "d", obs(5, NaN, 0), obs(5, NaN, 0));
        assertThat(s.outcome()).isEqualTo(Outcome.FALLBACK_CHEAPEST);
        assertThat(selectedName(plans, s)).isEqualTo("a");
    }

    @Test
    void shouldFallBackToFirstCandidateNotExcludedWithFirstPolicy()
    {
        final Plans plans = threeModels(1, 0, 0, 0, 10, 0, 0, 0, NoCandidatesPolicy.FIRST);
        final Selection s = selectObserved(plans);
        assertThat(s.outcome()).isEqualTo(Outcome.FALLBACK_FIRST);
        assertThat(selectedName(plans, s)).isEqualTo("premium");

        final Selection afterExclusion = select(plans, "d", excluded(), obs(40, 300, 2), obs(60, 200, 5));
        assertThat(selectedName(plans, afterExclusion)).isEqualTo("standard");
    }

    @Test
    void shouldFailWhenEveryCandidateIsDroppedWithFailPolicy()
    {
        final Plans plans = threeModels(1, 0, 0, 0, 10, 0, 0, 0, NoCandidatesPolicy.FAIL);
        final Selection s = selectObserved(plans);
        assertThat(s.outcome()).isEqualTo(Outcome.FAILED);
        assertThat(s.hasSelection()).isFalse();
        assertThat(s.selectedModel()).isEqualTo(Handles.NONE);
    }

    @Test
    void shouldFailWhenEveryCandidateIsExcludedWhateverThePolicy()
    {
        for (int policy = NoCandidatesPolicy.CHEAPEST; policy <= NoCandidatesPolicy.FAIL; policy++)
        {
            final Plans plans = threeModels(1, 0, 0, 0, 0, 0, 0, 0, policy);
            final Selection s = select(plans, "d", excluded(), excluded(), excluded());
            assertThat(s.outcome()).isEqualTo(Outcome.FAILED);
            assertThat(s.dropReason(1)).isEqualTo(DropReason.EXCLUDED);
        }
    }

    @Test
    void shouldUseNormalizedWeightsFourTwoTwoTwo()
    {
        final Selection s = selectObserved(weighted(4, 2, 2, 2));
        assertThat(s.weight(Factor.QUALITY)).isEqualTo(0.4);
        assertThat(s.weight(Factor.LATENCY)).isEqualTo(0.2);
        assertThat(s.weight(Factor.COST)).isEqualTo(0.2);
        assertThat(s.weight(Factor.LOAD)).isEqualTo(0.2);
        final double expected = 0.4 * s.normalized(1, Factor.QUALITY) + 0.2 * s.normalized(1, Factor.LATENCY) +
            0.2 * s.normalized(1, Factor.COST) + 0.2 * s.normalized(1, Factor.LOAD);
        assertThat(s.score(1)).isCloseTo(expected, within(1e-12));
    }

    @Test
    void shouldScoreSingleCandidateWithHalfPerFactor()
    {
        final Plans plans = new PlansBuilder().model("only", 0.7, 2.0).decision("d").candidates("only").add().build();
        final Selection s = select(plans, "d", obs(30, NaN, 3));
        assertThat(s.outcome()).isEqualTo(Outcome.SCORED);
        assertThat(s.selectedIndex()).isZero();
        for (int f = 0; f < Factor.SEED_COUNT; f++)
        {
            assertThat(s.normalized(0, f)).isEqualTo(0.5);
        }
        // No server signals: missing, so 0 (and weight 0).
        assertThat(s.normalized(0, Factor.QUEUE)).isZero();
        assertThat(s.normalized(0, Factor.KV_CACHE)).isZero();
        assertThat(s.selectedScore()).isEqualTo(0.5);
    }

    @Test
    void shouldGiveHalfWhenMinEqualsMax()
    {
        final Plans plans = new PlansBuilder().model("a", 0.5, 1.0).model("b", 0.5, 2.0)
            .decision("d").candidates("a", "b").add().build();
        final Selection s = select(plans, "d", obs(10, NaN, 4), obs(10, NaN, 4));
        assertThat(s.normalized(0, Factor.QUALITY)).isEqualTo(0.5);
        assertThat(s.normalized(1, Factor.QUALITY)).isEqualTo(0.5);
        assertThat(s.normalized(0, Factor.LATENCY)).isEqualTo(0.5);
        assertThat(s.normalized(0, Factor.LOAD)).isEqualTo(0.5);
        assertThat(s.normalized(0, Factor.COST)).isEqualTo(1.0);
        assertThat(s.normalized(1, Factor.COST)).isEqualTo(0.0);
    }

    @Test
    void shouldGiveZeroForMissingSignalAndForFactorNoSurvivorHas()
    {
        final Plans plans = new PlansBuilder().model("rated", 0.3, NaN).model("unrated", NaN, NaN)
            .decision("d").candidates("rated", "unrated").weights(1, 1, 1, 0).add().build();
        final Selection s = select(plans, "d", none(), none());
        assertThat(s.normalized(0, Factor.QUALITY)).isEqualTo(0.5);
        assertThat(s.normalized(1, Factor.QUALITY)).isEqualTo(0.0);
        assertThat(s.normalized(0, Factor.LATENCY)).isEqualTo(0.0);
        assertThat(s.normalized(0, Factor.COST)).isEqualTo(0.0);
        assertThat(selectedName(plans, s)).isEqualTo("rated");
    }

    @Test
    void shouldBreakTiesInFavourOfEarlierCandidate()
    {
        final Plans plans = new PlansBuilder().model("x", 0.5, 1.0).model("y", 0.5, 1.0)
            .decision("d").candidates("y", "x").add().build();
        final Selection s = select(plans, "d", none(), none());
        assertThat(s.score(0)).isEqualTo(s.score(1));
        assertThat(selectedName(plans, s)).isEqualTo("y");
    }

    @Test
    void shouldNormalizeOverSurvivorsOnly()
    {
        final Plans plans = threeModels(0, 0, 1, 0, 0, 0, 5.0, 0, NoCandidatesPolicy.CHEAPEST);
        final Selection s = selectObserved(plans);
        assertThat(s.dropReason(0)).isEqualTo(DropReason.COST);
        assertThat(s.normalized(1, Factor.COST)).isEqualTo(0.0);
        assertThat(s.normalized(2, Factor.COST)).isEqualTo(1.0);
    }

    /** Weights 1/6/3/3 divided by their sum add up to 1.0000000000000002 in doubles: a bug found by the properties. */
    @Test
    void shouldCapScoreAtOneWhenRoundedWeightsAddUpToMoreThanOne()
    {
        final Plans plans = new PlansBuilder().model("best", 0.9, 1.0).model("worst", 0.1, 9.0)
            .decision("d").candidates("best", "worst").weights(1, 6, 3, 3).add().build();
        final Selection s = select(plans, "d", obs(10, NaN, 0), obs(90, NaN, 7));
        assertThat(s.weight(0) + s.weight(1) + s.weight(2) + s.weight(3)).isGreaterThan(1.0);
        assertThat(s.score(0)).isEqualTo(1.0);
        assertThat(s.score(1)).isEqualTo(0.0);
    }

    /**
     * 1 / (1e-310 - 0) overflows: a kernel that multiplies by a precomputed inverse range must not turn that into NaN
     * (0 * Infinity) or into "one shared value"; the plain formula gives 0 and 1.
     */
    @Test
    void shouldScoreARangeTooSmallToInvertByThePlainFormula()
    {
        final Plans plans = new PlansBuilder().model("a", 0.0, 1e-310).model("b", 1e-310, 0.0)
            .decision("d").candidates("a", "b").weights(1, 0, 1, 0).add().build();
        final Selection s = select(plans, "d", none(), none());
        assertThat(s.outcome()).isEqualTo(Outcome.SCORED);
        assertThat(s.selectedIndex()).isOne();
        assertThat(s.normalized(0, Factor.QUALITY)).isEqualTo(0.0);
        assertThat(s.normalized(1, Factor.QUALITY)).isEqualTo(1.0);
        assertThat(s.normalized(0, Factor.COST)).isEqualTo(0.0);
        assertThat(s.normalized(1, Factor.COST)).isEqualTo(1.0);
        assertThat(s.score(0)).isEqualTo(0.0);
        assertThat(s.score(1)).isEqualTo(1.0);
    }

    @Test
    void shouldNormalizeByThePlainMinMaxFormula()
    {
        assertThat(Selection.normalized(3.0, 2.0, 6.0, false)).isEqualTo(0.25);
        assertThat(Selection.normalized(3.0, 2.0, 6.0, true)).isEqualTo(0.75);
        assertThat(Selection.normalized(6.0, 2.0, 6.0, false)).isEqualTo(1.0);
        assertThat(Selection.normalized(3.0, 3.0, 3.0, true)).isEqualTo(0.5);
        assertThat(Selection.normalized(Double.NaN, 2.0, 6.0, false)).isEqualTo(0.0);
        assertThat(Selection.normalized(Double.MIN_VALUE, 0.0, Double.MIN_VALUE, false)).isEqualTo(1.0);
        assertThat(Selection.normalized(Double.MAX_VALUE, 0.0, Double.MAX_VALUE, true)).isEqualTo(0.0);
    }
}
