package io.multifactor.testkit.reference;

import io.multifactor.api.Outcome;
import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.scoring.CandidateSignals;
import io.multifactor.kernel.scoring.ScoringKernel;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

/**
 * {@code pick: p2c} in the kernel against the oracle's {@link ReferenceScorer#p2cProbabilities}: on random decisions (2 to 8 candidates, random
 * quality scores with ties, so that scores tie too), it never picks the survivor with the unique lowest score; and on
 * fixed decisions its choice frequencies over 100,000 draws match the exact distribution {@code beats(i) / C(s, 2)}
 * (Pearson's chi-square below the 0.999 quantile of its degrees of freedom, so a correct kernel fails about once in a
 * thousand seeds; the seeds are fixed).
 */
class PowerOfTwoPropertiesTest
{
    // The 0.999 quantiles of chi-square with 1..7 degrees of freedom.
    private static final double[] CHI_SQUARE_999 = { 10.828, 13.816, 16.266, 18.467, 20.515, 22.458, 24.322 };
    private static final int DRAWS = 100_000;

    private static DecisionPlan plan(final List<Integer> qualities)
    {
        final List<ReferenceModel> models = new ArrayList<>();
        for (int i = 0; i < qualities.size(); i++)
        {
            models.add(new ReferenceModel("m" + i, qualities.get(i) / 10.0, 1.0));
        }
        final Plans plans = KernelAdapter.plans(new ReferenceDecision("d", models, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0L,
            95, ReferenceDecision.CHEAPEST).withExtensions(ReferenceExtensions.NONE.withPick("p2c")));
        return plans.decision(plans.decisionId("d"));
    }

    @Test
    void shouldNeverPickTheUniqueLowestScore()
    {
        final int[] checked = new int[1];
        qt().withFixedSeed(23L).withExamples(300)
            .forAll(lists().of(integers().between(0, 5)).ofSizeBetween(2, 8), integers().between(0, 1_000_000))
            .checkAssert((qualities, seed) ->
            {
                final DecisionPlan plan = plan(qualities);
                final CandidateSignals signals = CandidateSignals.standalone(qualities.size());
                final Selection out = new Selection(qualities.size());
                final Request request = new Request().seed(seed);
                int lowest = -1;
                int lowestCount = 0;
                for (int i = 0; i < qualities.size(); i++)
                {
                    if (lowest < 0 || qualities.get(i) < qualities.get(lowest))
                    {
                        lowest = i;
                        lowestCount = 1;
                    }
                    else if (qualities.get(i).equals(qualities.get(lowest)))
                    {
                        lowestCount++;
                    }
                }
                for (int k = 0; k < 50; k++)
                {
                    ScoringKernel.select(plan, signals, null, request, out);
                    assertThat(out.outcome()).isEqualTo(Outcome.SCORED);
                    if (lowestCount == 1)
                    {
                        assertThat(out.selectedIndex()).as("qualities %s", qualities).isNotEqualTo(lowest);
                        checked[0]++;
                    }
                }
            });
        System.out.println("PowerOfTwoPropertiesTest: " + checked[0] + " p2c picks with a unique lowest score, none " +
            "picked it");
        assertThat(checked[0]).isPositive();
    }

    @Test
    void shouldMatchTheExactDistributionOverAHundredThousandDraws()
    {
        final List<List<Integer>> decisions = List.of(List.of(9, 1), List.of(1, 5, 9), List.of(5, 5, 2, 8),
            List.of(3, 7, 7, 1, 9, 4, 4, 6));
        for (final List<Integer> qualities : decisions)
        {
            final DecisionPlan plan = plan(qualities);
            final int n = qualities.size();
            final CandidateSignals signals = CandidateSignals.standalone(n);
            final Selection out = new Selection(n);
            final Request request = new Request().seed(31L * n);
            final long[] picks = new long[n];
            final double[] scores = new double[n];
            for (int k = 0; k < DRAWS; k++)
            {
                ScoringKernel.select(plan, signals, null, request, out);
                picks[out.selectedIndex()]++;
            }
            for (int i = 0; i < n; i++)
            {
                scores[i] = out.score(i);
            }
            final double[] expected = ReferenceScorer.p2cProbabilities(scores);
            double chiSquare = 0.0;
            int categories = 0;
            for (int i = 0; i < n; i++)
            {
                final double e = expected[i] * DRAWS;
                if (e == 0.0)
                {
                    assertThat(picks[i]).as("a candidate that beats nobody is never picked").isZero();
                    continue;
                }
                chiSquare += (picks[i] - e) * (picks[i] - e) / e;
                categories++;
            }
            if (categories == 1)
            {
                // Two survivors: the better one wins every draw, exactly as expected.
                assertThat(chiSquare).isZero();
                continue;
            }
            System.out.printf("PowerOfTwoPropertiesTest: qualities %s, %d draws, chi-square %.2f with %d degrees of " +
                "freedom (0.999 quantile %.2f)%n", qualities, DRAWS, chiSquare, categories - 1,
                CHI_SQUARE_999[categories - 2]);
            assertThat(chiSquare).as("qualities %s", qualities).isLessThan(CHI_SQUARE_999[categories - 2]);
        }
    }
}
