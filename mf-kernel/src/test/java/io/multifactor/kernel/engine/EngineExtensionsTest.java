package io.multifactor.kernel.engine;

import io.multifactor.api.DropReason;
import io.multifactor.api.Factor;
import io.multifactor.api.LatencyMetric;
import io.multifactor.api.Objective;
import io.multifactor.api.Outcome;
import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.kernel.plan.NoCandidatesPolicy;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import io.multifactor.kernel.plan.TieBreak;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The extensions of the selection (quality floor, latency metric, cost mix and request tokens, lexicographic objective,
 * near ties) on the engine, one edge case per test, through {@link MultiFactorEngine#select(Request, Selection)}.
 */
class EngineExtensionsTest
{
    private static final long SECOND_NS = TimeUnit.SECONDS.toNanos(1);

    private final CachedNanoClock clock = new CachedNanoClock();
    private final Request request = new Request().seed(42L);
    private final Selection out = new Selection();
    private MultiFactorEngine engine;

    @AfterEach
    void close()
    {
        if (engine != null)
        {
            engine.close();
        }
    }

    private MultiFactorEngine engine(final Plans plans)
    {
        clock.update(1_000 * SECOND_NS);
        engine = MultiFactorEngine.builder(plans).clock(clock).build();
        return engine;
    }

    private Selection select(final String decision)
    {
        engine.select(request.decision(engine.decisionId(decision)), out);
        return out;
    }

    private String selected()
    {
        return out.hasSelection() ? engine.plans().modelName(out.selectedModel()) : null;
    }

    private static PlansBuilder threeModels()
    {
        return new PlansBuilder()
            .model("premium", 0.9, 10.0, 30.0)
            .model("standard", 0.6, 3.0, 4.0)
            .model("economy", Double.NaN, 0.5, Double.NaN);
    }

    @Test
    void shouldDropBelowTheFloorAndWithoutQualityScoreButKeepTheFloorItself()
    {
        engine(threeModels().decision("d").candidates("premium", "standard", "economy").minQuality(0.6).add().build());
        select("d");
        assertThat(out.dropReason(0)).isEqualTo(DropReason.NONE);
        assertThat(out.dropReason(1)).as("0.6 is not below 0.6").isEqualTo(DropReason.NONE);
        assertThat(out.dropReason(2)).as("no quality_score").isEqualTo(DropReason.QUALITY);
        assertThat(out.score(2)).isNaN();
    }

    @Test
    void shouldKeepAModelWithoutQualityScoreWhenThereIsNoFloor()
    {
        engine(threeModels().decision("d").candidates("premium", "standard", "economy").add().build());
        select("d");
        assertThat(out.dropReason(2)).isEqualTo(DropReason.NONE);
    }

    @Test
    void shouldCheckTheFloorBeforeTheTpotCeiling()
    {
        engine(threeModels().decision("d").candidates("standard", "premium").minQuality(0.7)
            .slo(100.0, 0.0, 0.0, 0).add().build());
        engine.recordTpotMs(engine.modelId("standard"), 500.0);
        engine.refreshNow();
        select("d");
        assertThat(out.dropReason(0)).isEqualTo(DropReason.QUALITY);
        assertThat(selected()).isEqualTo("premium");
    }

    @Test
    void shouldFallBackToTheCheapestWhenTheFloorDropsEveryone()
    {
        engine(threeModels().decision("d").candidates("premium", "standard", "economy").minQuality(0.95).add().build());
        select("d");
        assertThat(out.outcome()).isEqualTo(Outcome.FALLBACK_CHEAPEST);
        assertThat(selected()).isEqualTo("economy");
        assertThat(out.dropReason(2)).isEqualTo(DropReason.QUALITY);
    }

    @Test
    void shouldReadOnlyTheMetricTheDecisionNames()
    {
        final Plans plans = threeModels()
            .decision("auto").candidates("premium", "standard").add()
            .decision("tpot").candidates("premium", "standard").latencyMetric(LatencyMetric.TPOT).add()
            .decision("ttft").candidates("premium", "standard").latencyMetric(LatencyMetric.TTFT).add()
            .build();
        engine(plans);
        engine.recordTpotMs(engine.modelId("premium"), 40.0);
        engine.recordTtftMs(engine.modelId("premium"), 900.0);
        engine.recordTtftMs(engine.modelId("standard"), 300.0);
        engine.refreshNow();

        select("auto");
        assertThat(out.latencyMs(0)).isCloseTo(40.0, within(0.5));
        assertThat(out.latencyMs(1)).isCloseTo(300.0, within(3.0));
        select("tpot");
        assertThat(out.latencyMetric()).isEqualTo(LatencyMetric.TPOT);
        assertThat(out.latencyMs(1)).as("standard has no TPOT sample").isNaN();
        assertThat(out.normalized(1, Factor.LATENCY)).isZero();
        assertThat(out.normalized(0, Factor.LATENCY)).isEqualTo(0.5);
        select("ttft");
        assertThat(out.latencyMs(0)).isCloseTo(900.0, within(9.0));
        assertThat(out.normalized(0, Factor.LATENCY)).isZero();
        assertThat(out.normalized(1, Factor.LATENCY)).isEqualTo(1.0);
    }

    @Test
    void shouldPriceByTheMixAndLeaveCostMissingWithoutAPriceItNeeds()
    {
        engine(threeModels().decision("d").candidates("premium", "standard", "economy").costMix(3, 1)
            .weights(0, 0, 1, 0).add().build());
        select("d");
        assertThat(out.costPer1M(0)).isCloseTo((3 * 10.0 + 30.0) / 4, within(1e-12));
        assertThat(out.costPer1M(1)).isCloseTo((3 * 3.0 + 4.0) / 4, within(1e-12));
        assertThat(out.costPer1M(2)).as("economy has no completion price").isNaN();
        assertThat(out.normalized(2, Factor.COST)).isZero();
        assertThat(selected()).isEqualTo("standard");
    }

    @Test
    void shouldApplyTheCostCeilingToTheMixedCost()
    {
        // Prompt prices 10 and 3 are both under 5.5 only for standard; mixed 3:1 premium costs 15, standard 3.25.
        engine(threeModels().decision("d").candidates("premium", "standard").costMix(3, 1)
            .slo(0.0, 0.0, 5.5, 0).add().build());
        select("d");
        assertThat(out.dropReason(0)).isEqualTo(DropReason.COST);
        assertThat(out.dropReason(1)).isEqualTo(DropReason.NONE);
    }

    @Test
    void shouldFallBackToTheCheapestByTheMixedCost()
    {
        // By prompt price alone, economy (0.5) is cheapest; mixed, it has no cost and never wins over a priced one.
        engine(threeModels().decision("d").candidates("premium", "standard", "economy").costMix(1, 1)
            .minQuality(0.99).add().build());
        select("d");
        assertThat(out.outcome()).isEqualTo(Outcome.FALLBACK_CHEAPEST);
        assertThat(selected()).isEqualTo("standard");
    }

    @Test
    void shouldLetTheRequestsTokenCountsReplaceTheMix()
    {
        engine(threeModels().decision("d").candidates("premium", "standard").costMix(1, 0).add().build());
        select("d");
        assertThat(out.costPer1M(0)).isEqualTo(10.0);

        request.promptTokens(1_000).maxOutputTokens(3_000);
        select("d");
        assertThat(out.costPer1M(0)).isCloseTo((1_000 * 10.0 + 3_000 * 30.0) / 4_000, within(1e-12));

        request.clear().maxOutputTokens(500);
        select("d");
        assertThat(out.costPer1M(0)).as("a count not given is 0: completion price only").isEqualTo(30.0);

        request.clear().promptTokens(0).maxOutputTokens(0);
        select("d");
        assertThat(out.costPer1M(0)).as("both 0: the decision's mix").isEqualTo(10.0);
    }

    @Test
    void shouldKeepEveryCandidateWithinToleranceFactorByFactorAndNameTheEliminatingFactor()
    {
        // quality 0.9 / 0.6 / 0.88 -> normalized 1 / 0 / 0.9333; tolerance 0.1 keeps premium and pro.
        final Plans plans = new PlansBuilder()
            .model("premium", 0.9, 10.0).model("standard", 0.6, 3.0).model("pro", 0.88, 2.0)
            .decision("d").candidates("premium", "standard", "pro").weights(0, 0, 0, 1)
            .lexicographic(0.1, Factor.QUALITY, Factor.COST).add()
            .build();
        engine(plans);
        select("d");
        assertThat(out.objective()).isEqualTo(Objective.LEXICOGRAPHIC);
        assertThat(out.eliminatedBy(1)).isEqualTo(Factor.QUALITY);
        assertThat(out.eliminatedBy(0)).as("premium is dearer than pro").isEqualTo(Factor.COST);
        assertThat(out.eliminatedBy(2)).isEqualTo(Selection.NOT_ELIMINATED);
        assertThat(selected()).isEqualTo("pro");
        assertThat(out.score(0)).as("score = first priority factor").isEqualTo(1.0);
        assertThat(out.score(1)).isEqualTo(0.0);
        assertThat(out.selectedScore()).isCloseTo(0.28 / 0.3, within(1e-12));
    }

    @Test
    void shouldPickTheEarliestFinalistWhenTheyTie()
    {
        final Plans plans = new PlansBuilder()
            .model("a", 0.5, 1.0).model("b", 0.9, 1.0).model("c", 0.9, 1.0)
            .decision("d").candidates("a", "b", "c").lexicographic(0.0, Factor.QUALITY, Factor.COST).add()
            .build();
        engine(plans);
        select("d");
        assertThat(selected()).isEqualTo("b");
        assertThat(out.eliminatedBy(0)).isEqualTo(Factor.QUALITY);
        assertThat(out.eliminatedBy(2)).isEqualTo(Selection.NOT_ELIMINATED);
    }

    @Test
    void shouldTreatEverySurvivorWithinTheBandAsTied()
    {
        // Quality only: scores 1, 0.9, 0 with band 0.15: premium and pro tie, standard does not.
        final Plans plans = new PlansBuilder()
            .model("standard", 0.0, 1.0).model("premium", 1.0, 1.0).model("pro", 0.9, 1.0)
            .decision("first").candidates("standard", "premium", "pro").weights(1, 0, 0, 0).tieBand(0.15).add()
            .decision("random").candidates("standard", "premium", "pro").weights(1, 0, 0, 0).tieBand(0.15)
            .tieBreak(TieBreak.RANDOM).add()
            .build();
        engine(plans);
        select("first");
        assertThat(selected()).as("earliest tied").isEqualTo("premium");
        int premium = 0;
        int pro = 0;
        for (int i = 0; i < 10_000; i++)
        {
            select("random");
            assertThat(selected()).isNotEqualTo("standard");
            premium += "premium".equals(selected()) ? 1 : 0;
            pro += "pro".equals(selected()) ? 1 : 0;
        }
        assertThat(premium + pro).isEqualTo(10_000);
        assertThat(premium).isBetween(4_500, 5_500);
    }

    @Test
    void shouldDrawTheSameSequenceFromTheSameSeed()
    {
        final Plans plans = new PlansBuilder()
            .model("a", 0.5, 1.0).model("b", 0.5, 1.0).model("c", 0.5, 1.0)
            .decision("d").candidates("a", "b", "c").tieBreak(TieBreak.RANDOM).add()
            .build();
        engine(plans);
        final int[] first = new int[50];
        request.seed(7L);
        for (int i = 0; i < first.length; i++)
        {
            first[i] = select("d").selectedIndex();
        }
        request.seed(7L);
        for (int i = 0; i < first.length; i++)
        {
            assertThat(select("d").selectedIndex()).isEqualTo(first[i]);
        }
    }

    /**
     * {@code tie_break: random} over exactly tied candidates: 100,000 draws per tie size, each candidate within 2% of
     * its share, and Pearson's chi-square below the 0.1% critical value, at a fixed seed.
     */
    @Test
    void shouldSpreadRandomTieBreaksUniformly()
    {
        final double[] critical = { 0.0, 10.828, 13.816, 16.266, 18.467 };
        final PlansBuilder builder = new PlansBuilder();
        for (int m = 0; m < 5; m++)
        {
            builder.model("m" + m, 0.5, 1.0);
        }
        for (int k = 2; k <= 5; k++)
        {
            final String[] names = new String[k];
            for (int m = 0; m < k; m++)
            {
                names[m] = "m" + m;
            }
            builder.decision("tied" + k).candidates(names).tieBreak(TieBreak.RANDOM).add();
        }
        engine(builder.build());
        request.seed(20261130L);
        final int draws = 100_000;
        for (int k = 2; k <= 5; k++)
        {
            final long[] counts = new long[k];
            for (int i = 0; i < draws; i++)
            {
                counts[select("tied" + k).selectedIndex()]++;
            }
            final double expected = (double)draws / k;
            double chiSquare = 0.0;
            for (final long count : counts)
            {
                chiSquare += (count - expected) * (count - expected) / expected;
                assertThat(Math.abs(count - expected) / expected).as(k + " tied: " + java.util.Arrays.toString(counts))
                    .isLessThanOrEqualTo(0.02);
            }
            assertThat(chiSquare).as(k + " tied: chi-square").isLessThan(critical[k - 1]);
        }
    }

    @Test
    void shouldKeepTheOldSelectWorkingWithoutARequest()
    {
        final Plans plans = threeModels().decision("d").candidates("premium", "standard", "economy")
            .costMix(1, 1).policy(NoCandidatesPolicy.FIRST).add().build();
        engine(plans);
        engine.select(engine.decisionId("d"), null, out);
        assertThat(out.outcome()).isEqualTo(Outcome.SCORED);
        assertThat(out.costPer1M(0)).isEqualTo(20.0);
    }

    /**
     * The contract's rule (per factor, {@code best} over the candidates still in) does not make the finalists grow with
     * the tolerance once the priority has two factors: a wider first cut can let in a candidate that raises the best of
     * the second factor and eliminates an earlier finalist.
     */
    @Test
    void shouldLetAWiderToleranceReplaceAFinalistWhenTheSecondFactorDecides()
    {
        // a: best quality, dear; b: quality normalized 0.9, cheap; c: worst quality.
        final Plans plans = new PlansBuilder()
            .model("a", 1.0, 10.0).model("b", 0.9, 1.0).model("c", 0.0, 5.0)
            .decision("narrow").candidates("a", "b", "c").lexicographic(0.0, Factor.QUALITY, Factor.COST).add()
            .decision("wide").candidates("a", "b", "c").lexicographic(0.2, Factor.QUALITY, Factor.COST).add()
            .build();
        engine(plans);
        select("narrow");
        assertThat(selected()).isEqualTo("a");
        assertThat(out.eliminatedBy(1)).isEqualTo(Factor.QUALITY);
        select("wide");
        assertThat(selected()).isEqualTo("b");
        assertThat(out.eliminatedBy(0)).as("a was a finalist at tolerance 0").isEqualTo(Factor.COST);
    }

    @Test
    void shouldAllocateNothingWithEveryExtensionOn()
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)java.lang.management.ManagementFactory.getThreadMXBean();
        final Plans plans = threeModels()
            .decision("lex").candidates("premium", "standard", "economy").minQuality(0.1).costMix(3, 1)
            .latencyMetric(LatencyMetric.TTFT).lexicographic(0.1, Factor.QUALITY, Factor.LATENCY, Factor.COST)
            .tieBreak(TieBreak.RANDOM).add()
            .decision("band").candidates("premium", "standard", "economy").minQuality(0.1).costMix(1, 1)
            .latencyMetric(LatencyMetric.TPOT).tieBand(0.5).tieBreak(TieBreak.RANDOM).add()
            .build();
        engine(plans);
        for (final String model : new String[] { "premium", "standard", "economy" })
        {
            engine.recordTpotMs(engine.modelId(model), 30.0);
            engine.recordTtftMs(engine.modelId(model), 300.0);
        }
        engine.refreshNow();
        request.promptTokens(1_000).maxOutputTokens(200).exclude(engine.modelId("economy"));
        final int lex = engine.decisionId("lex");
        final int band = engine.decisionId("band");
        long sink = 0;
        for (int round = 0; round < 3; round++)
        {
            final long before = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
            for (int i = 0; i < 100_000; i++)
            {
                engine.select(request.decision((i & 1) == 0 ? lex : band), out);
                sink += out.selectedIndex();
            }
            final long allocated = threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - before;
            if (round == 2)
            {
                assertThat(allocated).as("bytes over 100,000 selections").isLessThan(1_024L);
            }
        }
        assertThat(sink).isPositive();
    }

    @Test
    void shouldReserveFinalistsFirstThenTheLaterEliminated()
    {
        // Quality normalized 1 / 0.95 / 0: tolerance 0.1 keeps a and b; b is cheaper. Order: b, a (cost), c (quality).
        final Plans plans = new PlansBuilder()
            .model("a", 1.0, 10.0).model("b", 0.95, 1.0).model("c", 0.0, 5.0)
            .decision("d").candidates("a", "b", "c").slo(0.0, 0.0, 0.0, 1)
            .lexicographic(0.1, Factor.QUALITY, Factor.COST).policy(NoCandidatesPolicy.FAIL).add()
            .build();
        engine(plans);
        request.decision(engine.decisionId("d"));
        final long first = engine.selectAndBegin(request, out);
        assertThat(selected()).isEqualTo("b");
        final long second = engine.selectAndBegin(request, out);
        assertThat(selected()).as("eliminated by cost, the later factor").isEqualTo("a");
        final long third = engine.selectAndBegin(request, out);
        assertThat(selected()).isEqualTo("c");
        assertThat(engine.selectAndBegin(request, out)).isEqualTo(MultiFactorEngine.NO_LEASE);
        assertThat(out.outcome()).isEqualTo(Outcome.FAILED);
        engine.end(first);
        engine.end(second);
        engine.end(third);
    }
}
