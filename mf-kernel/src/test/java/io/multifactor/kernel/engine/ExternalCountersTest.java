package io.multifactor.kernel.engine;

import io.multifactor.kernel.metrics.CounterBuffers;
import io.multifactor.kernel.metrics.CounterLabel;
import io.multifactor.kernel.metrics.CounterTypes;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Counters that a part of the process outside the kernel counts into ({@link MultiFactorEngine#externalCounters}):
 * one per label, in the counters file, kept across reloads, never one of the engine's own, all or none.
 */
class ExternalCountersTest
{
    private static final String WARM = CounterLabel.format(
        "mf.prefix.choices", "backend", "http://127.0.0.1:9001", "result", "warm");

    private final CachedNanoClock clock = new CachedNanoClock();

    @TempDir
    Path dir;

    private static Plans plans(final String... models)
    {
        final PlansBuilder builder = new PlansBuilder();
        for (final String model : models)
        {
            builder.model(model, 0.5, 1.0);
        }
        return builder.decision("d").candidates(models).add().build();
    }

    @Test
    void shouldGiveOneCounterPerLabelInTheCountersFileThroughReloads()
    {
        final Path file = dir.resolve("engine.counters");
        clock.update(TimeUnit.SECONDS.toNanos(1_000));
        try (MultiFactorEngine engine = MultiFactorEngine.builder(plans("a", "b")).clock(clock).countersFile(file)
            .build())
        {
            final AtomicCounter warm = one(engine, WARM, CounterTypes.PREFIX_CHOICES);
            warm.increment();
            warm.getAndAdd(2);
            // Asked again (a chooser built for the next configuration): the same counter, its count going on.
            final AtomicCounter again = one(engine, WARM, CounterTypes.PREFIX_CHOICES);
            assertThat(again.id()).isEqualTo(warm.id());
            again.increment();
            assertThat(warm.get()).isEqualTo(4);

            // A reload to plans without model b retires b's counters, never this one.
            engine.replacePlans(plans("a"));
            clock.advance(TimeUnit.SECONDS.toNanos(10));
            engine.refreshNow();
            engine.refreshNow();
            final CountersReader read = CounterBuffers.openReader(file);
            final long[] found = {-1, 0};
            read.forEach((counterId, typeId, key, label) ->
            {
                if (label.equals(WARM))
                {
                    found[0] = read.getCounterValue(counterId);
                    found[1] = key.getInt(CounterTypes.KEY_STATE_OFFSET);
                    assertThat(typeId).isEqualTo(CounterTypes.PREFIX_CHOICES);
                }
            });
            assertThat(found[0]).isEqualTo(4);
            assertThat(found[1]).isEqualTo(CounterTypes.KEY_LIVE);
            assertThat(CounterTypes.isEngineType(CounterTypes.PREFIX_CHOICES)).isTrue();
            assertThat(CounterTypes.isEngineType(CounterTypes.PREFIX_BLOCKS)).isTrue();
        }
    }

    @Test
    void shouldRefuseALabelOfTheEnginesOwnOrOfAnotherTypeAndGiveAllOrNone()
    {
        try (MultiFactorEngine engine = MultiFactorEngine.builder(plans("a")).clock(clock).build())
        {
            final int free = engine.counterCapacity() - allocated(engine);
            // A refused label among new ones: none of them is allocated.
            assertThatIllegalArgumentException().isThrownBy(() -> engine.externalCounters(
                new String[] {WARM, MultiFactorEngine.inflightLabel("a")},
                new int[] {CounterTypes.PREFIX_CHOICES, CounterTypes.PREFIX_CHOICES}));
            assertThat(engine.counterCapacity() - allocated(engine)).isEqualTo(free);
            one(engine, WARM, CounterTypes.PREFIX_CHOICES);
            assertThatIllegalArgumentException().isThrownBy(() -> one(engine, WARM, CounterTypes.PREFIX_BLOCKS));
            assertThatIllegalArgumentException().isThrownBy(() -> engine.externalCounters(
                new String[] {WARM}, new int[0]));
        }
        try (MultiFactorEngine probe = MultiFactorEngine.builder(plans("a")).clock(clock).build())
        {
            // An engine with room for 7 more: one set of 5 fits, the next set of 5 does not, and takes nothing.
            final int capacity = allocated(probe) + 7;
            try (MultiFactorEngine small = MultiFactorEngine.builder(plans("a")).clock(clock)
                .counterCapacity(capacity).build())
            {
                assertThat(small.externalCounters(labels("b1"), types())).hasSize(5);
                assertThatIllegalStateException().isThrownBy(() -> small.externalCounters(labels("b2"), types()))
                    .withMessageContaining("counters are in use");
                assertThat(allocated(small)).isEqualTo(capacity - 2);
                // The set already there is found again, whatever the room.
                assertThat(small.externalCounters(labels("b1"), types())).hasSize(5);
            }
        }
    }

    private static AtomicCounter one(final MultiFactorEngine engine, final String label, final int typeId)
    {
        return engine.externalCounters(new String[] {label}, new int[] {typeId})[0];
    }

    private static String[] labels(final String backend)
    {
        final String[] labels = new String[5];
        for (int i = 0; i < labels.length; i++)
        {
            labels[i] = CounterLabel.format("mf.prefix.blocks", "backend", backend, "kind", "k" + i);
        }
        return labels;
    }

    private static int[] types()
    {
        final int[] types = new int[5];
        java.util.Arrays.fill(types, CounterTypes.PREFIX_BLOCKS);
        return types;
    }

    private static int allocated(final MultiFactorEngine engine)
    {
        final int[] count = {0};
        engine.countersReader().forEach((counterId, typeId, key, label) -> count[0]++);
        return count[0];
    }
}
