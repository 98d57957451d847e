package io.multifactor.kernel.engine;

import io.multifactor.api.InflightTracker;
import io.multifactor.api.LatencyRecorder;
import io.multifactor.api.Outcome;
import io.multifactor.api.Selection;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The handles a router resolves at startup keep working across reloads that remove and restore their names. */
class StableHandlesTest
{
    private static Plans full(final PlansBuilder builder)
    {
        return builder.model("premium", 0.9, 10.0).model("economy", 0.5, 1.0)
            .decision("chat").candidates("premium", "economy").weights(1.0, 0.0, 0.0, 0.0).add()
            .decision("batch").candidates("economy").add()
            .build();
    }

    private static Plans economyOnly(final Plans previous)
    {
        return new PlansBuilder(previous).model("economy", 0.5, 1.0).decision("batch").candidates("economy").add().build();
    }

    @Test
    void shouldSelectBeginAndRecordWithStartupHandlesAfterTheirNamesAreRemovedAndRestored()
    {
        try (MultiFactorEngine engine =
            MultiFactorEngine.builder(full(new PlansBuilder())).clock(new CachedNanoClock()).build())
        {
            final int chat = engine.decisionId("chat");
            final int premium = engine.modelId("premium");
            final long before = engine.begin(premium);

            engine.replacePlans(economyOnly(engine.plans()));
            final Selection out = new Selection();
            engine.select(chat, null, out);
            assertThat(out.outcome()).isEqualTo(Outcome.FAILED);
            assertThat(engine.begin(premium)).isEqualTo(InflightTracker.NO_LEASE);

            engine.replacePlans(full(new PlansBuilder(engine.plans())));
            assertThat(engine.decisionId("chat")).isEqualTo(chat);
            assertThat(engine.modelId("premium")).isEqualTo(premium);
            engine.select(chat, null, out);
            assertThat(out.outcome()).isEqualTo(Outcome.SCORED);
            assertThat(out.selectedModel()).isEqualTo(premium);
            final long lease = engine.begin(premium);
            assertThat(lease).isNotEqualTo(InflightTracker.NO_LEASE);
            // The lease begun before the removal is still counted on the model's counter, which came back with it.
            assertThat(engine.inflight(premium)).isEqualTo(2L);
            assertThat(engine.end(before)).isTrue();
            assertThat(engine.end(lease)).isTrue();
            assertThat(engine.inflight(premium)).isZero();
            assertThat(engine.recordTpotMs(premium, 20.0)).isEqualTo(LatencyRecorder.RECORDED);
        }
    }
}
