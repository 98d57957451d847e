package io.multifactor.kernel.engine;

import io.multifactor.kernel.metrics.CounterLabel;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import io.multifactor.kernel.signal.ServerBackend;
import io.multifactor.kernel.signal.ServerKind;
import io.multifactor.kernel.signal.ServerLoadTable;
import io.multifactor.kernel.signal.ServerMetricsSettings;
import io.multifactor.kernel.signal.WhenStale;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The engine's model-server signals: what the refresh computes from the table, when, and what it counts. */
class EngineServerSignalsTest
{
    private static final long MS = 1_000_000L;
    private static final long SECOND_NS = 1_000 * MS;

    /** every 500 ms, stale after 2 s. */
    private static final ServerMetricsSettings SETTINGS =
        new ServerMetricsSettings(500 * MS, "/metrics", 250 * MS, 2 * SECOND_NS, WhenStale.SATURATED);

    private static final ServerBackend A1 = new ServerBackend("a", false, "10.0.0.1", 8000, ServerKind.VLLM);
    private static final ServerBackend A2 = new ServerBackend("a", false, "10.0.0.2", 8000, ServerKind.VLLM);
    private static final ServerBackend C1 = new ServerBackend("c", false, "10.0.0.3", 30000, ServerKind.SGLANG);

    private final CachedNanoClock clock = new CachedNanoClock();
    private MultiFactorEngine engine;

    @AfterEach
    void close()
    {
        if (engine != null)
        {
            engine.close();
        }
    }

    private static Plans plans()
    {
        return new PlansBuilder()
            .model("a", 0.5, 1.0)
            .model("b", 0.9, 2.0)
            .model("c", 0.7, 1.5)
            .decision("d").candidates("a", "b", "c").add()
            .decision("plain").candidates("b").add()
            .build();
    }

    private MultiFactorEngine engine(final List<ServerBackend> backends)
    {
        clock.update(1_000 * SECOND_NS);
        engine = MultiFactorEngine.builder(plans()).clock(clock).serverMetrics(SETTINGS, backends).build();
        return engine;
    }

    private void advance(final long ns)
    {
        clock.update(clock.nanoTime() + ns);
    }

    private Map<String, Long> counters()
    {
        return EngineMetricsTest.live(engine.countersReader());
    }

    @Test
    void shouldPublishTheSmallestQueueAndKvCacheAmongFreshBackends()
    {
        engine(List.of(A1, A2, C1));
        final ServerLoadPublisher published = engine.serverPublisher();
        final int a = engine.modelId("a");
        final int b = engine.modelId("b");
        final int c = engine.modelId("c");
        assertThat(engine.reportServerLoad(a, A1.key(), 9, 4, 0.2)).isTrue();
        assertThat(engine.reportServerLoad(a, A2.key(), 3, 4, 0.7)).isTrue();
        engine.refreshNow();
        // W(a) from the backend with the fewer waiting, K(a) from the other: each is the smallest on its own.
        assertThat(published.queue(a)).isEqualTo(3.0);
        assertThat(published.kvCache(a)).isEqualTo(0.2);
        assertThat(published.stale(a)).isFalse();
        // c has server set but no answer yet: missing, and not stale during its grace.
        assertThat(published.queue(c)).isNaN();
        assertThat(published.kvCache(c)).isNaN();
        assertThat(published.stale(c)).isFalse();
        // b has no server: never any signal, never stale.
        assertThat(published.queue(b)).isNaN();
        assertThat(published.stale(b)).isFalse();
        final Map<String, Long> counters = counters();
        assertThat(counters).containsEntry(CounterLabel.format("mf.server.queue", "model", "a"), 3L)
            .containsEntry(CounterLabel.format("mf.server.kv_cache", "model", "a"), 200_000L)
            .containsEntry(CounterLabel.format("mf.server.queue", "model", "c"), -1L)
            .containsEntry(CounterLabel.format("mf.server.fresh", "backend", A1.key()), 1L)
            .containsEntry(CounterLabel.format("mf.server.fresh", "backend", C1.key()), 0L)
            .containsEntry(CounterLabel.format("mf.server.scrapes", "backend", A1.key(), "result", "ok"), 1L)
            .containsEntry(CounterLabel.format("mf.server.scrapes", "backend", A1.key(), "result", "refused"), 0L)
            .doesNotContainKey(CounterLabel.format("mf.server.queue", "model", "b"));
        // What select reads: the decision's candidate signals; a decision without a scraped model gets none.
        final EngineState state = engine.installer.state;
        assertThat(state.decision(engine.decisionId("d")).signals.queue(0)).isEqualTo(3.0);
        assertThat(state.decision(engine.decisionId("d")).signals.kvCache(0)).isEqualTo(0.2);
        assertThat(state.decision(engine.decisionId("plain")).signals.readsBeyondSeed()).isFalse();
    }

