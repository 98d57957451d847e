package io.multifactor.kernel.engine;

import io.multifactor.api.Exclusions;
import io.multifactor.api.LatencyRecorder;
import io.multifactor.api.Outcome;
import io.multifactor.api.Selection;
import io.multifactor.kernel.metrics.CounterBuffers;
import io.multifactor.kernel.latency.LatencyWindow;
import io.multifactor.kernel.metrics.CounterLabel;
import io.multifactor.kernel.metrics.CounterTypes;
import io.multifactor.kernel.plan.NoCandidatesPolicy;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.within;

class EngineMetricsTest
{
    private static final long SECOND_NS = TimeUnit.SECONDS.toNanos(1);
    private static final int NAMES = 1_100;

    private final CachedNanoClock clock = new CachedNanoClock();
    private MultiFactorEngine engine;

    @TempDir
    Path dir;

    @AfterEach
    void close()
    {
        if (engine != null)
        {
            engine.close();
        }
    }

    private MultiFactorEngine engine(final Plans plans)
    {
        return engine(MultiFactorEngine.builder(plans));
    }

    private MultiFactorEngine engine(final MultiFactorEngine.Builder builder)
    {
        clock.update(1_000 * SECOND_NS);
        engine = builder.clock(clock).build();
        return engine;
    }

    private static Plans plans(final double maxTpotMs, final int policy)
    {
        return new PlansBuilder()
            .model("fast", 0.5, 1.0)
            .model("smart", 0.9, 2.0)
            .decision("d").candidates("smart", "fast").weights(1.0, 0.0, 0.0, 0.0).slo(maxTpotMs, 0.0, 0.0, 0)
            .policy(policy).add()
            .decision("e").candidates("fast").add()
            .build();
    }

    /** Live counters by label, as any reader of the counters sees them. */
    static Map<String, Long> live(final CountersReader reader)
    {
        final Map<String, Long> live = new HashMap<>();
        reader.forEach((counterId, typeId, keyBuffer, label) ->
        {
            if (keyBuffer.getInt(CounterTypes.KEY_STATE_OFFSET) == CounterTypes.KEY_LIVE)
            {
                live.put(label, reader.getCounterValue(counterId));
            }
        });
        return live;
    }

    static Set<String> retired(final CountersReader reader)
    {
        final Set<String> retired = new HashSet<>();
        reader.forEach((counterId, typeId, keyBuffer, label) ->
        {
            if (keyBuffer.getInt(CounterTypes.KEY_STATE_OFFSET) == CounterTypes.KEY_RETIRED)
            {
                retired.add(label);
            }
        });
        return retired;
    }

    private static String selected(final String decision, final String model, final int outcome)
    {
        return MultiFactorEngine.selectedLabel(decision, model, outcome);
    }

    private static String drops(final String model, final String reason)
    {
        return CounterLabel.format("mf.drops", "model", model, "reason", reason);
    }

    @Test
    void shouldCountSelectionsByDecisionOutcomeAndChosenModel()
    {
        final MultiFactorEngine engine = engine(plans(0.0, NoCandidatesPolicy.CHEAPEST));
        final Selection out = new Selection();
        for (int i = 0; i < 3; i++)
        {
            engine.select(engine.decisionId("d"), null, out);
        }
        engine.select(engine.decisionId("e"), null, out);

        engine.refreshNow();
        final Map<String, Long> live = live(engine.countersReader());
        assertThat(live)
            .containsEntry(selected("d", "smart", Outcome.SCORED), 3L)
            .containsEntry(selected("d", "fast", Outcome.SCORED), 0L)
            .containsEntry(selected("e", "fast", Outcome.SCORED), 1L)
            .containsEntry(selected("d", "fast", Outcome.FALLBACK_CHEAPEST), 0L)
            .containsEntry(CounterLabel.format("mf.selections", "decision", "d", "outcome", "failed"), 0L);
        assertThat(live.get(drops("smart", "tpot"))).isZero();
    }

