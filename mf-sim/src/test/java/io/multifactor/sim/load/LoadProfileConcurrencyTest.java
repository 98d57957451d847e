package io.multifactor.sim.load;

import io.multifactor.api.InvalidConfigurationException;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The load profile's {@code concurrency} key: the bundled saturation profiles are closed loops, a bad value is located. */
class LoadProfileConcurrencyTest
{
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void theSaturationProfilesShouldBeClosedLoopsAndTheOverheadOnesOpen() throws Exception
    {
        for (final String name : new String[] {"saturation-load.yaml", "saturation-direct.yaml"})
        {
            final LoadProfile profile = LoadProfileReader.read(ROOT.resolve("examples").resolve(name));
            assertThat(profile.closedLoop()).as(name).isTrue();
            assertThat(profile.concurrency()).as(name).isEqualTo(64);
        }
        assertThat(LoadProfileReader.read(ROOT.resolve("examples/overhead-load.yaml")).closedLoop()).isFalse();
    }

    @Test
    void aNegativeConcurrencyShouldBeRefusedWhereItIs()
    {
        assertThatThrownBy(() -> LoadProfileReader.read("p.yaml", "model: m\nconcurrency: -2\n"))
            .isInstanceOf(InvalidConfigurationException.class)
            .hasMessageContaining("p.yaml:2:14: concurrency");
    }
}
