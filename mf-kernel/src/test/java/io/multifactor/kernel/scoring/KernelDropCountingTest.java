package io.multifactor.kernel.scoring;

import io.multifactor.api.DropReason;
import io.multifactor.api.Exclusions;
import io.multifactor.api.Selection;
import io.multifactor.kernel.metrics.CounterBuffers;
import io.multifactor.kernel.metrics.CounterTypes;
import io.multifactor.kernel.metrics.PerThreadCounterBlocks;
import io.multifactor.kernel.metrics.SingleWriterCounterBlock;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** The kernel counts each dropped candidate once, under its own drop counter of the reason, in its drop branch. */
class KernelDropCountingTest
{
    private final CounterBuffers counters = CounterBuffers.inMemory(64);
    private final PerThreadCounterBlocks blocks = new PerThreadCounterBlocks(counters.values());

    @Test
    void shouldCountEachDropUnderItsCandidatesCounterOfTheReason()
    {
        final Plans plans = new PlansBuilder()
            .model("slow", 0.9, 1.0).model("busy", 0.8, 1.0).model("fine", 0.5, 1.0).model("left-out", 0.7, 1.0)
            .decision("d").candidates("slow", "busy", "fine", "left-out").slo(100.0, 0.0, 0.0, 3).add()
            .build();
        final DecisionPlan plan = plans.decision(plans.decisionId("d"));
        final int n = plan.candidateCount();
        final int[] dropIds = new int[n * DropReason.COUNT];
        for (int i = 0; i < n; i++)
        {
            for (int reason = 0; reason < DropReason.COUNT; reason++)
            {
                dropIds[i * DropReason.COUNT + reason] = reason == DropReason.NONE ? -1 :
                    counters.allocate("mf.drops{" + i + "," + reason + "}", CounterTypes.DROPS);
            }
        }
        final CandidateSignals signals = new CandidateSignals(counters.values(), new int[] { 0, 128, 256, 384 }, dropIds);
        signals.publishLatencyMs(0, 150.0, 10.0);
        signals.publishLatencyMs(1, 50.0, 10.0);
        signals.publishLatencyMs(2, 50.0, 10.0);
        signals.publishLatencyMs(3, 50.0, 10.0);
        counters.values().putLongVolatile(128, 5);
        final Exclusions exclusions = new Exclusions().add(plan.candidateModelId(3));
        final Selection out = new Selection();
        final SingleWriterCounterBlock block = blocks.forCurrentThread();

        ScoringKernel.select(plan, signals, exclusions, null, out, block);
        ScoringKernel.select(plan, signals, exclusions, null, out, block);
        // Without a block (explain, counting off) nothing is counted.
        ScoringKernel.select(plan, signals, exclusions, null, out, null);

        assertThat(out.dropReason(0)).isEqualTo(DropReason.TPOT);
        assertThat(out.dropReason(1)).isEqualTo(DropReason.INFLIGHT);
        assertThat(out.dropReason(2)).isEqualTo(DropReason.NONE);
        assertThat(out.dropReason(3)).isEqualTo(DropReason.EXCLUDED);
        for (int i = 0; i < n; i++)
        {
            for (int reason = DropReason.NONE + 1; reason < DropReason.COUNT; reason++)
            {
                final long expected = reason == out.dropReason(i) ? 2 : 0;
                assertThat(block.count(signals.dropCounterId(i, reason))).as("candidate %d reason %d", i, reason)
                    .isEqualTo(expected);
            }
        }
        assertThat(blocks.aggregate()).isEqualTo(3);
        assertThat(counters.value(signals.dropCounterId(0, DropReason.TPOT))).isEqualTo(2);
        assertThat(counters.value(signals.dropCounterId(3, DropReason.EXCLUDED))).isEqualTo(2);
    }

    @Test
    void shouldRefuseDropCounterIdsThatAreNotOnePerCandidateAndReason()
    {
        assertThatIllegalArgumentException()
            .isThrownBy(() -> new CandidateSignals(counters.values(), new int[2], new int[DropReason.COUNT]))
            .withMessageContaining("2 candidates");
    }
}
