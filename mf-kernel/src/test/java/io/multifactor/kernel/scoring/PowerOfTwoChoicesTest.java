package io.multifactor.kernel.scoring;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.doubles;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

class PowerOfTwoChoicesTest
{
    private static final double[] SPECIAL = {
        0.0, -0.0, 1.0, -1.0, 0.5, Double.MIN_VALUE, -Double.MIN_VALUE, Double.MIN_NORMAL, Double.MAX_VALUE,
        -Double.MAX_VALUE, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.NaN, Math.nextUp(0.5),
        Math.nextDown(0.5), Math.nextUp(1.0), 1e-300, -1e-300 };

    @Test
    void shouldCompareAsTheGreaterThanOperatorOnEverySpecialPair()
    {
        for (final double b : SPECIAL)
        {
            for (final double a : SPECIAL)
            {
                assertThat(PowerOfTwoChoices.greater(b, a)).as("%s > %s", b, a).isEqualTo(b > a ? 1 : 0);
            }
        }
    }

    @Test
    void shouldCompareAsTheGreaterThanOperatorOnAnyTwoDoubles()
    {
        qt().withFixedSeed(31L).withExamples(20_000)
            .forAll(doubles().any(), doubles().any())
            .checkAssert((b, a) -> assertThat(PowerOfTwoChoices.greater(b, a)).as("%s > %s", b, a)
                .isEqualTo(b > a ? 1 : 0));
        qt().withFixedSeed(37L).withExamples(20_000)
            .forAll(doubles().between(0.0, 1.0), integers().between(0, 3))
            .checkAssert((a, ulps) ->
            {
                double b = a;
                for (int i = 0; i < ulps; i++)
                {
                    b = Math.nextUp(b);
                }
                // Scores a few ulps apart, as near ties are.
                assertThat(PowerOfTwoChoices.greater(b, a)).isEqualTo(b > a ? 1 : 0);
                assertThat(PowerOfTwoChoices.greater(a, b)).isEqualTo(a > b ? 1 : 0);
            });
    }

    @Test
    void shouldDrawTwoDistinctRanksUniformlyOverThePairs()
    {
        // The second draw skips the first: every ordered pair of distinct ranks from one step of bits.
        for (int survivors = 2; survivors <= 9; survivors++)
        {
            final int s = survivors;
            final int[][] seen = new int[s][s];
            qt().withFixedSeed(41L + s).withExamples(4_000)
                .forAll(longs().all())
                .checkAssert(bits ->
                {
                    final int a = (int)(((bits >>> 32) * s) >>> 32);
                    final int b0 = (int)(((bits & 0xFFFF_FFFFL) * (s - 1)) >>> 32);
                    int b = b0;
                    b += (a - b - 1) >>> 31;
                    assertThat(b).isEqualTo(b0 >= a ? b0 + 1 : b0).isNotEqualTo(a).isBetween(0, s - 1);
                    seen[a][b]++;
                });
            for (int a = 0; a < s; a++)
            {
                for (int b = 0; b < s; b++)
                {
                    assertThat(seen[a][b] > 0).as("%d survivors, ranks %d and %d", s, a, b).isEqualTo(a != b);
                }
            }
        }
    }
}
