package io.multifactor.sim.fleet;

import io.multifactor.api.DropReason;
import io.multifactor.api.Selection;
import io.multifactor.kernel.clock.ManualClock;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.engine.SignalSettings;
import io.multifactor.kernel.fleet.FleetAgent;
import io.multifactor.kernel.fleet.FleetExchange;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class InMemoryFleetTest
{
    private static final long PERIOD_NS = 250_000_000L;

    private final ManualClock clock = new ManualClock(1_000_000_000_000L);
    private final InMemoryFleet fleet = new InMemoryFleet(PERIOD_NS, 64);
    private final List<MultiFactorEngine> engines = new ArrayList<>();
    private final List<FleetAgent> agents = new ArrayList<>();

    @AfterEach
    void close()
    {
        engines.forEach(MultiFactorEngine::close);
    }

    private static Plans plans(final long maxInflight)
    {
        return new PlansBuilder()
            .model("a", 0.9, 1.0)
            .model("b", 0.5, 1.0)
            .decision("d")
            .candidates("a", "b")
            .weights(1.0, 0.0, 0.0, 0.0)
            .slo(0.0, 0.0, 0.0, maxInflight)
            .add()
            .build();
    }

    private FleetAgent replica(final String id, final Plans plans)
    {
        final MultiFactorEngine engine = MultiFactorEngine.builder(plans).clock(clock)
            .settings(new SignalSettings(60_000_000_000L, 1_000_000_000L, 600_000_000_000L)).build();
        engines.add(engine);
        final FleetAgent agent = new FleetAgent(engine, fleet.join(id), clock, 64);
        agents.add(agent);
        return agent;
    }

    private void periods(final int count)
    {
        for (int p = 0; p < count; p++)
        {
            clock.advanceNs(PERIOD_NS);
            for (final FleetAgent agent : agents)
            {
                agent.doWork();
            }
        }
    }

    @Test
    void shouldAddOtherReplicasInflightToTheCountSelectReads()
    {
        final FleetAgent one = replica("one", plans(5));
        final FleetAgent two = replica("two", plans(5));
        final MultiFactorEngine e1 = engines.get(0);
        final MultiFactorEngine e2 = engines.get(1);
        final int a = e1.modelId("a");
        for (int i = 0; i < 4; i++)
        {
            e1.begin(a);
        }
        final long lease = e2.begin(a);
        e2.begin(a);
        periods(2);

        assertThat(e2.inflight(a)).isEqualTo(6);
        assertThat(e2.localInflight(a)).isEqualTo(2);
        assertThat(e1.inflight(a)).isEqualTo(6);
        assertThat(e1.localInflight(a)).isEqualTo(4);
        assertThat(one.liveRemoteReplicas()).isEqualTo(1);
        assertThat(two.exchangedCount()).isEqualTo(2);
        // The same figures in the engine's counters (mf.fleet.exchanges, mf.fleet.replicas).
        assertThat(e2.fleetCounters().exchangesDone()).isEqualTo(2);
        assertThat(e1.fleetCounters().remoteReplicas()).isEqualTo(1);
        assertThat(e2.fleetCounters().exchangesFailed()).isZero();

        final Selection out = new Selection();
        e2.select(e2.decisionId("d"), null, out);
        assertThat(out.dropReason(0)).isEqualTo(DropReason.INFLIGHT);
        assertThat(out.selectedModel()).isEqualTo(e2.modelId("b"));

        e2.end(lease);
        // One replica exchanges before the other in a period: the change reaches everyone within two.
        periods(2);
        assertThat(e1.inflight(a)).isEqualTo(5);
        assertThat(e2.inflight(a)).isEqualTo(5);
        assertThat(e2.localInflight(a)).isEqualTo(1);
    }

    @Test
    void shouldForgetAReplicaThatStoppedPublishingWithinFourPeriods()
    {
        replica("one", plans(0));
        final FleetAgent two = replica("two", plans(0));
        final MultiFactorEngine e1 = engines.get(0);
        final MultiFactorEngine e2 = engines.get(1);
        final int a = e1.modelId("a");
        e1.begin(a);
        e1.begin(a);
        periods(1);
        assertThat(e2.inflight(a)).isEqualTo(2);

        agents.remove(0).exchange().close();
        int periods = 0;
        while (e2.inflight(a) != 0)
        {
            periods(1);
            periods++;
        }
        assertThat(periods).isBetween(1, FleetExchange.EXPIRY_PERIODS + 1);
        assertThat(two.liveRemoteReplicas()).isZero();
        // The dead replica's leases are its own: they never touched this engine's count.
        assertThat(e1.inflight(a)).isEqualTo(2);
    }

    @Test
    void shouldRunOnLocalSignalsDuringAnOutageAndComeBack()
    {
        replica("one", plans(0));
        final FleetAgent two = replica("two", plans(0));
        final MultiFactorEngine e1 = engines.get(0);
        final MultiFactorEngine e2 = engines.get(1);
        final int a = e1.modelId("a");
        e1.begin(a);
        e2.begin(a);
        periods(1);
        assertThat(e2.inflight(a)).isEqualTo(2);

        fleet.available(false);
        periods(FleetExchange.EXPIRY_PERIODS);
        assertThat(e2.inflight(a)).isEqualTo(2);
        periods(1);
        assertThat(e2.inflight(a)).isEqualTo(1);
        assertThat(two.failedCount()).isEqualTo(FleetExchange.EXPIRY_PERIODS + 1);
        assertThat(two.liveRemoteReplicas()).isZero();

        fleet.available(true);
        periods(2);
        assertThat(e2.inflight(a)).isEqualTo(2);
        assertThat(e2.localInflight(a)).isEqualTo(1);
    }

    @Test
    void shouldGiveEveryReplicaThePercentileOfTheWholeFleet()
    {
        replica("one", plans(0));
        replica("two", plans(0));
        replica("three", plans(0));
        final SplittableRandom random = new SplittableRandom(7);
        final Histogram all = new Histogram(1, 60_000_000L, 2);
        for (int p = 0; p < 8; p++)
        {
            for (int r = 0; r < engines.size(); r++)
            {
                final MultiFactorEngine engine = engines.get(r);
                for (int i = 0; i < 200; i++)
                {
                    // Replica r is slower than the others: a local percentile would be far from the fleet's.
                    final long micros = 10_000L * (r + 1) + random.nextLong(5_000L * (r + 1));
                    engine.recordTpotMicros(engine.modelId("a"), micros);
                    all.recordValue(micros);
                }
            }
            periods(1);
        }
        periods(1);
        final double expectedMs = all.getValueAtPercentile(95) / 1000.0;
        for (final MultiFactorEngine engine : engines)
        {
            engine.refreshNow();
            final Selection out = new Selection();
            engine.select(engine.decisionId("d"), null, out);
            assertThat(out.tpotMs(0)).isCloseTo(expectedMs, within(expectedMs * 0.01));
        }
    }

    @Test
    void shouldDropRemoteCountsOfARetiredModelAndMatchModelsByName()
    {
        replica("one", plans(0));
        replica("two", new PlansBuilder().model("b", 0.5, 1.0).model("a", 0.9, 1.0)
            .decision("d").candidates("b", "a").add().build());
        final MultiFactorEngine e1 = engines.get(0);
        final MultiFactorEngine e2 = engines.get(1);
        e1.begin(e1.modelId("a"));
        e1.begin(e1.modelId("a"));
        e1.begin(e1.modelId("b"));
        periods(1);
        assertThat(e2.inflight(e2.modelId("a"))).isEqualTo(2);
        assertThat(e2.inflight(e2.modelId("b"))).isEqualTo(1);

        final int oldA = e2.modelId("a");
        e2.replacePlans(new PlansBuilder(e2.plans()).model("b", 0.5, 1.0).decision("d").candidates("b").add().build());
        assertThat(e2.inflight(oldA)).isZero();
        assertThat(e2.inflight(e2.modelId("b"))).isEqualTo(1);
    }

    @Test
    void shouldRemoveRemoteCountsWhenTheAgentCloses()
    {
        replica("one", plans(0));
        final FleetAgent two = replica("two", plans(0));
        final MultiFactorEngine e1 = engines.get(0);
        final MultiFactorEngine e2 = engines.get(1);
        e1.begin(e1.modelId("a"));
        periods(1);
        assertThat(e2.inflight(e2.modelId("a"))).isEqualTo(1);
        two.onClose();
        assertThat(e2.inflight(e2.modelId("a"))).isZero();
    }
}
