package io.multifactor.kernel.engine;

import io.multifactor.api.DropReason;
import io.multifactor.api.Exclusions;
import io.multifactor.api.Handles;
import io.multifactor.api.InflightTracker;
import io.multifactor.api.Outcome;
import io.multifactor.api.Selection;
import io.multifactor.kernel.plan.NoCandidatesPolicy;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class SelectAndBeginTest
{
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

    /** Quality only: "best" (0.9) ranks before "good" (0.6) before "cheap" (0.3, listed first, cheapest). */
    private MultiFactorEngine engine(final long maxInflight, final int policy)
    {
        final Plans plans = new PlansBuilder()
            .model("cheap", 0.3, 0.5)
            .model("good", 0.6, 2.0)
            .model("best", 0.9, 9.0)
            .decision("d")
            .candidates("cheap", "good", "best")
            .weights(1.0, 0.0, 0.0, 0.0)
            .slo(0.0, 0.0, 0.0, maxInflight)
            .policy(policy)
            .add()
            .build();
        clock.update(1_000_000_000_000L);
        engine = MultiFactorEngine.builder(plans).clock(clock).build();
        return engine;
    }

    @Test
    void shouldLeaseTheChosenModelWhenNoCeilingIsSet()
    {
        final MultiFactorEngine engine = engine(0, NoCandidatesPolicy.FAIL);
        final Selection out = new Selection();
        for (int i = 1; i <= 3; i++)
        {
            final long lease = engine.selectAndBegin(engine.decisionId("d"), null, out);
            assertThat(lease).isNotEqualTo(InflightTracker.NO_LEASE);
            assertThat(out.lease()).isEqualTo(lease);
            assertThat(out.selectedModel()).isEqualTo(engine.modelId("best"));
            assertThat(engine.inflight(engine.modelId("best"))).isEqualTo(i);
        }
        engine.select(engine.decisionId("d"), null, out);
        assertThat(out.lease()).as("a plain select takes no lease").isEqualTo(InflightTracker.NO_LEASE);
    }

    @Test
    void shouldTryTheNextSurvivorInRankingOrderWhenTheChosenModelIsFull()
    {
        final MultiFactorEngine engine = engine(2, NoCandidatesPolicy.FAIL);
        final int d = engine.decisionId("d");
        final int best = engine.modelId("best");
        final int good = engine.modelId("good");
        final int cheap = engine.modelId("cheap");
        final Selection out = new Selection();
        final long[] leases = new long[6];
        final int[] expected = { best, best, good, good, cheap, cheap };
        for (int i = 0; i < expected.length; i++)
        {
            leases[i] = engine.selectAndBegin(d, null, out);
            assertThat(out.selectedModel()).as("lease %d", i).isEqualTo(expected[i]);
            assertThat(out.outcome()).isEqualTo(Outcome.SCORED);
            assertThat(leases[i]).isNotEqualTo(InflightTracker.NO_LEASE);
        }
        // The last one found "best" and "good" full: both dropped for in-flight, the choice scored.
        assertThat(out.dropReason(2)).isEqualTo(DropReason.INFLIGHT);
        assertThat(out.dropReason(1)).isEqualTo(DropReason.INFLIGHT);
        assertThat(out.score(2)).isNaN();
        assertThat(out.selectedScore()).isEqualTo(out.score(0)).isNotNaN();
        assertThat(engine.inflight(best)).isEqualTo(2);
        assertThat(engine.inflight(good)).isEqualTo(2);
        assertThat(engine.inflight(cheap)).isEqualTo(2);

        // Every survivor full, on_no_candidates: fail: nothing chosen, nothing leased.
        assertThat(engine.selectAndBegin(d, null, out)).isEqualTo(InflightTracker.NO_LEASE);
        assertThat(out.outcome()).isEqualTo(Outcome.FAILED);
        assertThat(out.hasSelection()).isFalse();
        assertThat(out.lease()).isEqualTo(InflightTracker.NO_LEASE);

        assertThat(engine.end(leases[0])).isTrue();
        assertThat(engine.selectAndBegin(d, null, out)).isNotEqualTo(InflightTracker.NO_LEASE);
        assertThat(out.selectedModel()).isEqualTo(best);
        for (int i = 1; i < leases.length; i++)
        {
            assertThat(engine.end(leases[i])).isTrue();
        }
        assertThat(engine.end(out.lease())).isTrue();
        assertThat(engine.inflight(best) + engine.inflight(good) + engine.inflight(cheap)).isZero();
    }

    @Test
    void shouldApplyTheFallbackPolicyAndLeaseWithoutTheCheckWhenEverySurvivorIsFull()
    {
        final MultiFactorEngine engine = engine(1, NoCandidatesPolicy.CHEAPEST);
        final int d = engine.decisionId("d");
        final Selection out = new Selection();
        for (int i = 0; i < 3; i++)
        {
            assertThat(engine.selectAndBegin(d, null, out)).isNotEqualTo(InflightTracker.NO_LEASE);
            assertThat(out.outcome()).isEqualTo(Outcome.SCORED);
        }
        final long lease = engine.selectAndBegin(d, null, out);
        assertThat(lease).isNotEqualTo(InflightTracker.NO_LEASE);
        assertThat(out.outcome()).isEqualTo(Outcome.FALLBACK_CHEAPEST);
        assertThat(out.selectedModel()).isEqualTo(engine.modelId("cheap"));
        assertThat(out.selectedScore()).isNaN();
        assertThat(engine.inflight(engine.modelId("cheap"))).as("the fallback pick goes past the ceiling").isEqualTo(2);

        // The SLO filter now drops "cheap" (2 > 1) before reservation; the fallback still picks it.
        assertThat(engine.selectAndBegin(d, null, out)).isNotEqualTo(InflightTracker.NO_LEASE);
        assertThat(out.outcome()).isEqualTo(Outcome.FALLBACK_CHEAPEST);
        assertThat(out.dropReason(0)).isEqualTo(DropReason.INFLIGHT);
        assertThat(engine.inflight(engine.modelId("cheap"))).isEqualTo(3);
    }

    @Test
    void shouldFallBackToTheFirstCandidateTheRequestDidNotExclude()
    {
        final MultiFactorEngine engine = engine(1, NoCandidatesPolicy.FIRST);
        final int d = engine.decisionId("d");
        final Selection out = new Selection();
        final Exclusions exclusions = new Exclusions();
        exclusions.add(engine.modelId("cheap"));
        assertThat(engine.selectAndBegin(d, exclusions, out)).isNotEqualTo(InflightTracker.NO_LEASE);
        assertThat(engine.selectAndBegin(d, exclusions, out)).isNotEqualTo(InflightTracker.NO_LEASE);
        assertThat(out.selectedModel()).isEqualTo(engine.modelId("good"));
        assertThat(engine.selectAndBegin(d, exclusions, out)).isNotEqualTo(InflightTracker.NO_LEASE);
        assertThat(out.outcome()).isEqualTo(Outcome.FALLBACK_FIRST);
        assertThat(out.selectedModel()).isEqualTo(engine.modelId("good"));
        assertThat(out.dropReason(0)).isEqualTo(DropReason.EXCLUDED);
        assertThat(engine.inflight(engine.modelId("cheap"))).isZero();
    }

    @Test
    void shouldLeaseNothingForAnUnknownDecisionOrWhenEveryCandidateIsExcluded()
    {
        final MultiFactorEngine engine = engine(0, NoCandidatesPolicy.CHEAPEST);
        final Selection out = new Selection();
        assertThat(engine.selectAndBegin(Handles.NONE, null, out)).isEqualTo(InflightTracker.NO_LEASE);
        assertThat(out.outcome()).isEqualTo(Outcome.FAILED);
        final Exclusions all = new Exclusions();
        all.add(engine.modelId("cheap"));
        all.add(engine.modelId("good"));
        all.add(engine.modelId("best"));
        assertThat(engine.selectAndBegin(engine.decisionId("d"), all, out)).isEqualTo(InflightTracker.NO_LEASE);
        assertThat(out.outcome()).isEqualTo(Outcome.FAILED);
        assertThat(engine.inflight(engine.modelId("cheap"))).isZero();
    }
}