    @Test
    void shouldCountFallbackFailedAndDropsPerModelAndReason()
    {
        final MultiFactorEngine engine = engine(plans(100.0, NoCandidatesPolicy.CHEAPEST));
        final int smart = engine.modelId("smart");
        final int fast = engine.modelId("fast");
        engine.recordTpotMs(smart, 300.0);
        engine.recordTpotMs(fast, 250.0);
        engine.refreshNow();
        final Selection out = new Selection();
        final int d = engine.decisionId("d");
        engine.select(d, null, out);
        assertThat(out.outcome()).isEqualTo(Outcome.FALLBACK_CHEAPEST);
        engine.select(d, null, out);
        engine.select(d, new Exclusions().add(smart).add(fast), out);
        assertThat(out.outcome()).isEqualTo(Outcome.FAILED);
        engine.select(d, new Exclusions().add(smart), out);

        engine.refreshNow();
        final Map<String, Long> live = live(engine.countersReader());
        assertThat(live)
            .containsEntry(selected("d", "fast", Outcome.FALLBACK_CHEAPEST), 3L)
            .containsEntry(selected("d", "smart", Outcome.FALLBACK_CHEAPEST), 0L)
            .containsEntry(CounterLabel.format("mf.selections", "decision", "d", "outcome", "failed"), 1L)
            .containsEntry(drops("smart", "tpot"), 2L)
            .containsEntry(drops("fast", "tpot"), 3L)
            .containsEntry(drops("smart", "excluded"), 2L)
            .containsEntry(drops("fast", "excluded"), 1L)
            .containsEntry(drops("fast", "cost"), 0L);
    }

    @Test
    void shouldCountFallbackFirstUnderItsOwnOutcome()
    {
        final MultiFactorEngine engine = engine(plans(100.0, NoCandidatesPolicy.FIRST));
        engine.recordTpotMs(engine.modelId("smart"), 300.0);
        engine.recordTpotMs(engine.modelId("fast"), 250.0);
        engine.refreshNow();
        engine.select(engine.decisionId("d"), null, new Selection());
        engine.refreshNow();
        assertThat(live(engine.countersReader()))
            .containsEntry(selected("d", "smart", Outcome.FALLBACK_FIRST), 1L)
            .doesNotContainKey(selected("d", "smart", Outcome.FALLBACK_CHEAPEST));
    }

    @Test
    void shouldCountSelectAndBeginOnceItsChoiceIsFinal()
    {
        final Plans plans = new PlansBuilder()
            .model("fast", 0.5, 1.0)
            .model("smart", 0.9, 2.0)
            .decision("d").candidates("smart", "fast").weights(1.0, 0.0, 0.0, 0.0).slo(0.0, 0.0, 0.0, 1).add()
            .build();
        final MultiFactorEngine engine = engine(plans);
        final Selection out = new Selection();
        final long first = engine.selectAndBegin(engine.decisionId("d"), null, out);
        final long second = engine.selectAndBegin(engine.decisionId("d"), null, out);
        assertThat(engine.plans().modelName(out.selectedModel())).isEqualTo("fast");
        engine.refreshNow();
        assertThat(live(engine.countersReader()))
            .containsEntry(selected("d", "smart", Outcome.SCORED), 1L)
            .containsEntry(selected("d", "fast", Outcome.SCORED), 1L)
            .containsEntry(drops("smart", "inflight"), 1L);
        engine.end(first);
        engine.end(second);
    }

    @Test
    void shouldNotCountExplain()
    {
        final MultiFactorEngine engine = engine(plans(0.0, NoCandidatesPolicy.CHEAPEST));
        engine.explain(engine.decisionId("d"), null);
        engine.select(engine.decisionId("d"), null, new Selection());
        engine.refreshNow();
        assertThat(live(engine.countersReader())).containsEntry(selected("d", "smart", Outcome.SCORED), 1L);
    }

