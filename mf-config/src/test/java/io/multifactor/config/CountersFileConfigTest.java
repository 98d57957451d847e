package io.multifactor.config;

import io.multifactor.api.InvalidConfigurationException;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

class CountersFileConfigTest
{
    private static final String BASE = String.join("\n",
        "models:",
        "  - name: a",
        "decisions:",
        "  - name: d",
        "    modelRefs:",
        "      - model: a",
        "");

    @Test
    void shouldReadTheCountersFileOfTheSignalsBlock() throws Exception
    {
        final LoadedConfig loaded = ConfigLoader.load("r.yaml",
            BASE + "signals:\n  latency_window: 30s\n  counters_file: /dev/shm/mf-router.counters\n", null);
        assertThat(loaded.countersFile()).isEqualTo(Path.of("/dev/shm/mf-router.counters"));
        assertThat(loaded.signalSettings().latencyWindowNs()).isEqualTo(30_000_000_000L);
    }

    @Test
    void shouldHaveNoCountersFileWithoutTheKey() throws Exception
    {
        assertThat(ConfigLoader.load("r.yaml", BASE, null).countersFile()).isNull();
        assertThat(ConfigLoader.load("r.yaml", BASE + "signals:\n  latency_window: 30s\n", null).countersFile()).isNull();
    }

    @Test
    void shouldRefuseACountersFileThatIsNotAString()
    {
        final InvalidConfigurationException ex = catchThrowableOfType(InvalidConfigurationException.class,
            () -> ConfigLoader.load("r.yaml", BASE + "signals:\n  counters_file: [a, b]\n", null));
        assertThat(ex).isNotNull();
        assertThat(ex.problems().get(0).toString()).contains("signals.counters_file");
    }
}
