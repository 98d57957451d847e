package io.multifactor.config;

import io.multifactor.api.ConfigProblem;
import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.kernel.engine.SignalSettings;
import io.multifactor.kernel.latency.LatencyEstimatorType;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The keys of section 4.4 under {@code signals:}: {@code latency_estimator}, {@code ewma_decay} and
 * {@code default_request_tokens} read into the engine's settings, refused with a located message when bad, and the
 * warning that {@code latency_percentile} is ignored with peak-EWMA. Line numbers refer to
 * {@link ConfigRefusalTest#VALID} plus the added lines 28 and 29.
 */
class EstimatorConfigTest
{
    private static String with(final String... signalsLines)
    {
        return ConfigRefusalTest.VALID + String.join("\n", signalsLines) + "\n";
    }

    @Test
    void shouldDefaultToTheWindowWithTenSecondDecayAndAThousandTokens() throws Exception
    {
        final SignalSettings settings = ConfigLoader.load("r.yaml", ConfigRefusalTest.VALID, null).signalSettings();
        assertThat(settings.latencyEstimator()).isEqualTo(LatencyEstimatorType.WINDOW);
        assertThat(settings.ewmaDecayNs()).isEqualTo(10_000_000_000L);
        assertThat(settings.defaultRequestTokens()).isEqualTo(1_000L);
    }

    @Test
    void shouldReadPeakEwmaItsDecayAndTheDefaultRequestTokens() throws Exception
    {
        final LoadedConfig loaded = ConfigLoader.load("r.yaml",
            with("  latency_estimator: peak_ewma", "  ewma_decay: 5s", "  default_request_tokens: 2500"), null);
        final SignalSettings settings = loaded.signalSettings();
        assertThat(settings.latencyEstimator()).isEqualTo(LatencyEstimatorType.PEAK_EWMA);
        assertThat(settings.ewmaDecayNs()).isEqualTo(5_000_000_000L);
        assertThat(settings.defaultRequestTokens()).isEqualTo(2_500L);
        assertThat(loaded.warnings()).extracting(ConfigProblem::toString).containsExactly(
            "r.yaml:22:29: decisions[0].algorithm.multi_factor.latency_percentile: is ignored with " +
            "signals.latency_estimator: peak_ewma (the estimate has no percentile)");
    }

    @Test
    void shouldNotWarnWithPeakEwmaWhenNoDecisionSetsAPercentile() throws Exception
    {
        final String yaml = with("  latency_estimator: peak_ewma").replace("        latency_percentile: 95\n", "");
        assertThat(ConfigLoader.load("r.yaml", yaml, null).warnings()).isEmpty();
    }

    @Test
    void shouldRefuseAnUnknownEstimatorWithTheNearestWord()
    {
        assertRefused(with("  latency_estimator: peak_ewm"),
            "r.yaml:28:22: signals.latency_estimator: unknown latency_estimator \"peak_ewm\": expected window or " +
            "peak_ewma (did you mean peak_ewma?)");
    }

    @Test
    void shouldRefuseABadDecayAndANegativeOrFractionalTokenCount()
    {
        assertRefused(with("  ewma_decay: 0s", "  default_request_tokens: -1"),
            "r.yaml:28:15: signals.ewma_decay: must be a positive duration, got 0s",
            "r.yaml:29:27: signals.default_request_tokens: must be in 0..2147483647, got -1");
        assertRefused(with("  ewma_decay: 100us", "  default_request_tokens: 1.5"),
            "r.yaml:28:15: signals.ewma_decay: must be at least 1ms, got 100us",
            "r.yaml:29:27: signals.default_request_tokens: expected an integer, got 1.5");
    }

    @Test
    void shouldSuggestTheNewKeysForATypo()
    {
        assertRefused(with("  ewma_decy: 5s"),
            "r.yaml:28:3: signals.ewma_decy: unknown key \"ewma_decy\" (did you mean ewma_decay?)");
    }

    private static void assertRefused(final String yaml, final String... expected)
    {
        final InvalidConfigurationException thrown =
            catchThrowableOfType(InvalidConfigurationException.class, () -> ConfigLoader.load("r.yaml", yaml, null));
        assertThat(thrown).as("refused").isNotNull();
        final List<String> messages = new ArrayList<>();
        for (final ConfigProblem problem : thrown.problems())
        {
            messages.add(problem.toString());
        }
        assertThat(messages).containsExactly(expected);
    }
}
