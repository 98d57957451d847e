package io.multifactor.config;

import io.multifactor.api.ConfigProblem;
import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.config.model.ModelConfig;
import io.multifactor.config.model.ReliabilityConfig;
import io.multifactor.kernel.signal.ServerBackend;
import io.multifactor.kernel.signal.ServerKind;
import io.multifactor.kernel.signal.ServerMetricsSettings;
import io.multifactor.kernel.signal.WhenStale;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

class ServerSignalsConfigTest
{
    private static final String DECISIONS = String.join("\n",
        "decisions:",
        "  - name: d",
        "    modelRefs:",
        "      - model: a",
        "");

    private static final String VSR = String.join("\n",
        "version: v0.3",
        "providers:",
        "  models:",
        "    - name: small",
        "      backend_refs: [{endpoint: 10.0.0.1:8000}]",
        "      reliability: {consecutive_5xx: 3, retry_on: [5xx]}",
        "    - name: large",
        "      backend_refs: [{endpoint: 10.0.0.2:8000}]",
        "routing:",
        "  modelCards:",
        "    - {name: small, quality_score: 0.5}",
        "    - {name: large, quality_score: 0.9}",
        "  decisions:",
        "    - name: d",
        "      modelRefs: [{model: small}, {model: large}]",
        "      algorithm: {type: multi_factor}",
        "");

    @Test
    void shouldReadServerAndServerMetricsWithTheirDefaults() throws Exception
    {
        final LoadedConfig loaded = ConfigLoader.load("c.yaml", String.join("\n",
            "models:",
            "  - name: a",
            "    server: vllm",
            "    backend_refs: [{endpoint: 127.0.0.1:8000}, {base_url: 'https://h.example:8443/v1'},",
            "      {endpoint: 127.0.0.1:8000, weight: 2}]",
            "  - name: b",
            "    server: sglang",
            "  - name: hosted",
            "    backend_refs: [{base_url: 'https://api.example.invalid/v1'}]",
            "signals:",
            "  server_metrics: {every: 200ms}",
            "") + DECISIONS, null);
        final ServerMetricsSettings settings = loaded.serverMetrics();
        assertThat(settings).isEqualTo(
            new ServerMetricsSettings(200_000_000L, "/metrics", 100_000_000L, 800_000_000L, WhenStale.IGNORE));
        assertThat(loaded.config().models().get(0).server()).isEqualTo(ServerKind.VLLM);
        assertThat(loaded.config().models().get(1).server()).isEqualTo(ServerKind.SGLANG);
        assertThat(loaded.config().models().get(2).server()).isNull();
        // One per origin: the base_url's own path is not part of it; a model without server is not scraped.
        assertThat(loaded.serverBackends()).containsExactly(
            new ServerBackend("a", false, "127.0.0.1", 8000, ServerKind.VLLM),
            new ServerBackend("a", true, "h.example", 8443, ServerKind.VLLM));
        assertThat(loaded.serverBackends().get(1).key()).isEqualTo("https://h.example:8443");
    }

    @Test
    void shouldReadEveryServerMetricsKey() throws Exception
    {
        final LoadedConfig loaded = ConfigLoader.load("c.yaml", String.join("\n",
            "models:",
            "  - name: a",
            "signals:",
            "  server_metrics:",
            "    every: 1s",
            "    path: /custom/metrics",
            "    timeout: 300ms",
            "    stale_after: 5s",
            "    when_stale: saturated",
            "") + DECISIONS, null);
        assertThat(loaded.serverMetrics()).isEqualTo(
            new ServerMetricsSettings(1_000_000_000L, "/custom/metrics", 300_000_000L, 5_000_000_000L, WhenStale.SATURATED));
        assertThat(loaded.serverBackends()).isEmpty();
    }

    @Test
    void shouldScrapeNothingWithoutServerMetrics() throws Exception
    {
        final LoadedConfig loaded = ConfigLoader.load("c.yaml", String.join("\n",
            "models:",
            "  - name: a",
            "    server: vllm",
            "    backend_refs: [{endpoint: 127.0.0.1:8000}]",
            "") + DECISIONS, null);
        assertThat(loaded.serverMetrics()).isNull();
        assertThat(loaded.serverBackends()).isEmpty();
    }

