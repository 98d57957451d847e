package io.multifactor.config.read;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class NearestNameTest
{
    private static final List<String> MODEL_KEYS = List.of("name", "quality_score", "pricing");
    private static final List<String> SLO_KEYS = List.of("max_tpot_ms", "max_ttft_ms", "max_cost_per_1m", "max_inflight");

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
    void shouldHaveNoSuggestionWithoutValidNames()
    {
        assertThat(NearestName.of("x", List.of())).isNull();
    }

    @Test
    void shouldCountPrefixNearnessAsOneMoreThanThePrefixDistance()
    {
        assertThat(NearestName.nearness("qualty", "quality_score")).isEqualTo(2);
        assertThat(NearestName.nearness("qualty", "name")).isEqualTo(5);
        assertThat(NearestName.nearness("name", "name")).isZero();
    }
}
