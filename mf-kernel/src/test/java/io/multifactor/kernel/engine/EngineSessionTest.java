package io.multifactor.kernel.engine;

import io.multifactor.api.Handles;
import io.multifactor.api.InflightTracker;
import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.api.SessionRule;
import io.multifactor.kernel.explain.Explanation;
import io.multifactor.kernel.metrics.CounterLabel;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import io.multifactor.kernel.plan.SessionPolicy;
import io.multifactor.kernel.plan.TieBreak;
import io.multifactor.kernel.reliability.EjectionPolicy;
import io.multifactor.kernel.clock.ManualClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Sessions through the engine's public API: the rules of each request with a key, reserve on select handing a full
 * P off, idle expiry, a reload that keeps the table, the counters, and the figure of a 12-turn session over two equal
 * models.
 */
class EngineSessionTest
{
    private static final long SECOND_NS = TimeUnit.SECONDS.toNanos(1);

    private final ManualClock clock = new ManualClock(1_000_000_000_000L);
    private MultiFactorEngine engine;

    @AfterEach
    void close()
    {
        if (engine != null)
        {
            engine.close();
        }
    }

    private static PlansBuilder twoEqualModels()
    {
        return new PlansBuilder()
            .model("a", 0.5, 1.0)
            .model("b", 0.5, 1.0)
            .reliability("a", new EjectionPolicy(3, 30_000, 300_000, 100))
            .reliability("b", new EjectionPolicy(3, 30_000, 300_000, 100));
    }

    private MultiFactorEngine start(final Plans plans)
    {
        engine = MultiFactorEngine.builder(plans).clock(clock)
            .settings(new SignalSettings(60 * SECOND_NS, SECOND_NS, 120 * SECOND_NS)).build();
        return engine;
    }

    private static Plans equalRandom(final SessionPolicy policy)
    {
        return twoEqualModels().decision("d").candidates("a", "b").weights(1.0, 0.0, 0.0, 0.0)
            .tieBreak(TieBreak.RANDOM).session(policy).add().build();
    }

    private long count(final String rule)
    {
        engine.refreshNow();
        final Long value = EngineMetricsTest.live(engine.countersReader())
            .get(CounterLabel.format("mf.sessions", "decision", "d", "rule", rule));
        return value == null ? -1 : value;
    }

    @Test
    void shouldKeepATwelveTurnSessionOnOneModelAndHandItOffOnceWhenThatModelIsEjected()
    {
        start(equalRandom(SessionPolicy.DEFAULTS));
        final Request request = new Request().decision(engine.requireDecisionId("d")).seed(11);
        final Selection selection = new Selection();
        int first = Handles.NONE;
        int withoutSession = 0;
        for (int turn = 0; turn < 12; turn++)
        {
            final long lease = engine.selectAndBegin(request.session(42L), selection);
            first = turn == 0 ? selection.selectedModel() : first;
            assertThat(selection.selectedModel()).isEqualTo(first);
            assertThat(selection.sessionRule()).isEqualTo(turn == 0 ? SessionRule.NEW : SessionRule.STAY);
            engine.end(lease, 200);
            clock.advanceNs(SECOND_NS);
            // The same draws without a key: the random tie-break scatters the turns over both models.
            request.noSession();
            engine.select(request, selection);
            withoutSession |= 1 << selection.selectedModel();
        }
        assertThat(withoutSession).isEqualTo(0b11);
        assertThat(engine.ejectForMillis(first, 60_000)).isTrue();
        int handoffs = 0;
        int second = Handles.NONE;
        for (int turn = 0; turn < 6; turn++)
        {
            engine.end(engine.selectAndBegin(request.session(42L), selection), 200);
            assertThat(selection.selectedModel()).isNotEqualTo(first);
            second = selection.selectedModel();
            handoffs += selection.sessionRule() == SessionRule.HANDOFF ? 1 : 0;
            if (turn == 0)
            {
                assertThat(selection.sessionPreviousModel()).isEqualTo(first);
            }
            clock.advanceNs(SECOND_NS);
        }
        assertThat(handoffs).isEqualTo(1);
        // Once the ejection is over, the session stays where it was handed off.
        clock.advanceNs(120 * SECOND_NS);
        engine.end(engine.selectAndBegin(request.session(42L), selection), 200);
        assertThat(selection.selectedModel()).isEqualTo(second);
        assertThat(selection.sessionRule()).isEqualTo(SessionRule.STAY);
        assertThat(count("new")).isEqualTo(1);
        assertThat(count("handoff")).isEqualTo(1);
        assertThat(count("stay")).isEqualTo(11 + 5 + 1);
        assertThat(count("switch")).isZero();
    }

