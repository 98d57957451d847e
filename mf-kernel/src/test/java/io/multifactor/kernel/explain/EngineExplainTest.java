package io.multifactor.kernel.explain;

import io.multifactor.api.Exclusions;
import io.multifactor.api.Factor;
import io.multifactor.api.Handles;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EngineExplainTest
{
    private static Plans plans()
    {
        return new PlansBuilder()
            .model("fast", 0.5, 1.0)
            .model("smart", 0.9, 10.0)
            .decision("d")
            .candidates("smart", "fast")
            .weights(1.0, 0.0, 0.0, 0.0)
            .slo(200.0, 0.0, 0.0, 0)
            .add()
            .build();
    }

    @Test
    void shouldExplainTheChoiceWithEveryCandidateInModelRefsOrder()
    {
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(1_000_000_000_000L);
        try (MultiFactorEngine engine = MultiFactorEngine.builder(plans()).clock(clock).build())
        {
            final int smart = engine.modelId("smart");
            engine.recordTpotMs(smart, 250.0);
            engine.refreshNow();

            final Explanation explanation = engine.explain(engine.decisionId("d"), null);

            assertThat(explanation.decision()).isEqualTo("d");
            assertThat(explanation.outcome()).isEqualTo("scored");
            assertThat(explanation.selected()).isEqualTo("fast");
            assertThat(explanation.weights().get(Factor.QUALITY)).isEqualTo(1.0);
            assertThat(explanation.candidates()).extracting(Explanation.Candidate::model).containsExactly("smart", "fast");
            assertThat(explanation.candidates().get(0).dropped()).startsWith("tpot_p95=").endsWith("ms>200.0ms");
            assertThat(explanation.candidates().get(0).score()).isNaN();
            assertThat(explanation.candidates().get(1).dropped()).isNull();
            assertThat(explanation.candidates().get(1).costPer1M()).isEqualTo(1.0);
        }
    }

    @Test
    void shouldExplainAnExcludedCandidateAndLeaveNoLeaseBehind()
    {
        try (MultiFactorEngine engine = MultiFactorEngine.builder(plans()).build())
        {
            final Exclusions exclusions = new Exclusions();
            exclusions.add(engine.modelId("smart"));

            final Explanation explanation = engine.explain(engine.decisionId("d"), exclusions);

            assertThat(explanation.selected()).isEqualTo("fast");
            assertThat(explanation.candidates().get(0).dropped()).isEqualTo("excluded");
            assertThat(engine.inflight(engine.modelId("fast"))).isZero();
        }
    }

    @Test
    void shouldRefuseAHandleThatNamesNoDecision()
    {
        try (MultiFactorEngine engine = MultiFactorEngine.builder(plans()).build())
        {
            assertThatThrownBy(() -> engine.explain(Handles.NONE, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no decision with handle");
        }
    }
}
