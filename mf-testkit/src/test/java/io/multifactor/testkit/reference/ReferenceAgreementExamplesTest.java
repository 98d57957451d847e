package io.multifactor.testkit.reference;

import io.multifactor.api.DropReason;
import io.multifactor.api.Outcome;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.multifactor.testkit.reference.BothImplementations.assertBoth;
import static io.multifactor.testkit.reference.BothImplementations.model;
import static io.multifactor.testkit.reference.BothImplementations.observed;
import static io.multifactor.testkit.reference.BothImplementations.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** One example per rule of section 4, each run on the reference and on the kernel, which must also agree exactly. */
class ReferenceAgreementExamplesTest
{
    private static final List<ReferenceModel> THREE = List.of(
        model("premium", 0.9, 10.0),
        model("standard", 0.6, 3.0),
        model("economy", 0.2, 0.5));

    private static final Map<String, ReferenceObservation> OBSERVED = Map.of(
        "premium", observed(80.0, 400.0, 9),
        "standard", observed(40.0, 300.0, 2),
        "economy", observed(60.0, 200.0, 5));

    private static ReferenceDecision decision(final double q, final double l, final double c, final double n)
    {
        return ReferenceDecision.withDefaults("d", THREE).withWeights(q, l, c, n);
    }

    @Test
    void shouldPickHighestQualityWhenOnlyQualityWeighs()
    {
        assertBoth(decision(1, 0, 0, 0), request(OBSERVED), r -> assertThat(r.selectedModel()).isEqualTo("premium"));
    }

    @Test
    void shouldPickCheapestWhenOnlyCostWeighs()
    {
        assertBoth(decision(0, 0, 1, 0), request(OBSERVED), r -> assertThat(r.selectedModel()).isEqualTo("economy"));
    }

    @Test
    void shouldPickLeastLoadedWhenOnlyLoadWeighs()
    {
        assertBoth(decision(0, 0, 0, 1), request(OBSERVED), r -> assertThat(r.selectedModel()).isEqualTo("standard"));
    }

    @Test
    void shouldPickFastestTpotWhenOnlyLatencyWeighs()
    {
        assertBoth(decision(0, 1, 0, 0), request(OBSERVED), r -> assertThat(r.selectedModel()).isEqualTo("standard"));
    }

    @Test
    void shouldUseTtftAsLatencyWhenTpotIsNotObserved()
    {
        final Map<String, ReferenceObservation> ttftOnly = Map.of(
            "premium", observed(null, 400.0, 0),
            "standard", observed(null, 300.0, 0),
            "economy", observed(null, 200.0, 0));
        assertBoth(decision(0, 1, 0, 0), request(ttftOnly), r ->
        {
            assertThat(r.selectedModel()).isEqualTo("economy");
            assertThat(r.candidate("standard").normalized().get("latency")).isCloseTo(0.5, within(1e-12));
        });
    }

    @Test
    void shouldDropSlowHighQualityModelAboveTpotCeiling()
    {
        final ReferenceDecision d = decision(1, 0, 0, 0).withCeilings(50.0, 0, 0, 0);
        assertBoth(d, request(OBSERVED), r ->
        {
            assertThat(r.candidate("premium").dropReason()).isEqualTo(DropReason.TPOT);
            assertThat(r.candidate("premium").score()).isNull();
            assertThat(r.candidate("economy").dropReason()).isEqualTo(DropReason.TPOT);
            assertThat(r.outcome()).isEqualTo(Outcome.SCORED);
            assertThat(r.selectedModel()).isEqualTo("standard");
        });
    }

    @Test
    void shouldKeepCandidateExactlyAtCeiling()
    {
        final ReferenceDecision d = decision(1, 0, 0, 0).withCeilings(80.0, 400.0, 10.0, 9);
        assertBoth(d, request(OBSERVED), r ->
        {
            assertThat(r.candidate("premium").survived()).isTrue();
            assertThat(r.selectedModel()).isEqualTo("premium");
        });
    }

