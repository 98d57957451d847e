package io.multifactor.serving;

import io.multifactor.api.Handles;
import io.multifactor.kernel.plan.Plans;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class DecisionResolverTest
{
    private final Plans plans = Engines.load(Engines.TWO_MODELS).plans();

    @Test
    void shouldTakeTheHeaderFirstThenTheBodyModel()
    {
        assertThat(DecisionResolver.resolve(plans, "e", "d")).isEqualTo(plans.decisionId("e"));
        assertThat(DecisionResolver.resolve(plans, null, "d")).isEqualTo(plans.decisionId("d"));
        assertThat(DecisionResolver.resolve(plans, "nope", "d")).isEqualTo(Handles.NONE);
        assertThat(DecisionResolver.resolve(plans, null, "a")).isEqualTo(Handles.NONE);
        assertThat(DecisionResolver.resolve(plans, null, null)).isEqualTo(Handles.NONE);
    }

    @Test
    void shouldListTheDecisionsInOpenAisModelListFormat()
    {
        assertThat(DecisionResolver.modelsList(plans)).isEqualTo("{\"object\":\"list\",\"data\":[" +
            "{\"id\":\"d\",\"object\":\"model\",\"created\":0,\"owned_by\":\"multi-factor\"}," +
            "{\"id\":\"e\",\"object\":\"model\",\"created\":0,\"owned_by\":\"multi-factor\"}]}");
    }

    @Test
    void shouldListTheDecisionsInEveryRefusal()
    {
        assertThat(DecisionResolver.problem(plans, "nope", null))
            .isEqualTo("unknown decision \"nope\" in header x-mf-decision; decisions: d, e");
        assertThat(DecisionResolver.problem(plans, null, "gpt-4"))
            .isEqualTo("\"model\": \"gpt-4\" names neither a decision nor a model (header x-mf-decision is absent); " +
                "decisions: d, e");
        assertThat(DecisionResolver.problem(plans, null, null))
            .isEqualTo("no decision: set header x-mf-decision or the body's \"model\" to a decision; decisions: d, e");
    }
}
