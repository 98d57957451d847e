package io.multifactor.serving;

import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.metrics.CounterLabel;
import io.multifactor.kernel.metrics.CounterTypes;
import io.multifactor.kernel.plan.PlansBuilder;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where a backend's prefix counters live: with an engine, in its counters (what {@code bin/mf stat} reads), one set per
 * backend that a new block size keeps; with an engine whose counters are all in use, or none, in memory.
 */
class PrefixCountersTest
{
    private static final String ORIGIN = "http://127.0.0.1:9001";

    @Test
    void shouldCountABackendsChoicesAndBlocksIntoTheEnginesCounters()
    {
        try (MultiFactorEngine engine = MultiFactorEngine.builder(
            new PlansBuilder().model("m", 0.5, 1.0).decision("d").candidates("m").add().build()).build())
        {
            final PrefixBackends state = new PrefixBackends(engine);
            final BackendPrefix backend = state.backend(ORIGIN, 64, 1024);
            backend.count(PrefixTicket.WARM, 10, 7);
            backend.count(PrefixTicket.WARM, 4, 4);
            backend.count(PrefixTicket.COLD, 3, 0);
            backend.count(PrefixTicket.RELEASE, 0, 0);
            final Map<String, Long> counts = prefixCounters(engine.countersReader());
            assertThat(counts).containsExactlyInAnyOrderEntriesOf(Map.of(
                label("mf.prefix.choices", "result", "warm"), 2L,
                label("mf.prefix.choices", "result", "cold"), 1L,
                label("mf.prefix.choices", "result", "release"), 1L,
                label("mf.prefix.blocks", "kind", "looked_up"), 17L,
                label("mf.prefix.blocks", "kind", "matched"), 11L));
            assertThat(backend.warm()).isEqualTo(2);
            assertThat(backend.blocksLookedUp()).isEqualTo(17);

            // A new block size: a new index, the same counters, their counts going on.
            final BackendPrefix resized = state.backend(ORIGIN, 128, 1024);
            assertThat(resized).isNotSameAs(backend);
            resized.count(PrefixTicket.WARM, 2, 2);
            assertThat(resized.warm()).isEqualTo(3);
            assertThat(prefixCounters(engine.countersReader())).containsEntry(
                label("mf.prefix.choices", "result", "warm"), 3L).hasSize(5);
            // Another state of the same engine (a second chooser) counts into the same counters.
            new PrefixBackends(engine).backend(ORIGIN, 64, 16).count(PrefixTicket.WARM, 0, 0);
            assertThat(resized.warm()).isEqualTo(4);
        }
    }

    @Test
    void shouldCountInMemoryWithoutAnEngineOrWhenItsCountersAreAllInUse()
    {
        final BackendPrefix alone = new PrefixBackends().backend(ORIGIN, 64, 16);
        alone.count(PrefixTicket.RELEASE, 5, 2);
        assertThat(alone.release()).isEqualTo(1);
        assertThat(alone.blocksMatched()).isEqualTo(2);

        final PlansBuilder plans = new PlansBuilder().model("m", 0.5, 1.0).decision("d").candidates("m").add();
        final int used;
        try (MultiFactorEngine probe = MultiFactorEngine.builder(plans.build()).build())
        {
            final int[] count = {0};
            probe.countersReader().forEach((counterId, typeId, key, label) -> count[0]++);
            used = count[0];
        }
        // Room for two backends' counters and 3 more.
        try (MultiFactorEngine full = MultiFactorEngine.builder(plans.build()).counterCapacity(used + 13).build())
        {
            final PrefixBackends state = new PrefixBackends(full);
            for (int b = 0; b < 4; b++)
            {
                final BackendPrefix backend = state.backend("http://127.0.0.1:" + (10_000 + b), 64, 16);
                backend.count(PrefixTicket.COLD, 1 + b, b);
                backend.count(PrefixTicket.COLD, 1, 0);
                assertThat(backend.cold()).as("backend " + b).isEqualTo(2);
                assertThat(backend.blocksLookedUp()).isEqualTo(2 + b);
                assertThat(backend.blocksMatched()).isEqualTo(b);
            }
            // The first two backends count in the engine; the others, all of whose counters did not fit, in memory.
            final Map<String, Long> inEngine = prefixCounters(full.countersReader());
            assertThat(inEngine).hasSize(10).containsEntry(CounterLabel.format("mf.prefix.blocks", "backend",
                "http://127.0.0.1:10001", "kind", "looked_up"), 3L);
        }
    }

    private static String label(final String name, final String tagKey, final String tagValue)
    {
        return CounterLabel.format(name, "backend", ORIGIN, tagKey, tagValue);
    }

    private static Map<String, Long> prefixCounters(final CountersReader reader)
    {
        final Map<String, Long> counts = new HashMap<>();
        reader.forEach((counterId, typeId, key, label) ->
        {
            if (typeId == CounterTypes.PREFIX_CHOICES || typeId == CounterTypes.PREFIX_BLOCKS)
            {
                counts.put(label, reader.getCounterValue(counterId));
            }
        });
        return counts;
    }
}