    @Test
    void shouldDropABackendFromTheMinimumOnceStaleAndMarkTheModelStaleWhenAllAre()
    {
        engine(List.of(A1, A2, C1));
        final ServerLoadPublisher published = engine.serverPublisher();
        final int a = engine.modelId("a");
        final int c = engine.modelId("c");
        engine.reportServerLoad(a, A1.key(), 1, Double.NaN, 0.1);
        advance(1_500 * MS);
        engine.reportServerLoad(a, A2.key(), 6, Double.NaN, 0.6);
        engine.refreshNow();
        assertThat(published.queue(a)).isEqualTo(1.0);
        // A1's answer is 2 s old (stale_after): only A2's counts.
        advance(500 * MS);
        engine.refreshNow();
        assertThat(published.queue(a)).isEqualTo(6.0);
        assertThat(published.kvCache(a)).isEqualTo(0.6);
        // 2 s after the engine started c is stale: its grace is over and it never answered.
        assertThat(published.stale(c)).isTrue();
        assertThat(published.stale(a)).isFalse();
        advance(1_500 * MS);
        engine.refreshNow();
        assertThat(published.queue(a)).isNaN();
        assertThat(published.kvCache(a)).isNaN();
        assertThat(published.stale(a)).isTrue();
        assertThat(counters()).containsEntry(CounterLabel.format("mf.server.fresh", "backend", A2.key()), 0L)
            .containsEntry(CounterLabel.format("mf.server.queue", "model", "a"), -1L);
    }

    @Test
    void aModelShouldNotBeStaleDuringTheFirstStaleAfterOfItsAppearance()
    {
        engine(List.of(A1));
        final ServerLoadPublisher published = engine.serverPublisher();
        advance(5 * SECOND_NS);
        engine.refreshNow();
        assertThat(published.stale(engine.modelId("a"))).isTrue();
        // c appears now, 5 s after the engine started: its own grace starts now; a keeps its state.
        engine.configureServers(SETTINGS, List.of(A1, C1));
        advance(1_999 * MS);
        engine.refreshNow();
        assertThat(published.stale(engine.modelId("c"))).isFalse();
        assertThat(published.stale(engine.modelId("a"))).isTrue();
        advance(MS);
        engine.refreshNow();
        assertThat(published.stale(engine.modelId("c"))).isTrue();
    }

    @Test
    void shouldPublishBetweenRefreshesEveryScrapePeriod()
    {
        engine(List.of(A1));
        final int a = engine.modelId("a");
        engine.refreshNow();
        engine.reportServerLoad(a, A1.key(), 4, Double.NaN, 0.4);
        // latency_refresh is 1 s; the server signals follow every 500 ms.
        assertThat(engine.serverPublisher().queue(a)).isNaN();
        advance(499 * MS);
        assertThat(engine.refresh()).isZero();
        assertThat(engine.serverPublisher().queue(a)).isNaN();
        advance(MS);
        assertThat(engine.refresh()).isEqualTo(1);
        assertThat(engine.serverPublisher().queue(a)).isEqualTo(4.0);
    }

    @Test
    void aLoadReportShouldBeRefusedAndCountedWhenOutOfRangeAndIgnoredForUnknownBackends()
    {
        engine(List.of(A1));
        final int a = engine.modelId("a");
        final int b = engine.modelId("b");
        assertThat(engine.reportServerLoad(a, A1.key(), 2, Double.NaN, 1.5)).isFalse();
        assertThat(engine.reportServerLoad(a, A1.key(), -1, Double.NaN, 0.5)).isFalse();
        assertThat(engine.reportServerLoad(a, "http://10.9.9.9:1", 2, Double.NaN, 0.5)).isFalse();
        assertThat(engine.reportServerLoad(b, A1.key(), 2, Double.NaN, 0.5)).isFalse();
        assertThat(engine.reportServerLoad(99, A1.key(), 2, Double.NaN, 0.5)).isFalse();
        engine.refreshNow();
        assertThat(engine.serverPublisher().queue(a)).isNaN();
        assertThat(counters())
            .containsEntry(CounterLabel.format("mf.server.scrapes", "backend", A1.key(), "result", "refused"), 2L)
            .containsEntry(CounterLabel.format("mf.server.scrapes", "backend", A1.key(), "result", "ok"), 0L);
    }

    @Test
    void aReconfigurationShouldKeepTheSignalsOfTheBackendsThatStayAndRetireTheCountersOfThoseThatLeave()
    {
        engine(List.of(A1, A2));
        final int a = engine.modelId("a");
        engine.reportServerLoad(a, A1.key(), 5, Double.NaN, 0.5);
        engine.reportServerLoad(a, A2.key(), 2, Double.NaN, 0.9);
        engine.configureServers(SETTINGS, List.of(A1, C1));
        final ServerLoadTable table = engine.serverSignals().table();
        assertThat(table.backendIndex("a", A2.key())).isEqualTo(ServerLoadTable.NOT_FOUND);
        assertThat(engine.serverPublisher().queue(a)).isEqualTo(5.0);
        assertThat(counters())
            .containsEntry(CounterLabel.format("mf.server.scrapes", "backend", A1.key(), "result", "ok"), 1L)
            .containsKey(CounterLabel.format("mf.server.queue", "model", "c"))
            .doesNotContainKey(CounterLabel.format("mf.server.fresh", "backend", A2.key()));
        assertThat(EngineMetricsTest.retired(engine.countersReader()))
            .contains(CounterLabel.format("mf.server.fresh", "backend", A2.key()));
        // Off: no model has server signals any more.
        engine.configureServers(null, List.of());
        assertThat(engine.serverPublisher().queue(a)).isNaN();
        assertThat(engine.serverPublisher().stale(a)).isFalse();
        assertThat(counters()).doesNotContainKey(CounterLabel.format("mf.server.queue", "model", "a"));
    }
}
