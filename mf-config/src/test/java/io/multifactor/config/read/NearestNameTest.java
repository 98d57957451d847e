package io.multifactor.config.read;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.strings;

class NearestNameTest
{
    private static final List<String> ROOT_KEYS = List.of("models", "decisions", "signals");
    private static final List<String> MODEL_KEYS = List.of("name", "quality_score", "pricing");
    private static final List<String> DECISION_KEYS = List.of("name", "modelRefs", "algorithm");
    private static final List<String> SLO_KEYS = List.of("max_tpot_ms", "max_ttft_ms", "max_cost_per_1m", "max_inflight");
    private static final List<String> SIGNALS_KEYS = List.of("latency_window", "latency_refresh", "inflight_max_age");
    private static final List<String> MULTI_FACTOR_KEYS =
        List.of("weights", "slo", "latency_percentile", "on_no_candidates");

    @Test
    void shouldSuggestTheLongKeyWhoseStartIsMisspelt()
    {
        assertThat(NearestName.of("qualty", MODEL_KEYS)).isEqualTo("quality_score");
        assertThat(NearestName.of("pricng", MODEL_KEYS)).isEqualTo("pricing");
    }

    @Test
    void shouldSuggestTheKeyATruncatedKeyStarts()
    {
        assertThat(NearestName.of("max_tpot", SLO_KEYS)).isEqualTo("max_tpot_ms");
        assertThat(NearestName.of("max_ttft", SLO_KEYS)).isEqualTo("max_ttft_ms");
        assertThat(NearestName.of("max_cost", SLO_KEYS)).isEqualTo("max_cost_per_1m");
    }

    @Test
    void shouldStillPreferTheSmallestEditDistance()
    {
        assertThat(NearestName.of("nam", MODEL_KEYS)).isEqualTo("name");
        assertThat(NearestName.of("NAME", MODEL_KEYS)).isEqualTo("name");
        assertThat(NearestName.of("lod", List.of("quality", "latency", "cost", "load"))).isEqualTo("load");
        assertThat(NearestName.of("arrivals_per_sec", List.of("arrivals_per_s", "seed"))).isEqualTo("arrivals_per_s");
    }

    @Test
    void shouldStillSuggestRealTypos()
    {
        assertThat(NearestName.of("decisons", ROOT_KEYS)).isEqualTo("decisions");
        assertThat(NearestName.of("model", ROOT_KEYS)).isEqualTo("models");
        assertThat(NearestName.of("modelrefs", DECISION_KEYS)).isEqualTo("modelRefs");
        assertThat(NearestName.of("algoritm", DECISION_KEYS)).isEqualTo("algorithm");
        assertThat(NearestName.of("latency_precentile", MULTI_FACTOR_KEYS)).isEqualTo("latency_percentile");
        assertThat(NearestName.of("on_no_candidate", MULTI_FACTOR_KEYS)).isEqualTo("on_no_candidates");
        assertThat(NearestName.of("weigths", MULTI_FACTOR_KEYS)).isEqualTo("weights");
        assertThat(NearestName.of("latency_windw", SIGNALS_KEYS)).isEqualTo("latency_window");
        assertThat(NearestName.of("max_inflght", SLO_KEYS)).isEqualTo("max_inflight");
    }

    @Test
    void shouldCountASwapOfTwoAdjacentCharactersAsOneEdit()
    {
        assertThat(NearestName.of("tpye", List.of("type", "multi_factor"))).isEqualTo("type");
        assertThat(NearestName.distance("tpye", "type")).isEqualTo(1);
        assertThat(NearestName.distance("ab", "ba")).isEqualTo(1);
    }

    @Test
    void shouldNotSuggestANameThatOnlySharesAFewLettersWithTheMistake()
    {
        // The mistakes of issue 10, item 4: each used to get the nearest name, however far.
        assertThat(NearestName.of("version", ROOT_KEYS)).isNull();
        assertThat(NearestName.of("description", DECISION_KEYS)).isNull();
        assertThat(NearestName.of("rules", DECISION_KEYS)).isNull();
        assertThat(NearestName.of("rules", MODEL_KEYS)).isNull();
        assertThat(NearestName.of("duration_s", ROOT_KEYS)).isNull();
        assertThat(NearestName.of("duration_s", SIGNALS_KEYS)).isNull();
    }

