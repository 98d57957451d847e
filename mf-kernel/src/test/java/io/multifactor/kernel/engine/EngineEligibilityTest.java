package io.multifactor.kernel.engine;

import io.multifactor.api.Capability;
import io.multifactor.api.DropReason;
import io.multifactor.api.InflightTracker;
import io.multifactor.api.Outcome;
import io.multifactor.api.Priority;
import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.kernel.explain.Explanation;
import io.multifactor.kernel.metrics.CounterLabel;
import io.multifactor.kernel.plan.NoCandidatesPolicy;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import io.multifactor.kernel.plan.RequestRules;
import io.multifactor.kernel.scoring.RequestScreen;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Eligibility, the request's own ceilings and admission on the engine: a context window or a missing capability drops
 * a candidate first, and only the eligible ones take part afterwards (fallbacks included); none eligible is outcome
 * {@code ineligible} without a lease; a request's TTFT ceiling tightens the decision's and never loosens it; a
 * {@code sheddable} request is shed when no eligible candidate has room under {@code admission}, a critical one is not;
 * {@code on_no_candidates: shed} sheds only when every eligible candidate was dropped for load; both outcomes are
 * counted per decision.
 */
class EngineEligibilityTest
{
    private final CachedNanoClock clock = new CachedNanoClock();
    private final Selection out = new Selection();
    private MultiFactorEngine engine;

    @AfterEach
    void close()
    {
        if (engine != null)
        {
            engine.close();
        }
    }

    private MultiFactorEngine engine(final Plans plans)
    {
        clock.update(TimeUnit.SECONDS.toNanos(1_000));
        engine = MultiFactorEngine.builder(plans).clock(clock).build();
        return engine;
    }

    private static PlansBuilder models()
    {
        // small: best quality, 8k context, no tools; large: 128k, every capability; cheap: no capability at all.
        return new PlansBuilder().defaultOutputTokens(512)
            .model("small", 0.9, 5.0).model("large", 0.6, 10.0).model("cheap", 0.3, 0.5)
            .eligibility("small", 8_192, Capability.VISION | Capability.JSON_SCHEMA)
            .eligibility("large", 131_072, Capability.ALL)
            .eligibility("cheap", 4_096, 0);
    }

    @Test
    void shouldDropByContextThenCapabilityAndScoreOnlyTheEligible()
    {
        engine(models().decision("d").candidates("small", "large", "cheap").weights(1.0, 0.0, 0.0, 0.0).add().build());
        final int d = engine.decisionId("d");
        final Request request = new Request().decision(d).promptTokens(7_000);
        engine.select(request, out);
        assertThat(out.outcome()).isEqualTo(Outcome.SCORED);
        assertThat(out.selectedIndex()).as("7,000 + 512 fits 8,192").isEqualTo(0);
        assertThat(out.dropReason(2)).as("7,512 > 4,096").isEqualTo(DropReason.CONTEXT);

        request.clear().decision(d).promptTokens(8_000).maxOutputTokens(1_200);
        engine.select(request, out);
        assertThat(out.dropReason(0)).as("9,200 > 8,192").isEqualTo(DropReason.CONTEXT);
        assertThat(out.selectedIndex()).isEqualTo(1);
        assertThat(Explanation.of(engine.plans(), engine.plans().decision(d), out, false, request).candidates().get(0)
            .dropped()).isEqualTo("context=9200>8192");

        request.clear().decision(d).needs(Capability.TOOLS).promptTokens(100);
        engine.select(request, out);
        assertThat(out.dropReason(0)).isEqualTo(DropReason.CAPABILITY);
        assertThat(out.dropReason(2)).as("[] lacks everything").isEqualTo(DropReason.CAPABILITY);
        assertThat(out.selectedIndex()).isEqualTo(1);
        assertThat(out.boundMin(io.multifactor.api.Factor.QUALITY)).as("normalized over the eligible only")
            .isEqualTo(0.6);
        assertThat(Explanation.of(engine.plans(), engine.plans().decision(d), out, false, request).candidates().get(0)
            .dropped()).isEqualTo("capability=tools");

        request.clear().decision(d).exclude(engine.modelId("small")).promptTokens(9_000);
        engine.select(request, out);
        assertThat(out.dropReason(0)).as("excluded is checked first").isEqualTo(DropReason.EXCLUDED);
    }

