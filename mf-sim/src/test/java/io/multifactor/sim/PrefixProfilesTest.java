package io.multifactor.sim;

import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.sim.load.LoadProfile;
import io.multifactor.sim.load.LoadProfileReader;
import io.multifactor.sim.prompt.PromptWorkload;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** The prompts and servers keys of simulation and load profiles, the bundled prefix profiles, and their errors. */
class PrefixProfilesTest
{
    private static final String MODELS = "models:\n  m:\n    ttft_ms: 100\n    tpot_ms: 10\n";

    @Test
    void shouldReadTheBundledPrefixProfiles() throws InvalidConfigurationException
    {
        final SimulationProfile chat = ProfileReader.read(Path.of("..", "examples", "prefix-chat.profile.yaml"));
        assertThat(chat.prompts()).isEqualTo(new PromptWorkload(1, 1000, 0.0, 8, 10.0, 200, 300));
        assertThat(chat.servers().get("m")).isEqualTo(new BackendServers(16, 2048, 8000.0, 16));
        final SimulationProfile shared = ProfileReader.read(Path.of("..", "examples", "prefix-shared.profile.yaml"));
        assertThat(shared.prompts().systemPrompts()).isEqualTo(8);
        assertThat(shared.prompts().turns()).isEqualTo(1);
        final SimulationProfile hot = ProfileReader.read(Path.of("..", "examples", "prefix-hot.profile.yaml"));
        assertThat(hot.prompts().hotShare()).isEqualTo(0.9);
    }

    @Test
    void shouldDefaultTheOmittedKeysAndLeaveProfilesWithoutThemAsTheyWere() throws InvalidConfigurationException
    {
        final SimulationProfile plain = ProfileReader.read("p.yaml", MODELS);
        assertThat(plain.prompts()).isEqualTo(PromptWorkload.NONE);
        assertThat(plain.prompts().active()).isFalse();
        assertThat(plain.servers()).isEmpty();
        final SimulationProfile defaults = ProfileReader.read("p.yaml", "prompts: {turns: 3}\n" + MODELS +
            "    servers: {}\n");
        assertThat(defaults.prompts()).isEqualTo(new PromptWorkload(0, 2000, 0.0, 3, 10.0, 100, 200));
        assertThat(defaults.servers().get("m")).isEqualTo(new BackendServers(16, 8192, 10_000.0, 16));
    }

    @Test
    void shouldLocateEveryBadKey()
    {
        final InvalidConfigurationException refused = catchThrowableOfType(InvalidConfigurationException.class,
            () -> ProfileReader.read("p.yaml", "prompts: {hot_share: 2, turns: 0, colour: red}\n" + MODELS +
            "    servers: {batch: 0, prefill_tokens_per_s: 0}\n"));
        assertThat(refused.problems()).extracting(Object::toString).anySatisfy(p ->
            assertThat(p).startsWith("p.yaml:1:").contains("prompts.hot_share: must be in [0, 1], got 2"));
        assertThat(refused.problems()).extracting(Object::toString)
            .anySatisfy(p -> assertThat(p).contains("prompts.turns"))
            .anySatisfy(p -> assertThat(p).contains("prompts.colour"))
            .anySatisfy(p -> assertThat(p).startsWith("p.yaml:6:").contains("models.m.servers.batch"))
            .anySatisfy(p -> assertThat(p).contains("models.m.servers.prefill_tokens_per_s: must be > 0"));
    }

    @Test
    void shouldReadPromptsInALoadProfileAndRefuseThemInAClosedLoop() throws InvalidConfigurationException
    {
        final LoadProfile load = LoadProfileReader.read("l.yaml", "prompts: {system_prompts: 2, system_tokens: 500}\n");
        assertThat(load.prompts()).isEqualTo(new PromptWorkload(2, 500, 0.0, 1, 10.0, 100, 200));
        assertThat(LoadProfileReader.read("l.yaml", "seed: 3\n").prompts()).isEqualTo(PromptWorkload.NONE);
        final InvalidConfigurationException refused = catchThrowableOfType(InvalidConfigurationException.class,
            () -> LoadProfileReader.read("l.yaml", "concurrency: 8\nprompts: {turns: 4}\n"));
        assertThat(refused.problems().get(0).toString()).startsWith("l.yaml:2:")
            .contains("prompts need an open-loop run");
    }
}