    @Test
    void shouldReportFirstBrokenCeilingInOrderTpotTtftCostInflight()
    {
        final ReferenceDecision d = decision(1, 0, 0, 0).withCeilings(70.0, 250.0, 2.0, 4);
        assertBoth(d, request(OBSERVED), r ->
        {
            assertThat(r.candidate("premium").dropReason()).isEqualTo(DropReason.TPOT);
            assertThat(r.candidate("standard").dropReason()).isEqualTo(DropReason.TTFT);
            assertThat(r.candidate("economy").dropReason()).isEqualTo(DropReason.INFLIGHT);
        });
    }

    @Test
    void shouldNeverDropCandidateWithMissingObservation()
    {
        final ReferenceDecision d = decision(1, 0, 0, 0).withCeilings(1.0, 1.0, 0, 0);
        assertBoth(d, request(Map.of()), r ->
        {
            assertThat(r.outcome()).isEqualTo(Outcome.SCORED);
            assertThat(r.candidates()).allMatch(ReferenceCandidate::survived);
        });
    }

    @Test
    void shouldFallBackToCheapestWhenEveryCandidateIsDropped()
    {
        final ReferenceDecision d = decision(1, 0, 0, 0).withCeilings(10.0, 0, 0, 0);
        assertBoth(d, request(OBSERVED), r ->
        {
            assertThat(r.outcome()).isEqualTo(Outcome.FALLBACK_CHEAPEST);
            assertThat(r.selectedModel()).isEqualTo("economy");
            assertThat(r.candidate("economy").dropReason()).isEqualTo(DropReason.TPOT);
            assertThat(r.selectedScore()).isNull();
        });
    }

    @Test
    void shouldNeverLetUnpricedCandidateWinCheapestFallback()
    {
        final List<ReferenceModel> models = List.of(model("free", 0.1, null), model("paid", 0.1, 7.0));
        final ReferenceDecision d = ReferenceDecision.withDefaults("d", models).withCeilings(1.0, 0, 0, 0);
        assertBoth(d, request(Map.of("free", observed(5.0, null, 0), "paid", observed(5.0, null, 0))),
            r -> assertThat(r.selectedModel()).isEqualTo("paid"));
    }

    @Test
    void shouldTreatPriceZeroAsFreeNotMissing()
    {
        final List<ReferenceModel> models = List.of(model("paid", 0.1, 7.0), model("free", 0.1, 0.0));
        final ReferenceDecision costOnly = ReferenceDecision.withDefaults("d", models).withWeights(0, 0, 1, 0);
        assertBoth(costOnly, request(Map.of()), r ->
        {
            assertThat(r.selectedModel()).isEqualTo("free");
            assertThat(r.candidate("free").normalized().get("cost")).isEqualTo(1.0);
        });
        final ReferenceDecision dropped = costOnly.withCeilings(1.0, 0, 0, 0);
        assertBoth(dropped, request(Map.of("paid", observed(5.0, null, 0), "free", observed(5.0, null, 0))),
            r -> assertThat(r.selectedModel()).isEqualTo("free"));
    }

    @Test
    void shouldFallBackToFirstCandidateNotExcluded()
    {
        final ReferenceDecision d = decision(1, 0, 0, 0).withCeilings(10.0, 0, 0, 0).withPolicy(ReferenceDecision.FIRST);
        assertBoth(d, request(OBSERVED), r ->
        {
            assertThat(r.outcome()).isEqualTo(Outcome.FALLBACK_FIRST);
            assertThat(r.selectedModel()).isEqualTo("premium");
        });
        assertBoth(d, request(OBSERVED, "premium"), r -> assertThat(r.selectedModel()).isEqualTo("standard"));
    }

    @Test
    void shouldFailWhenEveryCandidateIsDroppedAndPolicyIsFail()
    {
        final ReferenceDecision d = decision(1, 0, 0, 0).withCeilings(10.0, 0, 0, 0).withPolicy(ReferenceDecision.FAIL);
        assertBoth(d, request(OBSERVED), r ->
        {
            assertThat(r.outcome()).isEqualTo(Outcome.FAILED);
            assertThat(r.selectedModel()).isNull();
            assertThat(r.selectedIndex()).isEqualTo(-1);
        });
    }

