package io.multifactor.kernel.plan;

import io.multifactor.api.Handles;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class PlansLineageTest
{
    private static Plans withAll(final PlansBuilder builder)
    {
        return builder.model("a", 0.9, 1.0).model("b", 0.5, 2.0)
            .decision("d1").candidates("a", "b").add()
            .decision("d2").candidates("b").add()
            .build();
    }

    @Test
    void shouldGiveARestoredNameItsOldHandleBack()
    {
        final Plans first = withAll(new PlansBuilder());
        final int a = first.modelId("a");
        final int b = first.modelId("b");
        final int d1 = first.decisionId("d1");
        final int d2 = first.decisionId("d2");

        final Plans without = new PlansBuilder(first).model("b", 0.5, 2.0).decision("d2").candidates("b").add().build();
        assertThat(without.modelId("a")).isEqualTo(Handles.NONE);
        assertThat(without.decisionId("d1")).isEqualTo(Handles.NONE);
        assertThat(without.hasModel(a)).isFalse();
        assertThat(without.decision(d1)).isNull();

        final Plans restored = withAll(new PlansBuilder(without));
        assertThat(restored.modelId("a")).isEqualTo(a);
        assertThat(restored.modelId("b")).isEqualTo(b);
        assertThat(restored.decisionId("d1")).isEqualTo(d1);
        assertThat(restored.decisionId("d2")).isEqualTo(d2);
        assertThat(restored.decision(d1).name()).isEqualTo("d1");
        assertThat(restored.modelCapacity()).isEqualTo(2);
        assertThat(restored.decisionCapacity()).isEqualTo(2);
    }

    @Test
    void shouldRememberARemovedNameAcrossSeveralSnapshotsAndGiveNewNamesNewHandles()
    {
        final Plans first = withAll(new PlansBuilder());
        final int a = first.modelId("a");
        final int d1 = first.decisionId("d1");
        Plans plans = new PlansBuilder(first).model("b", 0.5, 2.0).decision("d2").candidates("b").add().build();
        plans = new PlansBuilder(plans).model("b", 0.5, 2.0).model("c", 0.1, 0.1)
            .decision("d3").candidates("c", "b").add().build();
        assertThat(plans.modelId("c")).isEqualTo(2);
        assertThat(plans.decisionId("d3")).isEqualTo(2);

        plans = withAll(new PlansBuilder(plans));
        assertThat(plans.modelId("a")).isEqualTo(a);
        assertThat(plans.decisionId("d1")).isEqualTo(d1);
        assertThat(plans.hasModel(2)).isFalse();

        plans = new PlansBuilder(plans).model("never-seen", 0.1, 0.1).decision("new").candidates("never-seen").add()
            .build();
        assertThat(plans.modelId("never-seen")).isEqualTo(3);
        assertThat(plans.decisionId("new")).isEqualTo(3);
        assertThat(plans.modelCapacity()).isEqualTo(4);
    }
}