    @Test
    void shouldReadReliabilityWithItsDefaults() throws Exception
    {
        final LoadedConfig loaded = ConfigLoader.load("c.yaml", String.join("\n",
            "models:",
            "  - name: a",
            "    reliability: {consecutive_5xx: 5}",
            "  - name: b",
            "    reliability: {consecutive_5xx: 2, base_ejection_time: 10s, max_ejection_percent: 50,",
            "      max_ejection_time: 1m}",
            "  - name: c",
            "") + DECISIONS, null);
        final List<ModelConfig> models = loaded.config().models();
        assertThat(models.get(0).reliability()).isEqualTo(new ReliabilityConfig(5, 30_000_000_000L, 10, 300_000_000_000L));
        assertThat(models.get(1).reliability()).isEqualTo(new ReliabilityConfig(2, 10_000_000_000L, 50, 60_000_000_000L));
        assertThat(models.get(2).reliability()).isEqualTo(ReliabilityConfig.NONE);
        assertThat(models.get(2).reliability().ejects()).isFalse();
    }

    @Test
    void shouldReportEveryServerSignalProblemAtOnceWithItsPlace()
    {
        final String yaml = String.join("\n",
            "models:",
            "  - name: a",
            "    server: vlm",
            "    reliability:",
            "      consecutive_5xx: 0",
            "      max_ejection_percent: 150",
            "      base_ejection_time: 1m",
            "      max_ejection_time: 10s",
            "      retry_on: [5xx]",
            "signals:",
            "  server_metrics:",
            "    every: 10ms",
            "    path: metrics",
            "    timeout: soon",
            "    stale_after: 5ms",
            "    when_stale: saturate",
            "    evry: 1s",
            "") + DECISIONS;
        final InvalidConfigurationException refused =
            catchThrowableOfType(InvalidConfigurationException.class, () -> ConfigLoader.load("c.yaml", yaml, null));
        assertThat(refused.problems()).extracting(ConfigProblem::toString).containsExactly(
            "c.yaml:3:13: models[0].server: unknown server \"vlm\": expected vllm or sglang (did you mean vllm?)",
            "c.yaml:5:24: models[0].reliability.consecutive_5xx: must be in 1..1000000, got 0",
            "c.yaml:6:29: models[0].reliability.max_ejection_percent: must be in 0..100, got 150",
            "c.yaml:8:26: models[0].reliability.max_ejection_time: must not be shorter than base_ejection_time, got " +
                "10s < 1m",
            "c.yaml:9:7: models[0].reliability.retry_on: unknown key \"retry_on\"",
            "c.yaml:12:12: signals.server_metrics.every: must be at least 50ms (scraping faster loads the servers for " +
                "no fresher signal), got 10ms",
            "c.yaml:13:11: signals.server_metrics.path: expected a URL path starting with / (no query, no spaces), " +
                "got \"metrics\"",
            "c.yaml:14:14: signals.server_metrics.timeout: expected a duration such as 60s, 250ms or 10m (units ns, us, " +
                "ms, s, m, h), got \"soon\"",
            "c.yaml:15:18: signals.server_metrics.stale_after: must be at least every (else every value is stale " +
                "before the next scrape), got 5ms < 10ms",
            "c.yaml:16:17: signals.server_metrics.when_stale: unknown when_stale \"saturate\": expected ignore or " +
                "saturated (did you mean saturated?)",
            "c.yaml:17:5: signals.server_metrics.evry: unknown key \"evry\" (did you mean every?)");
    }

    @Test
    void shouldReadReliabilityInVsrFilesIgnoringVsrsOwnKeys() throws Exception
    {
        final LoadedConfig loaded = ConfigLoader.load("vsr.yaml", VSR, null);
        assertThat(loaded.config().models().get(0).reliability().consecutive5xx()).isEqualTo(3);
        assertThat(loaded.config().models().get(0).server()).isNull();
        assertThat(loaded.serverMetrics()).isNull();
    }