    @Test
    void shouldNotCountWhenCountingIsOff()
    {
        final MultiFactorEngine engine =
            engine(MultiFactorEngine.builder(plans(0.0, NoCandidatesPolicy.CHEAPEST)).countSelections(false));
        engine.select(engine.decisionId("d"), null, new Selection());
        engine.refreshNow();
        assertThat(live(engine.countersReader())).containsEntry(selected("d", "smart", Outcome.SCORED), 0L);
    }

    @Test
    void shouldCountRefusedAndClampedSamplesPerModelAndMetric()
    {
        final MultiFactorEngine engine = engine(plans(0.0, NoCandidatesPolicy.CHEAPEST));
        final int smart = engine.modelId("smart");
        assertThat(engine.recordTtftMs(smart, Double.NaN)).isEqualTo(LatencyRecorder.REFUSED);
        assertThat(engine.recordTtftMicros(smart, -4)).isEqualTo(LatencyRecorder.REFUSED);
        assertThat(engine.recordTpotMicros(engine.modelId("fast"), 0)).isEqualTo(LatencyRecorder.REFUSED);
        assertThat(engine.recordTpotMicros(smart, LatencyWindow.MAX_TRACKABLE_MICROS * 2))
            .isEqualTo(LatencyRecorder.CLAMPED);

        assertThat(live(engine.countersReader()))
            .containsEntry(CounterLabel.format("mf.samples.refused", "model", "smart", "metric", "ttft"), 2L)
            .containsEntry(CounterLabel.format("mf.samples.refused", "model", "smart", "metric", "tpot"), 0L)
            .containsEntry(CounterLabel.format("mf.samples.refused", "model", "fast", "metric", "tpot"), 1L)
            .containsEntry(CounterLabel.format("mf.samples.clamped", "model", "smart", "metric", "tpot"), 1L)
            .containsEntry("mf.engine.samples_refused", 3L);
        assertThat(engine.refusedSampleCount()).isEqualTo(3);
    }

    @Test
    void shouldPublishPercentilesIntoCountersForOtherProcesses()
    {
        final MultiFactorEngine engine = engine(plans(0.0, NoCandidatesPolicy.CHEAPEST));
        final String tpot = MultiFactorEngine.latencyLabel("smart", "tpot", 95);
        final String ttft = MultiFactorEngine.latencyLabel("smart", "ttft", 95);
        assertThat(live(engine.countersReader())).containsEntry(tpot, CounterTypes.NO_OBSERVATION);
        engine.recordTpotMs(engine.modelId("smart"), 42.0);
        engine.refreshNow();
        final Map<String, Long> live = live(engine.countersReader());
        assertThat((double)live.get(tpot)).isCloseTo(42_000.0, within(420.0));
        assertThat(live).containsEntry(ttft, CounterTypes.NO_OBSERVATION);
    }

    @Test
    void shouldCountHealedLeasesPerModel()
    {
        final MultiFactorEngine engine = engine(plans(0.0, NoCandidatesPolicy.CHEAPEST));
        engine.begin(engine.modelId("fast"));
        engine.begin(engine.modelId("fast"));
        // Refresh as the agent would, over twice the max age: the sweep reclaims both leases on the way.
        final long maxAgeNs = engine.settings().inflightMaxAgeNs();
        for (int i = 0; i < 128; i++)
        {
            clock.advance(maxAgeNs / 64);
            engine.refresh();
        }
        assertThat(engine.reclaimedLeaseCount()).isEqualTo(2);
        assertThat(live(engine.countersReader()))
            .containsEntry(CounterLabel.format("mf.leases.healed", "model", "fast"), 2L)
            .containsEntry(CounterLabel.format("mf.leases.healed", "model", "smart"), 0L)
            .containsEntry(MultiFactorEngine.inflightLabel("fast"), 0L);
    }