    @Test
    void shouldAnswerIneligibleWithoutFallbackOrLease()
    {
        engine(models().decision("d").candidates("small", "cheap").policy(NoCandidatesPolicy.FIRST).add().build());
        final int d = engine.decisionId("d");
        final Request request = new Request().decision(d).needs(Capability.TOOLS);
        final long lease = engine.selectAndBegin(request, out);
        assertThat(lease).isEqualTo(InflightTracker.NO_LEASE);
        assertThat(out.outcome()).isEqualTo(Outcome.INELIGIBLE);
        assertThat(out.hasSelection()).isFalse();
        assertThat(engine.inflight(engine.modelId("small"))).isZero();
        assertThat(engine.inflight(engine.modelId("cheap"))).isZero();

        request.clear().decision(d).exclude(engine.modelId("small")).exclude(engine.modelId("cheap"));
        engine.select(request, out);
        assertThat(out.outcome()).as("every candidate excluded still fails").isEqualTo(Outcome.FAILED);

        engine.refreshNow();
        assertThat(EngineMetricsTest.live(engine.countersReader()))
            .containsEntry(CounterLabel.format("mf.selections", "decision", "d", "outcome", "ineligible"), 1L)
            .containsEntry(CounterLabel.format("mf.selections", "decision", "d", "outcome", "failed"), 1L)
            .containsEntry(CounterLabel.format("mf.drops", "model", "cheap", "reason", "capability"), 1L);
    }

    @Test
    void shouldFallBackOnlyAmongTheEligible()
    {
        // cheap is the cheapest but too small; every eligible candidate breaks max_ttft_ms.
        engine(models().decision("d").candidates("small", "large", "cheap").slo(0.0, 100.0, 0.0, 0L).add().build());
        final int d = engine.decisionId("d");
        engine.recordTtftMs(engine.modelId("small"), 300.0);
        engine.recordTtftMs(engine.modelId("large"), 200.0);
        engine.recordTtftMs(engine.modelId("cheap"), 200.0);
        engine.refreshNow();
        engine.select(new Request().decision(d).promptTokens(6_000), out);
        assertThat(out.outcome()).isEqualTo(Outcome.FALLBACK_CHEAPEST);
        assertThat(out.selectedIndex()).as("the cheapest eligible, not cheap").isEqualTo(0);
        assertThat(out.dropReason(2)).isEqualTo(DropReason.CONTEXT);
    }

    @Test
    void shouldTightenButNeverLoosenTheDecisionsCeilings()
    {
        engine(models().decision("d").candidates("small", "large").weights(1.0, 0.0, 0.0, 0.0)
            .slo(0.0, 500.0, 0.0, 0L).add().build());
        final int d = engine.decisionId("d");
        engine.recordTtftMs(engine.modelId("small"), 300.0);
        engine.recordTtftMs(engine.modelId("large"), 100.0);
        engine.refreshNow();
        final Request request = new Request().decision(d);
        engine.select(request, out);
        assertThat(out.selectedIndex()).as("300 ms is within the decision's 500").isEqualTo(0);
        request.maxTtftMs(200.0);
        engine.select(request, out);
        assertThat(out.dropReason(0)).isEqualTo(DropReason.TTFT);
        assertThat(out.selectedIndex()).isEqualTo(1);
        assertThat(Explanation.of(engine.plans(), engine.plans().decision(d), out, false, request).candidates().get(0)
            .dropped()).startsWith("ttft_p95=").endsWith("ms>200.0ms");
        request.maxTtftMs(10_000.0);
        engine.recordTtftMs(engine.modelId("small"), 900.0);
        clock.update(clock.nanoTime() + TimeUnit.SECONDS.toNanos(120));
        engine.recordTtftMs(engine.modelId("small"), 900.0);
        engine.refreshNow();
        engine.select(request, out);
        assertThat(out.dropReason(0)).as("a looser request ceiling keeps the decision's 500").isEqualTo(DropReason.TTFT);
        assertThat(RequestScreen.maxTtftMs(engine.plans().decision(d), request)).isEqualTo(500.0);
        assertThat(RequestScreen.maxTtftMs(engine.plans().decision(d), new Request().maxTtftMs(0.0))).isEqualTo(500.0);
    }