    @Test
    void shouldNeverSuggestForAOneOrTwoLetterOverlap()
    {
        assertThat(NearestName.of("c", List.of("a", "b"))).isNull();
        assertThat(NearestName.of("a", List.of("algorithm"))).isNull();
        assertThat(NearestName.of("na", MODEL_KEYS)).isNull();
        assertThat(NearestName.of("zz", List.of("a"))).isNull();
        assertThat(NearestName.of("ma", SLO_KEYS)).isNull();
    }

    @Test
    void shouldSuggestOnlyWithinAThirdOfTheLongerName()
    {
        // "lodx" is 2 edits from "load" (4 letters: a third is 1): too far.
        assertThat(NearestName.of("lodx", List.of("load"))).isNull();
        // "weight" is 1 edit from "weights" (7 letters: a third is 2).
        assertThat(NearestName.of("weight", List.of("weights"))).isEqualTo("weights");
        // "wieghtz" is 2 edits (a swap and a substitution) from "weights".
        assertThat(NearestName.of("wieghtz", List.of("weights"))).isEqualTo("weights");
        assertThat(NearestName.of("wxyghtz", List.of("weights"))).isNull();
    }

    @Test
    void shouldHaveNoSuggestionWithoutValidNames()
    {
        assertThat(NearestName.of("x", List.of())).isNull();
        assertThat(NearestName.suggestion("x", List.of())).isEmpty();
        assertThat(NearestName.suggestion("decisons", ROOT_KEYS)).isEqualTo(" (did you mean decisions?)");
    }

    @Test
    void shouldNotCompareNamesLongerThanTheCap()
    {
        final String huge = "decisions".repeat(100_000);
        assertThat(NearestName.of(huge, ROOT_KEYS)).isNull();
        assertThat(NearestName.of("decisions", List.of(huge))).isNull();
        final String justUnderCap = "x".repeat(NearestName.MAX_COMPARED_LENGTH - 1) + "a";
        assertThat(NearestName.of(justUnderCap, List.of("x".repeat(NearestName.MAX_COMPARED_LENGTH)))).isNotNull();
    }

    @Test
    void shouldStopABoundedDistanceAtItsLimit()
    {
        final String a = "a".repeat(NearestName.MAX_COMPARED_LENGTH);
        final String b = "b".repeat(NearestName.MAX_COMPARED_LENGTH);
        assertThat(NearestName.distance(a, b, 3)).isEqualTo(4);
        assertThat(NearestName.distance(a, b)).isEqualTo(NearestName.MAX_COMPARED_LENGTH);
        assertThat(NearestName.distance("abc", "abcdefgh", 2)).isEqualTo(3);
    }

    @Test
    void shouldAgreeWithTheUnboundedDistanceWithinTheLimit()
    {
        qt().withFixedSeed(10L).withExamples(2_000)
            .forAll(strings().betweenCodePoints('a', 'd').ofLengthBetween(0, 12),
                strings().betweenCodePoints('a', 'd').ofLengthBetween(0, 12),
                integers().between(0, 13))
            .checkAssert((a, b, limit) ->
            {
                final int exact = NearestName.distance(a, b);
                assertThat(NearestName.distance(a, b, limit)).isEqualTo(Math.min(exact, limit + 1));
                assertThat(exact).isEqualTo(naiveOsa(a, b));
            });
    }

    @Test
    void shouldCountPrefixNearnessAsOneMoreThanThePrefixDistance()
    {
        assertThat(NearestName.nearness("qualty", "quality_score")).isEqualTo(2);
        assertThat(NearestName.nearness("qualty", "name")).isEqualTo(5);
        assertThat(NearestName.nearness("name", "name")).isZero();
    }

    /** The textbook full-table optimal string alignment distance, as the reference. */
    private static int naiveOsa(final String a, final String b)
    {
        final int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++)
        {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++)
        {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++)
        {
            for (int j = 1; j <= b.length(); j++)
            {
                final int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1))
                {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }
}