    @Test
    void shouldCountReloadsAppliedAndRefusedAndKeepRunningPlansOnRefusal()
    {
        final Plans first = plans(0.0, NoCandidatesPolicy.CHEAPEST);
        final MultiFactorEngine engine = engine(MultiFactorEngine.builder(first).counterCapacity(90));
        engine.replacePlans(new PlansBuilder(first).model("fast", 0.5, 1.0).decision("e").candidates("fast").add().build());
        final Plans running = engine.plans();
        final PlansBuilder big = new PlansBuilder(running);
        for (int i = 0; i < 10; i++)
        {
            big.model("m" + i, 0.5, 1.0);
        }
        assertThatIllegalStateException().isThrownBy(() -> engine.replacePlans(big.build()))
            .withMessageContaining("counters are in use");
        assertThat(engine.plans()).isSameAs(running);
        engine.countRefusedReload();
        assertThat(engine.reloadsApplied()).isEqualTo(1);
        assertThat(engine.reloadsRefused()).isEqualTo(2);
        final Map<String, Long> live = live(engine.countersReader());
        assertThat(live)
            .containsEntry("mf.reloads{result=\"applied\"}", 1L)
            .containsEntry("mf.reloads{result=\"refused\"}", 2L);
        assertThat(live.keySet()).noneMatch(label -> label.contains("\"m0\""));
        engine.select(engine.decisionId("e"), null, new Selection());
        engine.refreshNow();
        assertThat(live(engine.countersReader())).containsEntry(selected("e", "fast", Outcome.SCORED), 1L);
    }

    @Test
    void shouldExposeFleetCounters()
    {
        final MultiFactorEngine engine = engine(plans(0.0, NoCandidatesPolicy.CHEAPEST));
        engine.fleetCounters().exchangeDone();
        engine.fleetCounters().exchangeDone();
        engine.fleetCounters().exchangeFailed();
        engine.fleetCounters().remoteReplicas(3);
        assertThat(live(engine.countersReader()))
            .containsEntry("mf.fleet.exchanges{result=\"done\"}", 2L)
            .containsEntry("mf.fleet.exchanges{result=\"failed\"}", 1L)
            .containsEntry("mf.fleet.replicas", 3L);
    }

    @Test
    void shouldKeepWorkingOverManyMoreModelNamesThanCounters()
    {
        // 1,100 distinct names over the engine's life (the old limit was about 1,020), about 17 counters each (18,700
        // in all): with the default capacity of 8,192 and with room for only a few plans at a time.
        for (final int capacity : new int[] {MultiFactorEngine.DEFAULT_COUNTER_CAPACITY, 120})
        {
            Plans plans = new PlansBuilder().model("stay", 0.5, 1.0).decision("d").candidates("stay").add().build();
            final MultiFactorEngine engine = engine(MultiFactorEngine.builder(plans).counterCapacity(capacity));
            final Selection out = new Selection();
            for (int i = 0; i < NAMES; i++)
            {
                final String name = "model-" + i;
                plans = new PlansBuilder(plans).model("stay", 0.5, 1.0).model(name, 0.9, 1.0)
                    .decision("d").candidates("stay", name).add().build();
                engine.replacePlans(plans);
                engine.select(engine.decisionId("d"), null, out);
                assertThat(engine.plans().modelName(out.selectedModel())).isEqualTo(name);
                clock.advance(2 * SECOND_NS);
                engine.refresh();
            }
            assertThat(engine.reloadsApplied()).isEqualTo(NAMES);
            assertThat(engine.reloadsRefused()).isZero();
            final Map<String, Long> live = live(engine.countersReader());
            assertThat(live).containsEntry(selected("d", "model-" + (NAMES - 1), Outcome.SCORED), 1L)
                .containsEntry(selected("d", "stay", Outcome.SCORED), 0L);
            assertThat(retired(engine.countersReader())).allMatch(label -> label.contains("model-" + (NAMES - 2)));
            engine.close();
        }
    }