    @Test
    void shouldSwitchOnlyWhenAnotherModelBeatsTheBiasedScoreByMoreThanTheMargin()
    {
        // Load only: a model with more in flight scores lower (min-max over the two: 0 against 1).
        final Plans plans = twoEqualModels().decision("d").candidates("a", "b").weights(0.0, 0.0, 0.0, 1.0)
            .session(new SessionPolicy(0.10, 0.05, 1, 300 * SECOND_NS, 100)).add().build();
        start(plans);
        final int a = engine.requireModelId("a");
        final int b = engine.requireModelId("b");
        final Request request = new Request().decision(engine.requireDecisionId("d")).session(7L);
        final Selection selection = new Selection();
        engine.select(request, selection);
        assertThat(selection.selectedModel()).isEqualTo(a);
        assertThat(selection.sessionRule()).isEqualTo(SessionRule.NEW);
        final long lease = engine.begin(a);
        engine.select(request, selection);
        // b scores 1, a 0: 1 > 0 + 0.10 + 0.05.
        assertThat(selection.selectedModel()).isEqualTo(b);
        assertThat(selection.sessionRule()).isEqualTo(SessionRule.SWITCH);
        assertThat(selection.sessionPreviousModel()).isEqualTo(a);
        engine.end(lease);
        engine.select(request, selection);
        // Equal again: X is a (first), P is b: stay.
        assertThat(selection.selectedModel()).isEqualTo(b);
        assertThat(selection.sessionRule()).isEqualTo(SessionRule.STAY);
    }

    @Test
    void shouldKeepThePickForMinTurnsEvenAgainstABetterModel()
    {
        final Plans plans = twoEqualModels().decision("d").candidates("a", "b").weights(0.0, 0.0, 0.0, 1.0)
            .session(new SessionPolicy(0.0, 0.0, 3, 300 * SECOND_NS, 100)).add().build();
        start(plans);
        final int a = engine.requireModelId("a");
        final Request request = new Request().decision(engine.requireDecisionId("d")).session(7L);
        final Selection selection = new Selection();
        engine.select(request, selection);
        engine.begin(a);
        engine.select(request, selection);
        assertThat(selection.selectedModel()).isEqualTo(a);
        assertThat(selection.sessionRule()).isEqualTo(SessionRule.MIN_TURNS);
        engine.select(request, selection);
        assertThat(selection.sessionRule()).isEqualTo(SessionRule.MIN_TURNS);
        // Three turns served: now the better model wins.
        engine.select(request, selection);
        assertThat(selection.sessionRule()).isEqualTo(SessionRule.SWITCH);
        assertThat(selection.selectedModel()).isEqualTo(engine.requireModelId("b"));
    }

    @Test
    void shouldForgetAnEntryIdleForTheTimeoutOrLonger()
    {
        start(equalRandom(new SessionPolicy(0.1, 0.05, 1, 10 * SECOND_NS, 100)));
        final Request request = new Request().decision(engine.requireDecisionId("d")).session(3L);
        final Selection selection = new Selection();
        engine.select(request, selection);
        clock.advanceNs(10 * SECOND_NS - 1);
        engine.select(request, selection);
        assertThat(selection.sessionRule()).isEqualTo(SessionRule.STAY);
        clock.advanceNs(10 * SECOND_NS);
        engine.select(request, selection);
        assertThat(selection.sessionRule()).isEqualTo(SessionRule.NEW);
        assertThat(selection.sessionPreviousModel()).isEqualTo(Handles.NONE);
    }

    @Test
    void shouldHandAFullPreviousModelOffToThePickWithoutASession()
    {
        final Plans plans = twoEqualModels().decision("d").candidates("a", "b").weights(1.0, 0.0, 0.0, 0.0)
            .slo(0.0, 0.0, 0.0, 1).session(SessionPolicy.DEFAULTS).add().build();
        start(plans);
        final int a = engine.requireModelId("a");
        final int b = engine.requireModelId("b");
        final Request request = new Request().decision(engine.requireDecisionId("d")).session(9L);
        final Selection selection = new Selection();
        // Load b so that the session starts on a, then free b and fill a (max_inflight 1).
        final long onB = engine.begin(b);
        engine.end(engine.selectAndBegin(request, selection));
        assertThat(selection.selectedModel()).isEqualTo(a);
        engine.end(onB);
        final long lease = engine.selectAndBegin(request, selection);
        assertThat(selection.selectedModel()).isEqualTo(a);
        assertThat(selection.sessionRule()).isEqualTo(SessionRule.STAY);
        // a is full: the stay cannot be reserved, the request is handed off to b, which gets the lease and the entry.
        final long second = engine.selectAndBegin(request, selection);
        assertThat(second).isNotEqualTo(InflightTracker.NO_LEASE);
        assertThat(selection.selectedModel()).isEqualTo(b);
        assertThat(selection.sessionRule()).isEqualTo(SessionRule.HANDOFF);
        engine.end(lease);
        engine.end(second);
        engine.select(request, selection);
        assertThat(selection.selectedModel()).isEqualTo(b);
        assertThat(selection.sessionRule()).isEqualTo(SessionRule.STAY);
    }