    @Test
    void shouldShedASheddableRequestWhenNoEligibleCandidateHasRoom()
    {
        engine(models().decision("d").candidates("small", "large").slo(0.0, 0.0, 0.0, 10L).admission(0.5).add()
            .decision("unbounded").candidates("small", "large").admission(0.5).add().build());
        final int d = engine.decisionId("d");
        final int small = engine.modelId("small");
        final int large = engine.modelId("large");
        for (int i = 0; i < 5; i++)
        {
            engine.begin(small);
        }
        final Request sheddable = new Request().decision(d).priority(Priority.SHEDDABLE);
        engine.select(sheddable, out);
        assertThat(out.outcome()).as("large has 0 < 0.5 x 10").isEqualTo(Outcome.SCORED);
        for (int i = 0; i < 5; i++)
        {
            engine.begin(large);
        }
        final long lease = engine.selectAndBegin(sheddable, out);
        assertThat(lease).isEqualTo(InflightTracker.NO_LEASE);
        assertThat(out.outcome()).as("5 is not below 5 on either").isEqualTo(Outcome.SHED);
        assertThat(out.dropReason(0)).isEqualTo(DropReason.NONE);
        assertThat(out.score(0)).isNaN();
        assertThat(engine.inflight(small)).isEqualTo(5);
        assertThat(engine.selectAndBegin(new Request().decision(d).priority(Priority.CRITICAL), out))
            .isNotEqualTo(InflightTracker.NO_LEASE);
        assertThat(out.outcome()).isEqualTo(Outcome.SCORED);
        engine.select(new Request().decision(engine.decisionId("unbounded")).priority(Priority.SHEDDABLE), out);
        assertThat(out.outcome()).as("no load ceiling: never sheds").isEqualTo(Outcome.SCORED);
        engine.refreshNow();
        assertThat(EngineMetricsTest.live(engine.countersReader()))
            .containsEntry(CounterLabel.format("mf.selections", "decision", "d", "outcome", "shed"), 1L);
    }

    @Test
    void shouldShedOnNoCandidatesOnlyWhenEveryDropIsForLoad()
    {
        engine(models().decision("d").candidates("small", "large").slo(0.0, 100.0, 0.0, 1L)
            .policy(NoCandidatesPolicy.SHED).add().build());
        final int d = engine.decisionId("d");
        final int small = engine.modelId("small");
        final int large = engine.modelId("large");
        engine.begin(small);
        engine.begin(small);
        engine.begin(large);
        engine.begin(large);
        engine.select(new Request().decision(d), out);
        assertThat(out.outcome()).as("both dropped for in-flight").isEqualTo(Outcome.SHED);
        engine.recordTtftMs(large, 900.0);
        engine.refreshNow();
        engine.select(new Request().decision(d), out);
        assertThat(out.dropReason(1)).isEqualTo(DropReason.TTFT);
        assertThat(out.outcome()).as("a TTFT drop: behaves as fail").isEqualTo(Outcome.FAILED);
        assertThat(engine.selectAndBegin(new Request().decision(d).exclude(large), out))
            .isEqualTo(InflightTracker.NO_LEASE);
        assertThat(out.outcome()).as("the excluded one does not count").isEqualTo(Outcome.SHED);
    }

    @Test
    void shouldCheckOneNamedModelAlone()
    {
        final Request request = new Request().promptTokens(8_000);
        assertThat(RequestScreen.ineligibility(8_192, Capability.ALL, 512, request)).isEqualTo(DropReason.CONTEXT);
        assertThat(RequestScreen.ineligibility(8_192, Capability.ALL, 100, request)).isEqualTo(DropReason.NONE);
        request.needs(Capability.VISION);
        assertThat(RequestScreen.ineligibility(RequestRules.NO_CONTEXT_WINDOW, Capability.TOOLS, 512, request))
            .isEqualTo(DropReason.CAPABILITY);
        assertThat(RequestScreen.ineligibility(RequestRules.NO_CONTEXT_WINDOW, Capability.ALL, 512, null))
            .isEqualTo(DropReason.NONE);
    }
}