    @Test
    void overlayShouldCompleteTheVsrModelsByName() throws Exception
    {
        final String overlay = String.join("\n",
            "signals:",
            "  latency_window: 30s",
            "  server_metrics: {every: 250ms, when_stale: saturated}",
            "fleet: {redis: 'redis://127.0.0.1:6379/0'}",
            "models:",
            "  - name: large",
            "    server: sglang",
            "    backend_refs: [{endpoint: 10.0.0.3:30000}, {endpoint: 10.0.0.4:30000}]",
            "  - name: small",
            "    server: vllm",
            "");
        final LoadedConfig loaded = load(VSR, overlay);
        final ModelConfig small = loaded.config().models().get(0);
        final ModelConfig large = loaded.config().models().get(1);
        assertThat(small.server()).isEqualTo(ServerKind.VLLM);
        assertThat(small.reliability().consecutive5xx()).isEqualTo(3);
        assertThat(small.backendRefs()).hasSize(1);
        assertThat(large.server()).isEqualTo(ServerKind.SGLANG);
        assertThat(large.backendRefs()).extracting(b -> b.authority())
            .containsExactly("10.0.0.3:30000", "10.0.0.4:30000");
        assertThat(loaded.config().signals().latencyWindowNs()).isEqualTo(30_000_000_000L);
        assertThat(loaded.serverMetrics().whenStale()).isEqualTo(WhenStale.SATURATED);
        assertThat(loaded.config().fleet().enabled()).isTrue();
        assertThat(loaded.serverBackends()).extracting(ServerBackend::model, ServerBackend::key).containsExactly(
            org.assertj.core.groups.Tuple.tuple("small", "http://10.0.0.1:8000"),
            org.assertj.core.groups.Tuple.tuple("large", "http://10.0.0.3:30000"),
            org.assertj.core.groups.Tuple.tuple("large", "http://10.0.0.4:30000"));
        assertThat(loaded.plans().decisionCount()).isEqualTo(1);
    }

    @Test
    void overlayProblemsShouldBeReportedInTheOverlayTogetherWithTheFilesOwn()
    {
        final String vsr = VSR.replace("quality_score: 0.9", "quality_score: -1");
        final String overlay = String.join("\n",
            "decisions: []",
            "models:",
            "  - name: smal",
            "    server: vllm",
            "  - name: large",
            "    api_key_env: X",
            "  - name: large",
            "signals:",
            "  server_metrics: {every: 20ms}",
            "");
        final InvalidConfigurationException refused =
            catchThrowableOfType(InvalidConfigurationException.class, () -> load(vsr, overlay));
        assertThat(refused.problems()).extracting(ConfigProblem::toString).containsExactly(
            "vsr.yaml:12:36: routing.modelCards[1].quality_score: must be >= 0, got -1",
            "overlay.yaml:1:1: decisions: unknown key \"decisions\"",
            "overlay.yaml:3:11: models[0].name: unknown model \"smal\": the overlay completes the models of the " +
                "configuration, which has no such model (did you mean small?)",
            "overlay.yaml:6:5: models[1].api_key_env: unknown key \"api_key_env\"",
            "overlay.yaml:7:11: models[2].name: duplicate model \"large\" (first at line 5)",
            "overlay.yaml:9:27: signals.server_metrics.every: must be at least 50ms (scraping faster loads the servers " +
                "for no fresher signal), got 20ms");
    }

    @Test
    void overlayShouldBeRefusedOnTheProjectsOwnFormat()
    {
        final InvalidConfigurationException refused = catchThrowableOfType(InvalidConfigurationException.class,
            () -> load("models:\n  - name: a\n" + DECISIONS, "models:\n  - name: a\n    server: vllm\n"));
        assertThat(refused.problems()).extracting(ConfigProblem::toString).containsExactly(
            "overlay.yaml:1:1: <root>: an overlay completes a vLLM Semantic Router file, and the configuration is in " +
                "multi-factor's own format: write these keys in the configuration itself");
    }

    @Test
    void bundledExampleShouldLoadWithItsOverlay() throws Exception
    {
        final Path examples = Path.of("..", "examples");
        final LoadedConfig loaded = ConfigLoader.load(examples.resolve("vsr-config.yaml"),
            examples.resolve("vsr-overlay.yaml"), null, io.multifactor.kernel.engine.MultiFactorEngine.DEFAULT_COUNTER_CAPACITY);
        assertThat(loaded.serverMetrics()).isNotNull();
        assertThat(loaded.serverBackends()).extracting(ServerBackend::key).containsExactly(
            "http://127.0.0.1:8000", "http://127.0.0.1:8002", "http://127.0.0.1:8001");
        assertThat(loaded.warnings()).isEmpty();
    }

    private static LoadedConfig load(final String vsr, final String overlay) throws InvalidConfigurationException
    {
        return ConfigLoader.load("vsr.yaml", vsr.getBytes(StandardCharsets.UTF_8), "overlay.yaml",
            overlay.getBytes(StandardCharsets.UTF_8), null);
    }
}
