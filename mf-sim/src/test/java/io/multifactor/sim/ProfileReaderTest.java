package io.multifactor.sim;

import io.multifactor.api.ConfigProblem;
import io.multifactor.api.InvalidConfigurationException;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

class ProfileReaderTest
{
    static final Path EXAMPLE_PROFILE = Path.of("..", "examples", "router.profile.yaml");

    @Test
    void shouldReadTheBundledProfile() throws InvalidConfigurationException
    {
        final SimulationProfile profile = ProfileReader.read(EXAMPLE_PROFILE);

        assertThat(profile.durationS()).isEqualTo(120.0);
        assertThat(profile.seed()).isEqualTo(42L);
        assertThat(profile.decisionShares()).containsOnlyKeys("fast_chat", "quality_answers");
        assertThat(profile.models()).containsOnlyKeys("fast-cheap", "slow-strong");
        final ModelBehaviour strong = profile.models().get("slow-strong");
        assertThat(strong.degrades()).isTrue();
        assertThat(strong.degradedFromS()).isLessThan(strong.degradedUntilS());
        assertThat(profile.models().get("fast-cheap").degrades()).isFalse();
    }

    @Test
    void shouldApplyDefaultsToOmittedKeys() throws InvalidConfigurationException
    {
        final SimulationProfile profile = ProfileReader.read("p.yaml", "models:\n  m:\n    ttft_ms: 100\n    tpot_ms: 10\n");

        assertThat(profile.durationS()).isEqualTo(120.0);
        assertThat(profile.intervalS()).isEqualTo(5.0);
        assertThat(profile.decisionShares()).isEmpty();
        assertThat(profile.models().get("m").capacity()).isEqualTo(32);
        assertThat(profile.models().get("m").degrades()).isFalse();
        assertThat(profile.tokensInRequest()).isFalse();
    }

    @Test
    void shouldReadTokensInRequestAndRefuseAWord()
    {
        final String models = "models:\n  m:\n    ttft_ms: 100\n    tpot_ms: 10\n";
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() ->
            assertThat(ProfileReader.read("p.yaml", "tokens_in_request: true\n" + models).tokensInRequest()).isTrue()))
            .isNull();
        final Throwable refused = org.assertj.core.api.Assertions.catchThrowable(() ->
            ProfileReader.read("p.yaml", "tokens_in_request: sometimes\n" + models));
        assertThat(refused).isInstanceOf(InvalidConfigurationException.class);
        assertThat(((InvalidConfigurationException)refused).problems().get(0).toString())
            .isEqualTo("p.yaml:1:20: tokens_in_request: expected true or false, got string \"sometimes\"");
    }

    @Test
    void shouldReportEveryProblemWithItsLocation()
    {
        final String yaml = String.join("\n",
            "duration_s: -5",
            "arrivals_per_sec: 3",
            "models:",
            "  m:",
            "    tpot_ms: ten",
            "    degraded:",
            "      from_s: 40",
            "      until_s: 20",
            "");

        final InvalidConfigurationException ex =
            catchThrowableOfType(InvalidConfigurationException.class, () -> ProfileReader.read("p.yaml", yaml));

        final List<String> messages = new ArrayList<>();
        for (final ConfigProblem problem : ex.problems())
        {
            messages.add(problem.toString());
        }
        assertThat(messages).containsExactly(
            "p.yaml:1:13: duration_s: must be >= 0, got -5",
            "p.yaml:2:1: arrivals_per_sec: unknown key \"arrivals_per_sec\" (did you mean arrivals_per_s?)",
            "p.yaml:5:5: models.m.ttft_ms: missing required key \"ttft_ms\"",
            "p.yaml:5:14: models.m.tpot_ms: expected a number, got string \"ten\"",
            "p.yaml:8:16: models.m.degraded.until_s: must be after from_s (40), got 20");
    }

    @Test
    void shouldRefuseMalformedYamlWithALocatedProblem()
    {
        assertThatThrownBy(() -> ProfileReader.read("p.yaml", "models: [unclosed\n"))
            .isInstanceOf(InvalidConfigurationException.class)
            .hasMessageStartingWith("p.yaml:");
    }
}
