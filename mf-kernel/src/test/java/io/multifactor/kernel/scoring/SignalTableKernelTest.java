package io.multifactor.kernel.scoring;

import io.multifactor.api.DropReason;
import io.multifactor.api.Factor;
import io.multifactor.api.Outcome;
import io.multifactor.api.Selection;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import io.multifactor.kernel.plan.SignalCeilings;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The kernel over the signal table's factors and ceilings beyond the seed's: queue, KV-cache, tokens, stale, ejected. */
class SignalTableKernelTest
{
    private static final double NaN = Double.NaN;

    private static Plans plans(final double[] weights, final SignalCeilings ceilings)
    {
        return new PlansBuilder().model("a", 0.5, 1.0).model("b", 0.5, 1.0).model("c", 0.5, 1.0)
            .decision("d").candidates("a", "b", "c").weights(weights).signalCeilings(ceilings).add().build();
    }

    private static Selection run(final Plans plans, final CandidateSignals signals)
    {
        final DecisionPlan plan = plans.decision(plans.decisionId("d"));
        final Selection out = new Selection();
        ScoringKernel.select(plan, signals, null, out);
        return out;
    }

    @Test
    void shouldScoreTheQueueAndKvCacheFactorsLowerIsBetterAndMissingAsZero()
    {
        final Plans plans = plans(new double[] { 0, 0, 0, 0, 1, 1 }, SignalCeilings.NONE);
        final CandidateSignals signals = CandidateSignals.standalone(3);
        signals.publishServerLoad(0, 8, 0.9, false);
        signals.publishServerLoad(1, 2, 0.3, false);
        // c has no fresh server: both missing.
        final Selection s = run(plans, signals);
        assertThat(s.outcome()).isEqualTo(Outcome.SCORED);
        assertThat(s.selectedIndex()).isEqualTo(1);
        assertThat(s.queue(0)).isEqualTo(8.0);
        assertThat(s.kvCache(1)).isEqualTo(0.3);
        assertThat(s.queue(2)).isNaN();
        assertThat(s.normalized(0, Factor.QUEUE)).isZero();
        assertThat(s.normalized(1, Factor.QUEUE)).isEqualTo(1.0);
        assertThat(s.normalized(2, Factor.KV_CACHE)).isZero();
        assertThat(s.score(1)).isCloseTo(1.0, within(1e-12));
        assertThat(s.score(0)).isCloseTo(0.0, within(1e-12));
        assertThat(s.score(2)).isCloseTo(0.0, within(1e-12));
    }

    @Test
    void shouldDropInTheTablesOrderQueueBeforeKvCacheBeforeStale()
    {
        final Plans plans = plans(new double[] { 1, 1, 1, 1, 0, 0 }, new SignalCeilings(0, 4, 0.8, true));
        final CandidateSignals signals = CandidateSignals.standalone(3);
        signals.publishServerLoad(0, 5, 0.9, false);
        signals.publishServerLoad(1, 1, 0.85, false);
        signals.publishServerLoad(2, NaN, NaN, true);
        final Selection s = run(plans, signals);
        assertThat(s.dropReason(0)).isEqualTo(DropReason.QUEUE);
        assertThat(s.dropReason(1)).isEqualTo(DropReason.KV_CACHE);
        assertThat(s.dropReason(2)).isEqualTo(DropReason.STALE);
        assertThat(s.outcome()).isEqualTo(Outcome.FALLBACK_CHEAPEST);
    }

    @Test
    void shouldKeepAStaleModelWhenStaleIsMissingOrTheDecisionHasNoServerCeiling()
    {
        final CandidateSignals signals = CandidateSignals.standalone(3);
        signals.publishServerLoad(0, NaN, NaN, true);
        assertThat(run(plans(new double[] { 1, 1, 1, 1, 0, 0 }, new SignalCeilings(0, 4, 0.8, false)), signals)
            .dropReason(0)).isEqualTo(DropReason.NONE);
        assertThat(run(plans(new double[] { 1, 1, 1, 1, 0, 0 }, new SignalCeilings(0,
            Double.POSITIVE_INFINITY, Double.POSITIVE_INFINITY, true)), signals).dropReason(0)).isEqualTo(DropReason.NONE);
    }

    @Test
    void shouldDropAboveTheTokenCeilingAfterTheInflightOneAndEjectedFirstOfAll()
    {
        final Plans plans = new PlansBuilder().model("a", 0.5, 1.0).model("b", 0.5, 1.0).model("c", 0.5, 1.0)
            .decision("d").candidates("a", "b", "c").slo(0, 0, 0, 3).signalCeilings(new SignalCeilings(1000,
            Double.POSITIVE_INFINITY, Double.POSITIVE_INFINITY, false)).add().build();
        final CandidateSignals signals = CandidateSignals.standalone(3);
        signals.inflight(0, 4);
        signals.publishInflightTokens(0, 5000);
        signals.publishInflightTokens(1, 1001);
        signals.publishEjection(2, 1500.0);
        signals.inflight(2, 9);
        final Selection s = run(plans, signals);
        assertThat(s.dropReason(0)).isEqualTo(DropReason.INFLIGHT);
        assertThat(s.dropReason(1)).isEqualTo(DropReason.INFLIGHT_TOKENS);
        assertThat(s.inflightTokens(1)).isEqualTo(1001);
        assertThat(s.dropReason(2)).isEqualTo(DropReason.EJECTED);
        assertThat(s.ejectedMillisLeft(2)).isEqualTo(1500.0);
        signals.publishEjection(2, NaN);
        signals.inflight(2, 0);
        assertThat(run(plans, signals).selectedIndex()).isEqualTo(2);
    }

    @Test
    void shouldScoreTheSeedFactorsAsBeforeWhenServerSignalsArePublishedButWeighNothing()
    {
        final Plans plans = plans(new double[] { 1, 1, 1, 1, 0, 0 }, SignalCeilings.NONE);
        final CandidateSignals quiet = CandidateSignals.standalone(3);
        final CandidateSignals loud = CandidateSignals.standalone(3);
        for (int i = 0; i < 3; i++)
        {
            quiet.publishLatencyMs(i, 10 + i, NaN);
            loud.publishLatencyMs(i, 10 + i, NaN);
            loud.publishServerLoad(i, 100 - i, 0.1 * i, false);
        }
        final Selection a = run(plans, quiet);
        final Selection b = run(plans, loud);
        for (int i = 0; i < 3; i++)
        {
            assertThat(b.score(i)).isEqualTo(a.score(i));
        }
    }
}
