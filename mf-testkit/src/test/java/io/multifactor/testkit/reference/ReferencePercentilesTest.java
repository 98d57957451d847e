package io.multifactor.testkit.reference;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ReferencePercentilesTest
{
    @Test
    void shouldTakeNearestRankOfSortedSamples()
    {
        final List<Long> oneToHundred = new ArrayList<>();
        for (long i = 100; i >= 1; i--)
        {
            oneToHundred.add(i);
        }
        assertThat(ReferencePercentiles.nearestRank(oneToHundred, 95)).isEqualTo(95L);
        assertThat(ReferencePercentiles.nearestRank(oneToHundred, 1)).isEqualTo(1L);
        assertThat(ReferencePercentiles.nearestRank(oneToHundred, 100)).isEqualTo(100L);
    }

    @Test
    void shouldRoundRankUp()
    {
        final List<Long> samples = List.of(40L, 10L, 30L, 20L);
        assertThat(ReferencePercentiles.nearestRank(samples, 50)).isEqualTo(20L);
        assertThat(ReferencePercentiles.nearestRank(samples, 51)).isEqualTo(30L);
        assertThat(ReferencePercentiles.nearestRank(samples, 95)).isEqualTo(40L);
        assertThat(ReferencePercentiles.nearestRank(samples, 25)).isEqualTo(10L);
        assertThat(ReferencePercentiles.nearestRank(samples, 26)).isEqualTo(20L);
    }

    @Test
    void shouldReturnNullWithoutSamplesAndLeaveInputUnsorted()
    {
        assertThat(ReferencePercentiles.nearestRank(Collections.emptyList(), 95)).isNull();
        final List<Long> samples = new ArrayList<>(List.of(3L, 1L, 2L));
        ReferencePercentiles.nearestRank(samples, 50);
        assertThat(samples).containsExactly(3L, 1L, 2L);
    }
}
