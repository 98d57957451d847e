package io.multifactor.serving;

import io.multifactor.config.LoadedConfig;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class BackendChooserTest
{
    @Test
    void shouldSplitPicksByWeightAndCarryTheProviderModelId()
    {
        final LoadedConfig loaded = Engines.load(Engines.TWO_MODELS);
        final BackendChooser chooser = BackendChooser.of(loaded, Map.of("B_KEY", "sk-test"));
        final int a = loaded.plans().modelId("a");
        int first = 0;
        for (int i = 0; i < 1_000; i++)
        {
            final Backend backend = chooser.choose(a);
            assertThat(backend.providerModelId()).isEqualTo("acme/a-7b");
            if (backend.name().equals("a1"))
            {
                first++;
            }
            // Any 100 consecutive picks are already close to 80/20 (low discrepancy, not a random draw).
            if (i == 99)
            {
                assertThat(first).isBetween(78, 82);
            }
        }
        assertThat(first).isBetween(795, 805);
        final Backend b = chooser.choose(loaded.plans().modelId("b"));
        assertThat(b.https()).isTrue();
        assertThat(b.port()).isEqualTo(443);
        assertThat(b.basePath()).isEqualTo("/v1");
        assertThat(b.authorization()).isEqualTo("Bearer sk-test");
        assertThat(b.providerModelId()).isEqualTo("b");
        assertThat(chooser.problems()).isEmpty();
        assertThat(chooser.choose(99)).isNull();
        assertThat(chooser.choose(-1)).isNull();
    }

    @Test
    void shouldSayWhatIsUnusable()
    {
        final LoadedConfig loaded = Engines.load(Engines.TWO_MODELS.replace(
            "    backend_refs:\n      - {name: a1, endpoint: 127.0.0.1:8001, weight: 80}\n" +
                "      - {name: a2, endpoint: 127.0.0.1:8002, weight: 20}\n", ""));
        final BackendChooser chooser = BackendChooser.of(loaded, Map.of());
        assertThat(chooser.problems()).containsExactly(
            "model a has no backend_refs: its requests fail (502)",
            "model b, backend b1: api_key_env B_KEY is not set: requests go without Authorization");
        assertThat(chooser.choose(loaded.plans().modelId("a"))).isNull();
        assertThat(chooser.choose(loaded.plans().modelId("b")).authorization()).isNull();
    }
}
