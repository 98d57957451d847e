package io.multifactor.tools;

import io.multifactor.config.LoadedConfig;
import io.multifactor.config.model.BackendRef;
import io.multifactor.config.model.ModelConfig;
import io.multifactor.fakes.FakeModelProfile;
import io.multifactor.fakes.PrefixCaching;
import io.multifactor.fakes.TimeWindow;
import io.multifactor.sim.load.LoadProfile;
import io.multifactor.sim.suite.ComparisonSuite;
import io.multifactor.sim.suite.Scenario;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** How the bundled comparison scenarios become fake model servers, a configuration pointed at them, and a load. */
class ScenarioServersTest
{
    private static List<Scenario> scenarios;

    @BeforeAll
    static void load() throws Exception
    {
        scenarios = ComparisonSuite.load(Path.of("..", "examples", "compare"));
    }

    private static Scenario scenario(final String name)
    {
        for (final Scenario scenario : scenarios)
        {
            if (scenario.name().equals(name))
            {
                return scenario;
            }
        }
        throw new AssertionError("no scenario " + name);
    }

    @Test
    void shouldAcceptTheScenariosTheLoadGeneratorCanSendAndSayWhyNotTheOthers()
    {
        for (final String name : GatewaySuite.SCENARIOS)
        {
            assertThat(ScenarioServers.unsupported(scenario(name))).as(name).isNull();
        }
        assertThat(ScenarioServers.unsupported(scenario("4-bursts"))).contains("bursts");
        assertThat(ScenarioServers.unsupported(scenario("6-mixed-sizes"))).contains("long_prompts");
        assertThat(ScenarioServers.unsupported(scenario("7-fleet"))).contains("fleet");
    }

    @Test
    void shouldPlaceAWindowAtTheSameShareOfTheRunAndKeepItsLength()
    {
        // 1-degrading: slow-strong degrades from 60 s to 75 s of 140 s (TTFT x6, TPOT x2).
        final Scenario degrading = scenario("1-degrading");
        final FakeModelProfile slow = ScenarioServers.profile(degrading.profile(), "slow-strong", 1, 70.0);
        assertThat(slow.degraded()).hasSize(1);
        final TimeWindow window = slow.degraded().get(0);
        assertThat(window.fromS()).isCloseTo(30.0, within(1e-9));
        assertThat(window.untilS()).isCloseTo(45.0, within(1e-9));
        assertThat(window.ttftFactor()).isEqualTo(6.0);
        assertThat(window.tpotFactor()).isEqualTo(2.0);
        assertThat(slow.ttftMs()).isEqualTo(400.0);
        assertThat(slow.tpotMs()).isEqualTo(40.0);
        assertThat(slow.batch()).isEqualTo(24);
        assertThat(slow.outputTokens()).isEqualTo(100);
        assertThat(slow.prefixCachingOrNull()).isNull();
        assertThat(slow.failing()).isEmpty();
        assertThat(ScenarioServers.profile(degrading.profile(), "fast-cheap", 1, 70.0).degraded()).isEmpty();
        // Its capacity shared out over two servers, rounded up.
        assertThat(ScenarioServers.profile(degrading.profile(), "slow-strong", 5, 70.0).batch()).isEqualTo(5);

        // 5-failing-model: model-a answers 500 from 50 s to 60 s, model-b 429 (Retry-After: 5) from 80 s to 90 s.
        final Scenario failing = scenario("5-failing-model");
        final FakeModelProfile a = ScenarioServers.profile(failing.profile(), "model-a", 1, 14.0);
        assertThat(a.failing()).hasSize(1);
        assertThat(a.failing().get(0).fromS()).isCloseTo(5.0, within(1e-9));
        assertThat(a.failing().get(0).untilS()).isCloseTo(15.0, within(1e-9));
        assertThat(a.rateLimited()).isEmpty();
        final FakeModelProfile b = ScenarioServers.profile(failing.profile(), "model-b", 1, 14.0);
        assertThat(b.rateLimited()).hasSize(1);
        assertThat(b.rateLimited().get(0).fromS()).isCloseTo(8.0, within(1e-9));
        assertThat(b.rateLimited().get(0).untilS()).isCloseTo(18.0, within(1e-9));
        assertThat(b.rateLimited().get(0).retryAfterS()).isEqualTo(5L);
        assertThat(b.rateLimited().get(0).share()).isEqualTo(1.0);
        assertThat(b.failing()).isEmpty();
    }

    @Test
    void shouldGiveEachBackendItsOwnServerWithThePrefixCacheOfTheProfile() throws Exception
    {
        final Scenario chat = scenario("2-chat-sessions");
        final FakeModelProfile large = ScenarioServers.profile(chat.profile(), "large", 4, 60.0);
        assertThat(large.batch()).isEqualTo(8);
        assertThat(large.prefixCachingOrNull()).isEqualTo(new PrefixCaching(16, 1024, 8000.0));
        assertThat(large.outputTokens()).isEqualTo(120);

        final LoadProfile load = ScenarioServers.load(chat, 16.3, 60.0, 1L, 10.0);
        assertThat(load.decision()).isEqualTo("chat");
        assertThat(load.prompts()).isEqualTo(chat.profile().prompts());
        assertThat(load.prompts().active()).isTrue();
        assertThat(load.maxTtftMs()).isEqualTo(1500.0);
        assertThat(load.maxTokens()).isEqualTo(120);
        assertThat(load.arrivalsPerS()).isEqualTo(16.3);
        assertThat(load.durationS()).isEqualTo(60.0);

        final List<Integer> ports;
        try (ScenarioServers servers = ScenarioServers.start(chat, 60.0, 1L))
        {
            ports = servers.ports();
            assertThat(ports).hasSize(8).doesNotHaveDuplicates();
            assertThat(servers.cachesPrefixes()).isTrue();
            final LoadedConfig pointed = servers.pointAt(ComparisonSuite.configFor(chat, "round_robin"));
            final List<Integer> refPorts = new ArrayList<>();
            for (final ModelConfig model : pointed.config().models())
            {
                assertThat(model.backendRefs()).hasSize(4);
                for (int k = 0; k < 4; k++)
                {
                    final BackendRef ref = model.backendRefs().get(k);
                    assertThat(ref.name()).isEqualTo(model.name() + '-' + (k + 1));
                    assertThat(ref.host()).isEqualTo("127.0.0.1");
                    refPorts.add(ref.port());
                }
                // The policy's rule among the backends survives the rewrite.
                assertThat(model.backendChoice()).isEqualTo(ComparisonSuite.configFor(chat, "round_robin").config()
                    .models().get(pointed.config().models().indexOf(model)).backendChoice());
            }
            assertThat(refPorts).isEqualTo(ports);
            assertThat(pointed.plans().modelId("large")).isNotNegative();
        }
        for (final int port : ports)
        {
            try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress()))
            {
                assertThat(socket.getLocalPort()).isEqualTo(port);
            }
        }

        // A model without backend_refs gets one server, named after it.
        final Scenario degrading = scenario("1-degrading");
        try (ScenarioServers servers = ScenarioServers.start(degrading, 60.0, 1L))
        {
            final LoadedConfig pointed = servers.pointAt(degrading.config());
            assertThat(servers.ports()).hasSize(2);
            assertThat(servers.cachesPrefixes()).isFalse();
            assertThat(pointed.config().models().get(0).backendRefs()).hasSize(1);
            assertThat(pointed.config().models().get(0).backendRefs().get(0).name()).isEqualTo("fast-cheap-1");
            assertThat(pointed.config().models().get(0).backendRefs().get(0).port()).isEqualTo(servers.ports().get(0));
        }
    }
}
