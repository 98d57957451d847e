package io.multifactor.kernel.engine;

import io.multifactor.api.Handles;
import io.multifactor.kernel.plan.PlansBuilder;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RequireNamesTest
{
    private static MultiFactorEngine engine()
    {
        return MultiFactorEngine.builder(new PlansBuilder()
            .model("fast-cheap", 0.5, 1.0)
            .model("slow-strong", 0.9, 10.0)
            .decision("quality_policy").candidates("slow-strong", "fast-cheap").add()
            .decision("fast_chat").candidates("fast-cheap").add()
            .build()).build();
    }

    @Test
    void shouldResolveKnownNamesLikeTheSentinelCalls()
    {
        try (MultiFactorEngine engine = engine())
        {
            assertThat(engine.requireDecisionId("fast_chat")).isEqualTo(engine.decisionId("fast_chat"));
            assertThat(engine.requireModelId("slow-strong")).isEqualTo(engine.modelId("slow-strong"));
        }
    }

    @Test
    void shouldKeepTheSentinelForAnUnknownName()
    {
        try (MultiFactorEngine engine = engine())
        {
            assertThat(engine.decisionId("quality_polcy")).isEqualTo(Handles.NONE);
            assertThat(engine.modelId("slow_strong")).isEqualTo(Handles.NONE);
        }
    }

    @Test
    void shouldRefuseAnUnknownDecisionNamingTheNearestKnownOne()
    {
        try (MultiFactorEngine engine = engine())
        {
            assertThatThrownBy(() -> engine.requireDecisionId("quality_polcy"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown decision \"quality_polcy\" (nearest known: \"quality_policy\"; " +
                    "known decisions: quality_policy, fast_chat)");
        }
    }

    @Test
    void shouldRefuseAnUnknownModelNamingTheNearestKnownOne()
    {
        try (MultiFactorEngine engine = engine())
        {
            assertThatThrownBy(() -> engine.requireModelId("Slow_Strong"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown model \"Slow_Strong\" (nearest known: \"slow-strong\"; " +
                    "known models: fast-cheap, slow-strong)");
        }
    }

    @Test
    void shouldListAtMostTenKnownNames()
    {
        final List<String> known = List.of("m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9", "m10", "m11");
        assertThat(KnownNames.unknown("model", "m12", known))
            .isEqualTo("unknown model \"m12\" (nearest known: \"m1\"; known models: m0, m1, m2, m3, m4, m5, m6, m7, " +
                "m8, m9, ... 2 more)");
    }

    @Test
    void shouldMeasureEditDistance()
    {
        assertThat(KnownNames.distance("kitten", "sitting")).isEqualTo(3);
        assertThat(KnownNames.distance("", "abc")).isEqualTo(3);
        assertThat(KnownNames.distance("same", "same")).isZero();
    }
}
