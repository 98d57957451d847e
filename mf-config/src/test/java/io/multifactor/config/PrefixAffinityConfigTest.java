package io.multifactor.config;

import io.multifactor.api.ConfigProblem;
import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.config.model.ModelConfig;
import io.multifactor.config.model.PrefixAffinityConfig;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

class PrefixAffinityConfigTest
{
    private static final String DECISIONS = String.join("\n",
        "decisions:",
        "  - name: d",
        "    modelRefs:",
        "      - model: a",
        "");

    @Test
    void shouldReadEveryKey() throws Exception
    {
        final LoadedConfig loaded = ConfigLoader.load("c.yaml", String.join("\n",
            "models:",
            "  - name: a",
            "    backend_refs: [{endpoint: 127.0.0.1:8000}]",
            "    prefix_affinity:",
            "      block_bytes: 64",
            "      min_match: 0.25",
            "      max_ttft_penalty: 500ms",
            "      prefill_tokens_per_s: 2500",
            "      capacity_blocks: 1000",
            "") + DECISIONS, null);
        assertThat(loaded.config().models().get(0).prefixAffinity())
            .isEqualTo(new PrefixAffinityConfig(64, 0.25, 500_000_000L, 2500, 1000));
    }

    @Test
    void shouldFillDefaultsAndStayOffWhenAbsent() throws Exception
    {
        final LoadedConfig loaded = ConfigLoader.load("c.yaml", String.join("\n",
            "models:",
            "  - name: a",
            "    prefix_affinity: {}",
            "  - name: b",
            "") + DECISIONS, null);
        final PrefixAffinityConfig on = loaded.config().models().get(0).prefixAffinity();
        assertThat(on).isEqualTo(new PrefixAffinityConfig(256, 0.5, 2_000_000_000L, 10_000, 65_536));
        assertThat(on.enabled()).isTrue();
        assertThat(loaded.config().models().get(1).prefixAffinity()).isSameAs(PrefixAffinityConfig.NONE);
        assertThat(PrefixAffinityConfig.NONE.enabled()).isFalse();
    }

    @Test
    void shouldRefuseEveryBadValueWhereItIs()
    {
        final InvalidConfigurationException refused = catchThrowableOfType(InvalidConfigurationException.class,
            () -> ConfigLoader.load("c.yaml", String.join("\n",
                "models:",
                "  - name: a",
                "    prefix_affinity:",
                "      block_bytes: 8",
                "      min_match: 1.5",
                "      max_ttft_penalty: soon",
                "      prefill_tokens_per_s: 0",
                "      capacity_blocks: 2000000",
                "      block_byte: 64",
                "") + DECISIONS, null));
        assertThat(refused.problems()).extracting(ConfigProblem::toString).containsExactly(
            "c.yaml:4:20: models[0].prefix_affinity.block_bytes: must be in 16..1048576, got 8",
            "c.yaml:5:18: models[0].prefix_affinity.min_match: must be in 0..1 (a share of the prompt's blocks), got 1.5",
            "c.yaml:6:25: models[0].prefix_affinity.max_ttft_penalty: expected a duration such as 60s, 250ms or 10m " +
                "(units ns, us, ms, s, m, h), got \"soon\"",
            "c.yaml:7:29: models[0].prefix_affinity.prefill_tokens_per_s: must be > 0, got 0",
            "c.yaml:8:24: models[0].prefix_affinity.capacity_blocks: must be in 1..1048576, got 2000000",
            "c.yaml:9:7: models[0].prefix_affinity.block_byte: unknown key \"block_byte\" (did you mean block_bytes?)");
    }

    @Test
    void overlayShouldSetItOnAVsrModel() throws Exception
    {
        final String vsr = String.join("\n",
            "version: v0.3",
            "providers:",
            "  models:",
            "    - name: small",
            "      backend_refs: [{endpoint: 10.0.0.1:8000}, {endpoint: 10.0.0.2:8000}]",
            "routing:",
            "  modelCards:",
            "    - {name: small, quality_score: 0.5}",
            "  decisions:",
            "    - name: d",
            "      modelRefs: [{model: small}]",
            "      algorithm: {type: multi_factor}",
            "");
        final String overlay = String.join("\n",
            "models:",
            "  - name: small",
            "    prefix_affinity: {block_bytes: 128, min_match: 0.75}",
            "");
        final LoadedConfig loaded = ConfigLoader.load("vsr.yaml", vsr.getBytes(StandardCharsets.UTF_8), "overlay.yaml",
            overlay.getBytes(StandardCharsets.UTF_8), null);
        final ModelConfig small = loaded.config().models().get(0);
        assertThat(small.prefixAffinity())
            .isEqualTo(new PrefixAffinityConfig(128, 0.75, 2_000_000_000L, 10_000, 65_536));
        assertThat(small.backendRefs()).hasSize(2);
    }
}