    @Test
    void shouldGiveReturningNameItsCountsBackWithinGrace()
    {
        final Plans first = plans(0.0, NoCandidatesPolicy.CHEAPEST);
        final MultiFactorEngine engine = engine(first);
        engine.select(engine.decisionId("d"), null, new Selection());
        final Plans second = new PlansBuilder(first).model("fast", 0.5, 1.0).decision("e").candidates("fast").add().build();
        engine.replacePlans(second);
        assertThat(retired(engine.countersReader())).contains(selected("d", "smart", Outcome.SCORED));
        engine.replacePlans(new PlansBuilder(second).model("fast", 0.5, 1.0).model("smart", 0.9, 2.0)
            .decision("d").candidates("smart", "fast").weights(1.0, 0.0, 0.0, 0.0).add().build());
        engine.refreshNow();
        assertThat(live(engine.countersReader())).containsEntry(selected("d", "smart", Outcome.SCORED), 1L);
    }

    @Test
    void shouldKeepInflightCounterOfRetiredModelUntilItsLeasesEnd()
    {
        final Plans first = plans(0.0, NoCandidatesPolicy.CHEAPEST);
        final MultiFactorEngine engine = engine(MultiFactorEngine.builder(first).counterCapacity(130));
        final long lease = engine.begin(engine.modelId("smart"));
        Plans plans = new PlansBuilder(first).model("fast", 0.5, 1.0).decision("e").candidates("fast").add().build();
        engine.replacePlans(plans);
        // Many reloads later, past the grace period: every other counter of "smart" is freed and reused.
        for (int i = 0; i < 50; i++)
        {
            clock.advance(2 * SECOND_NS);
            plans = new PlansBuilder(plans).model("fast", 0.5, 1.0).model("x" + i, 0.5, 1.0)
                .decision("e").candidates("fast", "x" + i).add().build();
            engine.replacePlans(plans);
        }
        assertThat(retired(engine.countersReader())).contains(MultiFactorEngine.inflightLabel("smart"));
        assertThat(retired(engine.countersReader())).noneMatch(label -> label.startsWith("mf.drops{model=\"smart\""));
        assertThat(engine.end(lease)).isTrue();
        clock.advance(2 * SECOND_NS);
        engine.replacePlans(plans);
        assertThat(retired(engine.countersReader())).doesNotContain(MultiFactorEngine.inflightLabel("smart"));
        assertThat(live(engine.countersReader()).values()).allMatch(value -> value >= CounterTypes.NO_OBSERVATION);
    }

    @Test
    void shouldCreateCountersFileReadableByOwnerOnly() throws Exception
    {
        final Path file = dir.resolve("mf.counters");
        final MultiFactorEngine engine =
            engine(MultiFactorEngine.builder(plans(0.0, NoCandidatesPolicy.CHEAPEST)).countersFile(file));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        engine.select(engine.decisionId("d"), null, new Selection());
        engine.refreshNow();
        assertThat(live(CounterBuffers.openReader(file))).containsEntry(selected("d", "smart", Outcome.SCORED), 1L);
    }

    @Test
    void shouldNeverLoseACountWhenThreadsSelectAtOnce() throws Exception
    {
        final MultiFactorEngine engine = engine(plans(0.0, NoCandidatesPolicy.CHEAPEST));
        final int perThread = 200_000;
        final Thread[] threads = new Thread[3];
        for (int t = 0; t < threads.length; t++)
        {
            // Two threads on decision d (same counter), one on decision e.
            final int decision = engine.decisionId(t < 2 ? "d" : "e");
            threads[t] = new Thread(() ->
            {
                final Selection out = new Selection();
                for (int i = 0; i < perThread; i++)
                {
                    engine.select(decision, null, out);
                }
            });
        }
        for (final Thread thread : threads)
        {
            thread.start();
        }
        for (final Thread thread : threads)
        {
            thread.join(TimeUnit.SECONDS.toMillis(60));
        }
        engine.refreshNow();
        assertThat(live(engine.countersReader()))
            .containsEntry(selected("d", "smart", Outcome.SCORED), 2L * perThread)
            .containsEntry(selected("e", "fast", Outcome.SCORED), (long)perThread);
    }
}
