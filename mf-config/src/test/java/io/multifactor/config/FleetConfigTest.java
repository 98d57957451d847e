package io.multifactor.config;

import io.multifactor.api.ConfigProblem;
import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.config.model.FleetConfig;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

class FleetConfigTest
{
    private static final String BASE = String.join("\n",
        "models:",
        "  - name: a",
        "decisions:",
        "  - name: d",
        "    modelRefs:",
        "      - model: a",
        "");

    private static List<String> refused(final String fleet)
    {
        final InvalidConfigurationException ex = catchThrowableOfType(InvalidConfigurationException.class,
            () -> ConfigLoader.load("r.yaml", BASE + fleet, null));
        assertThat(ex).as("refused").isNotNull();
        final List<String> messages = new ArrayList<>();
        for (final ConfigProblem problem : ex.problems())
        {
            messages.add(problem.toString());
        }
        return messages;
    }

    @Test
    void shouldHaveNoFleetWithoutTheBlock() throws Exception
    {
        assertThat(ConfigLoader.load("r.yaml", BASE, null).config().fleet().enabled()).isFalse();
    }

    @Test
    void shouldReadTheFleetBlockWithItsDefaults() throws Exception
    {
        final FleetConfig fleet = ConfigLoader.load("r.yaml", BASE + "fleet:\n  redis: rediss://:pw@r:6380/2\n", null)
            .config().fleet();
        assertThat(fleet.enabled()).isTrue();
        assertThat(fleet.redisUrl()).isEqualTo("rediss://:pw@r:6380/2");
        assertThat(fleet.cluster()).isEqualTo("mf");
        assertThat(fleet.exchangeEveryNs()).isEqualTo(250_000_000L);
        assertThat(fleet.toString()).doesNotContain("pw").contains("rediss://r:6380/2");

        final FleetConfig custom = ConfigLoader.load("r.yaml",
            BASE + "fleet:\n  redis: redis://127.0.0.1:6379/0\n  cluster: router-prod\n  exchange_every: 100ms\n", null)
            .config().fleet();
        assertThat(custom.cluster()).isEqualTo("router-prod");
        assertThat(custom.exchangeEveryNs()).isEqualTo(100_000_000L);
    }

    @Test
    void shouldRefuseEveryFleetProblemWithoutShowingThePassword()
    {
        assertThat(refused("fleet:\n  redis: http://user:secret@h:6379\n  cluster: a b\n  exchange_every: 40ms\n" +
            "  exchange_evry: 1s\n"))
            .containsExactlyInAnyOrder(
                "r.yaml:11:3: fleet.exchange_evry: unknown key \"exchange_evry\" (did you mean exchange_every?)",
                "r.yaml:8:10: fleet.redis: must be a redis://[:password@]host[:port][/db] or rediss:// URL, got " +
                    "'http://h:6379'",
                "r.yaml:9:12: fleet.cluster: must be 1 to 64 letters, digits or _.:-, got \"a b\"",
                "r.yaml:10:19: fleet.exchange_every: must be at least 50ms, got 40ms")
            .noneMatch(message -> message.contains("secret"));
        assertThat(refused("fleet:\n  cluster: c\n")).containsExactly("r.yaml:8:3: fleet.redis: missing required key \"redis\"");
    }
}