    @Test
    void shouldIgnoreAKeyOnADecisionWithoutASessionBlock()
    {
        start(twoEqualModels().decision("d").candidates("a", "b").add().build());
        final Request request = new Request().decision(engine.requireDecisionId("d")).session(1L);
        final Selection selection = new Selection();
        engine.select(request, selection);
        assertThat(selection.sessionRule()).isEqualTo(SessionRule.OFF);
        final Explanation explanation = engine.explain(request);
        assertThat(explanation.session()).isEqualTo(Explanation.Session.IGNORED);
        assertThat(engine.explain(request.noSession()).session()).isNull();
        assertThat(EngineMetricsTest.live(engine.countersReader()).keySet()).noneMatch(l -> l.startsWith("mf.sessions"));
    }

    @Test
    void shouldKeepEntriesAcrossAReloadThatKeepsTheDecisionAndHandOffAModelThatLeft()
    {
        final Plans first = twoEqualModels().model("c", 0.1, 1.0).decision("d").candidates("a", "b", "c")
            .weights(0.0, 0.0, 0.0, 1.0).session(SessionPolicy.DEFAULTS).add().build();
        start(first);
        final int a = engine.requireModelId("a");
        final Request request = new Request().decision(engine.requireDecisionId("d")).session(5L);
        final Selection selection = new Selection();
        engine.select(request, selection);
        assertThat(selection.selectedModel()).isEqualTo(a);
        engine.replacePlans(new PlansBuilder(first).model("a", 0.5, 1.0).model("b", 0.5, 1.0).model("c", 0.1, 1.0)
            .decision("d").candidates("a", "b", "c").weights(0.0, 0.0, 0.0, 1.0).session(SessionPolicy.DEFAULTS)
            .add().build());
        engine.select(request, selection);
        assertThat(selection.sessionRule()).isEqualTo(SessionRule.STAY);
        assertThat(selection.sessionPreviousModel()).isEqualTo(a);
        engine.replacePlans(new PlansBuilder(first).model("b", 0.5, 1.0).model("c", 0.1, 1.0)
            .decision("d").candidates("b", "c").weights(0.0, 0.0, 0.0, 1.0).session(SessionPolicy.DEFAULTS)
            .add().build());
        engine.select(request, selection);
        assertThat(selection.sessionRule()).isEqualTo(SessionRule.HANDOFF);
        assertThat(selection.sessionPreviousModel()).isEqualTo(a);
    }

    @Test
    void shouldExplainAStatedEntryWithTheSameRulesAndChangeNothing()
    {
        start(equalRandom(SessionPolicy.DEFAULTS));
        final Request request = new Request().decision(engine.requireDecisionId("d")).seed(3).session(77L);
        final int b = engine.requireModelId("b");
        final Explanation stay = engine.explain(request, b, 2, 0);
        assertThat(stay.selected()).isEqualTo("b");
        assertThat(stay.session()).isEqualTo(new Explanation.Session("b", "stay"));
        final Explanation idle = engine.explain(request, b, 2, 300_000);
        assertThat(idle.session()).isEqualTo(new Explanation.Session(null, "new"));
        final Explanation none = engine.explain(request, Handles.NONE, 1, 0);
        assertThat(none.session().rule()).isEqualTo("new");
        final Selection selection = new Selection();
        engine.select(request, selection);
        // The explanations changed no entry: the first selection of the key is new.
        assertThat(selection.sessionRule()).isEqualTo(SessionRule.NEW);
        final Map<String, Long> counters = EngineMetricsTest.live(engine.countersReader());
        assertThat(counters).containsKey(CounterLabel.format("mf.sessions.live", "decision", "d"));
        engine.refreshNow();
        assertThat(EngineMetricsTest.live(engine.countersReader()))
            .containsEntry(CounterLabel.format("mf.sessions.live", "decision", "d"), 1L);
    }
}