    @Test
    void shouldFailWhenEveryCandidateIsExcludedWhateverThePolicy()
    {
        for (final String policy : List.of(ReferenceDecision.CHEAPEST, ReferenceDecision.FIRST, ReferenceDecision.FAIL))
        {
            assertBoth(decision(1, 0, 0, 0).withPolicy(policy), request(OBSERVED, "premium", "standard", "economy"), r ->
            {
                assertThat(r.outcome()).isEqualTo(Outcome.FAILED);
                assertThat(r.candidates()).allMatch(c -> c.dropReason() == DropReason.EXCLUDED);
            });
        }
    }

    @Test
    void shouldNormalizeWeightsFourTwoTwoTwo()
    {
        assertBoth(decision(4, 2, 2, 2), request(OBSERVED), r -> assertThat(r.weights()).isEqualTo(
            Map.of("quality", 0.4, "latency", 0.2, "cost", 0.2, "load", 0.2)));
    }

    @Test
    void shouldUseEqualWeightsWhenAllAreZero()
    {
        assertBoth(decision(0, 0, 0, 0), request(OBSERVED), r -> assertThat(r.weights()).isEqualTo(
            Map.of("quality", 0.25, "latency", 0.25, "cost", 0.25, "load", 0.25)));
    }

    @Test
    void shouldClampNegativeWeightToZero()
    {
        assertBoth(decision(-3, 1, 0, 1), request(OBSERVED), r -> assertThat(r.weights()).isEqualTo(
            Map.of("quality", 0.0, "latency", 0.5, "cost", 0.0, "load", 0.5)));
    }

    @Test
    void shouldScoreSingleCandidateWithHalfOnEveryFactorItHas()
    {
        final ReferenceDecision d = ReferenceDecision.withDefaults("d", List.of(model("only", 0.7, 2.0)));
        assertBoth(d, request(Map.of("only", observed(30.0, null, 3))), r ->
        {
            assertThat(r.selectedModel()).isEqualTo("only");
            assertThat(r.candidate("only").normalized()).containsOnlyKeys("quality", "latency", "cost", "load")
                .allSatisfy((factor, value) -> assertThat(value).isEqualTo(0.5));
            assertThat(r.selectedScore()).isEqualTo(0.5);
        });
    }

    @Test
    void shouldGiveHalfWhenAllSurvivorsShareOneValue()
    {
        final List<ReferenceModel> models = List.of(model("a", 0.5, 1.0), model("b", 0.5, 2.0));
        assertBoth(ReferenceDecision.withDefaults("d", models), request(Map.of()), r ->
        {
            assertThat(r.candidate("a").normalized().get("quality")).isEqualTo(0.5);
            assertThat(r.candidate("b").normalized().get("quality")).isEqualTo(0.5);
            assertThat(r.candidate("a").normalized().get("load")).isEqualTo(0.5);
        });
    }

    @Test
    void shouldGiveZeroForMissingSignalAndNothingForFactorNoSurvivorHas()
    {
        final List<ReferenceModel> models = List.of(model("rated", 0.3, null), model("unrated", null, null));
        assertBoth(ReferenceDecision.withDefaults("d", models).withWeights(1, 1, 1, 0), request(Map.of()), r ->
        {
            assertThat(r.candidate("rated").normalized().get("quality")).isEqualTo(0.5);
            assertThat(r.candidate("unrated").normalized().get("quality")).isEqualTo(0.0);
            assertThat(r.candidate("rated").normalized().get("cost")).isEqualTo(0.0);
            assertThat(r.candidate("rated").normalized().get("latency")).isEqualTo(0.0);
            assertThat(r.selectedModel()).isEqualTo("rated");
        });
    }

    @Test
    void shouldBreakTieInFavourOfEarlierCandidate()
    {
        final List<ReferenceModel> models = List.of(model("x", 0.5, 1.0), model("y", 0.5, 1.0));
        assertBoth(ReferenceDecision.withDefaults("d", models), request(Map.of()), r ->
        {
            assertThat(r.candidate("x").score()).isEqualTo(r.candidate("y").score());
            assertThat(r.selectedModel()).isEqualTo("x");
        });
    }
}
