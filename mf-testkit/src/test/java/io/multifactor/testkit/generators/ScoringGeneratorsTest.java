package io.multifactor.testkit.generators;

import io.multifactor.api.Factor;
import io.multifactor.api.Outcome;
import io.multifactor.testkit.reference.ReferenceCandidate;
import io.multifactor.testkit.reference.ReferenceDecision;
import io.multifactor.testkit.reference.ReferenceModel;
import io.multifactor.testkit.reference.ReferenceObservation;
import io.multifactor.testkit.reference.ReferenceResult;
import io.multifactor.testkit.reference.ReferenceScorer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;

/** The generators really produce the edge cases they promise, and only valid configuration. */
class ScoringGeneratorsTest
{
    private static final int CASES = 2_000;

    @Test
    void shouldCoverEveryEdgeCaseOfSectionFour()
    {
        final Set<String> seen = new HashSet<>();
        qt().withFixedSeed(7L).withExamples(CASES).forAll(ScoringGenerators.cases()).checkAssert(c ->
        {
            final ReferenceDecision d = c.decision();
            final int n = c.candidateCount();
            assertThat(n).isBetween(1, ScoringGenerators.MAX_CANDIDATES);
            seen.add("policy " + d.policy());
            if (n == 1)
            {
                seen.add("one candidate");
            }
            if (n == ScoringGenerators.MAX_CANDIDATES)
            {
                seen.add("64 candidates");
            }
            boolean allNonPositive = true;
            for (int f = 0; f < Factor.SEED_COUNT; f++)
            {
                final double weight = d.weight(f);
                seen.add(weight == 0.0 ? "zero weight" : weight < 0.0 ? "negative weight" : "positive weight");
                allNonPositive &= weight <= 0.0;
            }
            if (allNonPositive)
            {
                seen.add("no positive weight");
            }

            final List<Double> quality = new ArrayList<>();
            final List<Double> prices = new ArrayList<>();
            final List<Double> latencies = new ArrayList<>();
            for (final ReferenceModel model : d.candidates())
            {
                quality.add(model.quality());
                prices.add(model.promptPer1M());
                final ReferenceObservation o = c.request().observation(model.name());
                latencies.add(o.tpotMs() != null ? o.tpotMs() : o.ttftMs());
                assertThat(o.inflight()).isNotNegative();
                for (final Double value : List.of(
                    orZero(model.quality()), orZero(model.promptPer1M()), orZero(o.tpotMs()), orZero(o.ttftMs())))
                {
                    assertThat(value).isFinite().isGreaterThanOrEqualTo(0.0);
                    if (value > 0 && value < 1e-300)
                    {
                        seen.add("tiny value");
                    }
                    if (value > 1e300)
                    {
                        seen.add("huge value");
                    }
                }
                if (Objects.equals(model.promptPer1M(), 0.0))
                {
                    seen.add("price 0");
                }
            }
            if (n > 1 && allEqualAndPresent(quality))
            {
                seen.add("all qualities equal");
            }
            if (n > 1 && allEqualAndPresent(latencies))
            {
                seen.add("all latencies equal");
            }
            if (quality.stream().allMatch(Objects::isNull))
            {
                seen.add("no quality at all");
            }
            if (prices.contains(null) && prices.stream().anyMatch(Objects::nonNull))
            {
                seen.add("some prices missing");
            }

            final ReferenceResult r = ReferenceScorer.select(c);
            if (c.request().excluded().size() == n)
            {
                seen.add("every candidate excluded");
            }
            else if (r.outcome() != Outcome.SCORED)
            {
                seen.add("every candidate dropped");
            }
            else if (r.candidates().stream().anyMatch(x -> !x.survived()))
            {
                seen.add("some candidates dropped");
            }
            if (r.candidates().stream().filter(ReferenceCandidate::survived).count() > 1 && ties(r))
            {
                seen.add("tied best score");
            }
        });
        assertThat(seen).contains(
            "one candidate", "64 candidates", "zero weight", "negative weight", "positive weight", "no positive weight",
            "tiny value", "huge value", "price 0", "all qualities equal", "all latencies equal", "no quality at all",
            "some prices missing", "every candidate excluded", "every candidate dropped", "some candidates dropped",
            "tied best score", "policy cheapest", "policy first", "policy fail");
    }

    @Test
    void shouldGenerateNoSurvivorCases()
    {
        qt().withFixedSeed(11L).withExamples(500).forAll(ScoringGenerators.casesWithoutSurvivor()).checkAssert(c ->
        {
            final ReferenceResult r = ReferenceScorer.select(c);
            assertThat(r.outcome()).isNotEqualTo(Outcome.SCORED);
        });
    }

    private static double orZero(final Double value)
    {
        return value == null ? 0.0 : value;
    }

    private static boolean allEqualAndPresent(final List<Double> values)
    {
        return values.get(0) != null && values.stream().allMatch(values.get(0)::equals);
    }

    private static boolean ties(final ReferenceResult r)
    {
        return r.candidates().stream().filter(x -> Objects.equals(x.score(), r.selectedScore())).count() > 1;
    }
}
