package io.multifactor.kernel.metrics;

import io.multifactor.api.InflightTracker;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class CounterBuffersTest
{
    @TempDir
    Path dir;

    private static Map<String, Long> inflightByLabel(final CountersReader reader)
    {
        final Map<String, Long> counts = new HashMap<>();
        reader.forEach((value, counterId, label) -> counts.put(label, value));
        return counts;
    }

    @Test
    void shouldLetAReaderOfTheFileSeeTheCountsAsOfTheLastRefresh()
    {
        final Path file = dir.resolve("inflight.dat");
        final Plans plans = new PlansBuilder().model("alpha", 0.5, 1.0).model("beta", 0.5, 1.0)
            .decision("d").candidates("alpha", "beta").add().build();
        try (MultiFactorEngine engine = MultiFactorEngine.builder(plans).countersFile(file).counterCapacity(64).build())
        {
            final int alpha = engine.modelId("alpha");
            final long a1 = engine.begin(alpha);
            final long a2 = engine.begin(alpha);
            final long b1 = engine.begin(engine.modelId("beta"));
            assertThat(a1).isNotEqualTo(InflightTracker.NO_LEASE);

            // The file is a copy the refresh writes (every 250 ms on the agent, at once on refreshNow).
            engine.refreshNow();
            Map<String, Long> counts = inflightByLabel(CounterBuffers.openReader(file));
            assertThat(counts).containsEntry(MultiFactorEngine.inflightLabel("alpha"), 2L).containsEntry(MultiFactorEngine.inflightLabel("beta"), 1L);

            engine.end(a1);
            engine.end(b1);
            assertThat(inflightByLabel(CounterBuffers.openReader(file)))
                .as("not yet refreshed").containsEntry(MultiFactorEngine.inflightLabel("alpha"), 2L);
            engine.refreshNow();
            counts = inflightByLabel(CounterBuffers.openReader(file));
            assertThat(counts).containsEntry(MultiFactorEngine.inflightLabel("alpha"), 1L).containsEntry(MultiFactorEngine.inflightLabel("beta"), 0L);
            engine.end(a2);
        }
        assertThat(inflightByLabel(CounterBuffers.openReader(file)))
            .as("written once more when closed").containsEntry(MultiFactorEngine.inflightLabel("alpha"), 0L);
    }

    @Test
    void shouldRefuseAllocationBeyondCapacity()
    {
        final CounterBuffers counters = CounterBuffers.inMemory(2);
        counters.allocate("one", CounterBuffers.INFLIGHT_TYPE_ID);
        counters.allocate("two", CounterBuffers.INFLIGHT_TYPE_ID);
        org.assertj.core.api.Assertions.assertThatIllegalStateException()
            .isThrownBy(() -> counters.allocate("three", CounterBuffers.INFLIGHT_TYPE_ID));
    }
}
