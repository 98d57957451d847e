package io.multifactor.kernel.engine;

import io.multifactor.api.DropReason;
import io.multifactor.api.Exclusions;
import io.multifactor.api.Factor;
import io.multifactor.api.Outcome;
import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One caller-owned selection reused across decisions, request costs and unknown handles reads, each time, exactly the
 * decision it was last filled for: the shared configured arrays follow the decision (they are stored only when it
 * changes), request-priced costs do not leak into the next plain selection, and the drop count is that selection's.
 */
class SelectionReuseTest
{
    private static Plans plans()
    {
        return new PlansBuilder()
            .model("a", 0.9, 10.0, 30.0).model("b", 0.5, 2.0, 4.0).model("c", 0.2, 1.0, 1.0)
            .decision("three").candidates("a", "b", "c").weights(0.5, 0.0, 0.5, 0.0).add()
            .decision("two").candidates("c", "a").weights(0.0, 0.0, 1.0, 0.0).costMix(1.0, 1.0).add()
            .build();
    }

    private static void assertReads(final Selection out, final DecisionPlan plan)
    {
        assertThat(out.decisionId()).isEqualTo(plan.id());
        assertThat(out.candidateCount()).isEqualTo(plan.candidateCount());
        for (int i = 0; i < plan.candidateCount(); i++)
        {
            assertThat(out.modelId(i)).isEqualTo(plan.candidateModelId(i));
            assertThat(out.quality(i)).isEqualTo(plan.quality(i));
            assertThat(out.costPer1M(i)).isEqualTo(plan.costPer1M(i));
        }
        for (int f = 0; f < Factor.COUNT; f++)
        {
            assertThat(out.weight(f)).isEqualTo(plan.weight(f));
        }
    }

    @Test
    void shouldReadTheDecisionItWasLastFilledForAcrossDecisionsRequestsAndUnknownHandles()
    {
        try (MultiFactorEngine engine = MultiFactorEngine.builder(plans()).build())
        {
            final Plans plans = engine.plans();
            final DecisionPlan three = plans.decision(plans.decisionId("three"));
            final DecisionPlan two = plans.decision(plans.decisionId("two"));
            final Selection out = new Selection(1);

            engine.select(three.id(), null, out);
            assertReads(out, three);
            assertThat(out.droppedCount()).isZero();

            engine.select(two.id(), new Exclusions().add(engine.modelId("c")), out);
            assertReads(out, two);
            assertThat(out.droppedCount()).isEqualTo(1);
            assertThat(out.dropReason(0)).isEqualTo(DropReason.EXCLUDED);
            assertThat(engine.plans().modelName(out.selectedModel())).isEqualTo("a");

            // A request with token counts prices the candidates its own way, for that selection only.
            final Request priced = new Request().decision(three.id()).promptTokens(1_000).maxOutputTokens(3_000);
            engine.select(priced, out);
            assertThat(out.costPer1M(0)).isEqualTo((1_000 * 10.0 + 3_000 * 30.0) / 4_000);
            engine.select(three.id(), null, out);
            assertReads(out, three);
            assertThat(out.droppedCount()).isZero();

            engine.select(-7, null, out);
            assertThat(out.outcome()).isEqualTo(Outcome.FAILED);
            assertThat(out.candidateCount()).isZero();
            assertThat(out.hasSelection()).isFalse();
            assertThat(out.droppedCount()).isZero();

            engine.select(two.id(), null, out);
            assertReads(out, two);
            assertThat(out.outcome()).isEqualTo(Outcome.SCORED);
        }
    }
}
