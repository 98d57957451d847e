package io.multifactor.kernel.engine;

import io.multifactor.api.DropReason;
import io.multifactor.api.Exclusions;
import io.multifactor.api.Handles;
import io.multifactor.api.InflightTracker;
import io.multifactor.api.LatencyRecorder;
import io.multifactor.api.Outcome;
import io.multifactor.api.Selection;
import io.multifactor.kernel.metrics.CounterBuffers;
import io.multifactor.kernel.latency.LatencyWindow;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class EngineTest
{
    private static final long SECOND_NS = TimeUnit.SECONDS.toNanos(1);

    private final CachedNanoClock clock = new CachedNanoClock();
    private MultiFactorEngine engine;

    @AfterEach
    void close()
    {
        if (engine != null)
        {
            engine.close();
        }
    }

    private static Plans twoModels(final double maxTpotMs)
    {
        return new PlansBuilder()
            .model("fast", 0.5, 1.0)
            .model("smart", 0.9, 1.0)
            .decision("d")
            .candidates("smart", "fast")
            .weights(1.0, 0.0, 0.0, 0.0)
            .slo(maxTpotMs, 0.0, 0.0, 0)
            .add()
            .build();
    }

    private MultiFactorEngine engine(final Plans plans)
    {
        clock.update(1_000 * SECOND_NS);
        engine = MultiFactorEngine.builder(plans).clock(clock).build();
        return engine;
    }

    @Test
    void shouldFailUnknownDecisionWithNoCandidates()
    {
        final MultiFactorEngine engine = engine(twoModels(0.0));
        final Selection out = new Selection();
        engine.select(engine.decisionId("d"), null, out);
        assertThat(out.candidateCount()).isEqualTo(2);

        engine.select(Handles.NONE, null, out);
        assertThat(out.outcome()).isEqualTo(Outcome.FAILED);
        assertThat(out.candidateCount()).isZero();
        assertThat(out.selectedModel()).isEqualTo(Handles.NONE);

        engine.select(42, null, out);
        assertThat(out.outcome()).isEqualTo(Outcome.FAILED);
        assertThat(out.candidateCount()).isZero();
    }

    @Test
    void shouldSelectAgainModelWhoseSlowSamplesAgedOut()
    {
        final MultiFactorEngine engine = engine(twoModels(200.0));
        final int smart = engine.modelId("smart");
        final int fast = engine.modelId("fast");
        final int d = engine.decisionId("d");
        final Selection out = new Selection();

        engine.select(d, null, out);
        assertThat(out.selectedModel()).isEqualTo(smart);

        for (int i = 0; i < 100; i++)
        {
            assertThat(engine.recordTpotMs(smart, 300.0 + i)).isEqualTo(LatencyRecorder.RECORDED);
            engine.recordTpotMs(fast, 50.0);
        }
        clock.advance(SECOND_NS);
        assertThat(engine.refresh()).isPositive();
        engine.select(d, null, out);
        assertThat(out.selectedModel()).isEqualTo(fast);
        assertThat(out.dropReason(0)).isEqualTo(DropReason.TPOT);
        assertThat(out.tpotMs(0)).isCloseTo(394.0, within(394.0 * 0.01));

        // Still inside the window: still dropped.
        clock.advance(40 * SECOND_NS);
        engine.refresh();
        engine.select(d, null, out);
        assertThat(out.selectedModel()).isEqualTo(fast);

        // A full window later the slow samples are gone: no observation, no drop.
        clock.advance(21 * SECOND_NS);
        engine.refresh();
        engine.select(d, null, out);
        assertThat(out.tpotMs(0)).isNaN();
        assertThat(out.dropReason(0)).isEqualTo(DropReason.NONE);
        assertThat(out.selectedModel()).isEqualTo(smart);
    }

    @Test
    void shouldNotRepublishBeforeRefreshPeriod()
    {
        final MultiFactorEngine engine = engine(twoModels(0.0));
        final int smart = engine.modelId("smart");
        final Selection out = new Selection();
        engine.recordTtftMs(smart, 120.0);
        assertThat(engine.refresh()).isZero();
        engine.select(engine.decisionId("d"), null, out);
        assertThat(out.ttftMs(0)).isNaN();

        clock.advance(SECOND_NS);
        assertThat(engine.refresh()).isPositive();
        engine.select(engine.decisionId("d"), null, out);
        assertThat(out.ttftMs(0)).isCloseTo(120.0, within(1.2));
        assertThat(out.latencyMs(0)).isEqualTo(out.ttftMs(0));

        engine.recordTtftMs(smart, 500.0);
        engine.refreshNow();
        engine.select(engine.decisionId("d"), null, out);
        assertThat(out.ttftMs(0)).isCloseTo(500.0, within(5.0));
    }

    @Test
    void shouldRefuseAndClampSamplesAndCountThem()
    {
        final MultiFactorEngine engine = engine(twoModels(0.0));
        final int smart = engine.modelId("smart");
        assertThat(engine.recordTpotMicros(smart, 0)).isEqualTo(LatencyRecorder.REFUSED);
        assertThat(engine.recordTpotMicros(smart, -5)).isEqualTo(LatencyRecorder.REFUSED);
        assertThat(engine.recordTtftMs(smart, Double.NaN)).isEqualTo(LatencyRecorder.REFUSED);
        assertThat(engine.recordTtftMs(smart, Double.POSITIVE_INFINITY)).isEqualTo(LatencyRecorder.REFUSED);
        assertThat(engine.recordTtftMs(smart, -1.0)).isEqualTo(LatencyRecorder.REFUSED);
        assertThat(engine.refusedSampleCount()).isEqualTo(5);

        assertThat(engine.recordTtftMicros(smart, LatencyWindow.MAX_TRACKABLE_MICROS + 1))
            .isEqualTo(LatencyRecorder.CLAMPED);
        assertThat(engine.recordTtftMicros(smart, Long.MAX_VALUE)).isEqualTo(LatencyRecorder.CLAMPED);
        assertThat(engine.clampedSampleCount()).isEqualTo(2);
        assertThat(engine.recordTtftMicros(Handles.NONE, 10)).isEqualTo(LatencyRecorder.UNKNOWN_MODEL);
        assertThat(engine.recordTpotMicros(99, 10)).isEqualTo(LatencyRecorder.UNKNOWN_MODEL);

        engine.refreshNow();
        final Selection out = new Selection();
        engine.select(engine.decisionId("d"), null, out);
        assertThat(out.tpotMs(0)).isNaN();
        assertThat(out.ttftMs(0)).isCloseTo(60_000.0, within(600.0));
    }

    @Test
    void shouldCountInflightAndDropAboveCeiling()
    {
        final Plans plans = new PlansBuilder()
            .model("a", 0.9, 1.0)
            .model("b", 0.1, 1.0)
            .decision("d").candidates("a", "b").weights(1, 0, 0, 0).slo(0, 0, 0, 2).add()
            .build();
        final MultiFactorEngine engine = engine(plans);
        final int a = engine.modelId("a");
        final long[] leases = new long[3];
        for (int i = 0; i < 3; i++)
        {
            leases[i] = engine.begin(a);
            assertThat(leases[i]).isNotEqualTo(InflightTracker.NO_LEASE);
        }
        assertThat(engine.inflight(a)).isEqualTo(3);
        final Selection out = new Selection();
        engine.select(engine.decisionId("d"), null, out);
        assertThat(out.inflight(0)).isEqualTo(3);
        assertThat(out.dropReason(0)).isEqualTo(DropReason.INFLIGHT);
        assertThat(out.selectedModel()).isEqualTo(engine.modelId("b"));

        assertThat(engine.end(leases[0])).isTrue();
        engine.select(engine.decisionId("d"), null, out);
        assertThat(out.selectedModel()).isEqualTo(a);
        assertThat(engine.end(leases[1])).isTrue();
        assertThat(engine.end(leases[2])).isTrue();
        assertThat(engine.inflight(a)).isZero();
        assertThat(engine.begin(Handles.NONE)).isEqualTo(InflightTracker.NO_LEASE);
        assertThat(engine.begin(1234)).isEqualTo(InflightTracker.NO_LEASE);
    }

    @Test
    void shouldHonourExclusions()
    {
        final MultiFactorEngine engine = engine(twoModels(0.0));
        final Selection out = new Selection();
        final Exclusions exclusions = new Exclusions().add(engine.modelId("smart"));
        engine.select(engine.decisionId("d"), exclusions, out);
        assertThat(out.dropReason(0)).isEqualTo(DropReason.EXCLUDED);
        assertThat(out.selectedModel()).isEqualTo(engine.modelId("fast"));
        exclusions.add(engine.modelId("fast"));
        engine.select(engine.decisionId("d"), exclusions, out);
        assertThat(out.outcome()).isEqualTo(Outcome.FAILED);
    }

    @Test
    void shouldKeepCountersAndWindowsOfModelsThatStayAcrossReplacePlans()
    {
        final Plans first = new PlansBuilder()
            .model("stay", 0.9, 1.0)
            .model("gone", 0.5, 1.0)
            .decision("d").candidates("stay", "gone").percentile(50).add()
            .build();
        final MultiFactorEngine engine = engine(first);
        final int stay = engine.modelId("stay");
        final int gone = engine.modelId("gone");
        for (int i = 1; i <= 100; i++)
        {
            engine.recordTpotMs(stay, i);
        }
        final long stayLease = engine.begin(stay);
        final long goneLease = engine.begin(gone);
        engine.refreshNow();
        final Selection out = new Selection();
        engine.select(engine.decisionId("d"), null, out);
        assertThat(out.tpotMs(0)).isCloseTo(50.0, within(0.5));

        final Plans second = new PlansBuilder(first)
            .model("stay", 0.9, 1.0)
            .model("new", 0.7, 2.0)
            .decision("d").candidates("new", "stay").percentile(99).add()
            .decision("e").candidates("stay").add()
            .build();
        engine.replacePlans(second);
        assertThat(engine.plans()).isSameAs(second);
        assertThat(engine.modelId("stay")).isEqualTo(stay);
        assertThat(engine.modelId("gone")).isEqualTo(Handles.NONE);
        assertThat(engine.inflight(stay)).isEqualTo(1);

        // The new percentile slot is published at once, from the window kept across the swap.
        engine.select(engine.decisionId("d"), null, out);
        assertThat(out.modelId(1)).isEqualTo(stay);
        assertThat(out.tpotMs(1)).isCloseTo(99.0, within(1.0));
        assertThat(out.inflight(1)).isEqualTo(1);
        assertThat(out.tpotMs(0)).isNaN();
        engine.select(engine.decisionId("e"), null, out);
        assertThat(out.tpotMs(0)).isCloseTo(95.0, within(1.0));

        // A retired model: begin and record are no-ops; its open lease ends harmlessly.
        assertThat(engine.begin(gone)).isEqualTo(InflightTracker.NO_LEASE);
        assertThat(engine.recordTpotMicros(gone, 1_000)).isEqualTo(LatencyRecorder.UNKNOWN_MODEL);
        assertThat(engine.end(goneLease)).isTrue();
        assertThat(engine.end(goneLease)).isFalse();
        assertThat(engine.end(stayLease)).isTrue();
        assertThat(engine.inflight(stay)).isZero();
        engine.refreshNow();
        assertThat(engine.inflight(stay)).isZero();
    }

    @Test
    void shouldGiveReturningNameItsCounterBack()
    {
        final Plans first = new PlansBuilder().model("a", 0.9, 1.0).model("b", 0.5, 1.0)
            .decision("d").candidates("a", "b").add().build();
        final MultiFactorEngine engine = engine(first);
        final long lease = engine.begin(engine.modelId("b"));
        final Plans second = new PlansBuilder(first).model("a", 0.9, 1.0).decision("d").candidates("a").add().build();
        engine.replacePlans(second);
        assertThat(labels(engine)).contains(MultiFactorEngine.inflightLabel("a"), MultiFactorEngine.inflightLabel("b"));
        assertThat(retiredLabels(engine)).contains(MultiFactorEngine.inflightLabel("b"))
            .doesNotContain(MultiFactorEngine.inflightLabel("a"));
        final Plans third = new PlansBuilder(second).model("a", 0.9, 1.0).model("b", 0.5, 1.0)
            .decision("d").candidates("a", "b").add().build();
        engine.replacePlans(third);
        final int b = engine.modelId("b");
        assertThat(engine.inflight(b)).isEqualTo(1);
        assertThat(labels(engine)).contains(MultiFactorEngine.inflightLabel("a"), MultiFactorEngine.inflightLabel("b"));
        assertThat(retiredLabels(engine)).doesNotContain(MultiFactorEngine.inflightLabel("b"));
        assertThat(engine.end(lease)).isTrue();
        assertThat(engine.inflight(b)).isZero();
    }

    private static java.util.List<String> retiredLabels(final MultiFactorEngine engine)
    {
        final java.util.List<String> labels = new java.util.ArrayList<>();
        engine.countersReader().forEach((counterId, typeId, keyBuffer, label) ->
        {
            if (keyBuffer.getInt(io.multifactor.kernel.metrics.CounterTypes.KEY_STATE_OFFSET) ==
                io.multifactor.kernel.metrics.CounterTypes.KEY_RETIRED)
            {
                labels.add(label);
            }
        });
        return labels;
    }

    private static java.util.List<String> labels(final MultiFactorEngine engine)
    {
        final java.util.List<String> labels = new java.util.ArrayList<>();
        engine.countersReader().forEach((counterId, label) -> labels.add(label));
        return labels;
    }

    @Test
    void shouldForgetEverythingOnClose()
    {
        final MultiFactorEngine engine = engine(twoModels(0.0));
        final int smart = engine.modelId("smart");
        final int d = engine.decisionId("d");
        final long lease = engine.begin(smart);
        engine.close();
        final Selection out = new Selection();
        engine.select(d, null, out);
        assertThat(out.outcome()).isEqualTo(Outcome.FAILED);
        assertThat(engine.begin(smart)).isEqualTo(InflightTracker.NO_LEASE);
        assertThat(engine.recordTpotMicros(smart, 5)).isEqualTo(LatencyRecorder.UNKNOWN_MODEL);
        assertThat(engine.end(lease)).isTrue();
        assertThat(engine.refresh()).isZero();
    }

    @Test
    void shouldHealLostEndAfterMaxAgeAndIgnoreLateEnd()
    {
        final MultiFactorEngine engine = engine(twoModels(0.0));
        final long maxAgeNs = engine.settings().inflightMaxAgeNs();
        final int smart = engine.modelId("smart");
        final long lost = engine.begin(smart);
        runRefreshFor(engine, maxAgeNs / 2);
        final long young = engine.begin(smart);
        assertThat(engine.inflight(smart)).isEqualTo(2);

        runRefreshFor(engine, maxAgeNs / 2);
        assertThat(engine.inflight(smart)).as("exactly max age is not older than max age").isEqualTo(2);

        // Reclaimed within the documented bound: max age + 2 * (sweep period + refresh period).
        runRefreshFor(engine, 2 * (maxAgeNs / MultiFactorEngine.SWEEPS_PER_MAX_AGE + SECOND_NS));
        assertThat(engine.inflight(smart)).isEqualTo(1);
        assertThat(engine.reclaimedLeaseCount()).isEqualTo(1);
        assertThat(engine.end(lost)).isFalse();
        assertThat(engine.inflight(smart)).isEqualTo(1);
        assertThat(engine.end(young)).isTrue();
        assertThat(engine.inflight(smart)).isZero();
        assertThat(engine.end(young)).isFalse();
        assertThat(engine.end(0x1234_5678_9ABCL)).isFalse();
        assertThat(engine.inflight(smart)).isZero();
    }

    @Test
    void shouldMeasureALeasesAgeFromItsOwnBeginAfterARefreshStall()
    {
        final MultiFactorEngine engine = engine(twoModels(0.0));
        final long maxAgeNs = engine.settings().inflightMaxAgeNs();
        final int smart = engine.modelId("smart");
        runRefreshFor(engine, 5 * SECOND_NS);

        // The refresh agent stalls for longer than the max age; a request begins just before it comes back.
        clock.advance(2 * maxAgeNs);
        final long lease = engine.begin(smart);
        clock.advance(TimeUnit.MILLISECONDS.toNanos(1));
        engine.refresh();
        assertThat(engine.inflight(smart)).as("a lease 1 ms old is not reclaimed").isEqualTo(1);
        assertThat(engine.reclaimedLeaseCount()).isZero();

        runRefreshFor(engine, maxAgeNs - SECOND_NS);
        assertThat(engine.inflight(smart)).as("not before max age after its own begin").isEqualTo(1);
        runRefreshFor(engine, 2 * (maxAgeNs / MultiFactorEngine.SWEEPS_PER_MAX_AGE + SECOND_NS) + SECOND_NS);
        assertThat(engine.inflight(smart)).isZero();
        assertThat(engine.end(lease)).isFalse();
    }

    @Test
    void shouldReclaimALostLeaseWithinTheDocumentedBoundWhateverWhenItBegan()
    {
        final long refreshNs = SECOND_NS;
        final long maxAgeNs = 64 * SECOND_NS;
        final long sweepPeriodNs = Math.max(refreshNs, maxAgeNs / MultiFactorEngine.SWEEPS_PER_MAX_AGE);
        final long boundNs = maxAgeNs + 2 * (sweepPeriodNs + refreshNs);
        final long stepNs = TimeUnit.MILLISECONDS.toNanos(50);
        for (long offsetNs = 0; offsetNs < 3 * sweepPeriodNs; offsetNs += 130 * TimeUnit.MILLISECONDS.toNanos(1))
        {
            clock.update(1_000 * SECOND_NS);
            try (MultiFactorEngine engine = MultiFactorEngine.builder(twoModels(0.0)).clock(clock)
                .settings(new SignalSettings(60 * SECOND_NS, refreshNs, maxAgeNs)).build())
            {
                final int smart = engine.modelId("smart");
                runRefreshFor(engine, offsetNs, stepNs);
                final long begunNs = clock.nanoTime();
                engine.begin(smart);
                long reclaimedNs = Long.MIN_VALUE;
                while (clock.nanoTime() - begunNs <= boundNs + SECOND_NS)
                {
                    clock.advance(stepNs);
                    engine.refresh();
                    if (engine.inflight(smart) == 0)
                    {
                        reclaimedNs = clock.nanoTime();
                        break;
                    }
                }
                assertThat(reclaimedNs).as("reclaimed, lease begun at +" + offsetNs + " ns").isNotEqualTo(Long.MIN_VALUE);
                assertThat(reclaimedNs - begunNs).as("age at reclaim, lease begun at +" + offsetNs + " ns")
                    .isGreaterThan(maxAgeNs).isLessThanOrEqualTo(boundNs);
            }
        }
    }

    private void runRefreshFor(final MultiFactorEngine engine, final long durationNs)
    {
        runRefreshFor(engine, durationNs, SECOND_NS);
    }

    /** The refresh agent's life on a manual clock: a duty cycle every step. */
    private void runRefreshFor(final MultiFactorEngine engine, final long durationNs, final long stepNs)
    {
        final long endNs = clock.nanoTime() + durationNs;
        while (endNs - clock.nanoTime() > 0)
        {
            clock.advance(Math.min(stepNs, endNs - clock.nanoTime()));
            engine.refresh();
        }
    }

    @Test
    void shouldPublishEachDecisionsPercentileWithinOnePercentOfNearestRank()
    {
        final Plans plans = new PlansBuilder()
            .model("m", 0.5, 1.0)
            .decision("p50").candidates("m").percentile(50).add()
            .decision("p90").candidates("m").percentile(90).add()
            .decision("p99").candidates("m").percentile(99).add()
            .decision("p100").candidates("m").percentile(100).add()
            .build();
        final MultiFactorEngine engine = engine(plans);
        final int m = engine.modelId("m");
        final java.util.SplittableRandom random = new java.util.SplittableRandom(3);
        final long[] tpot = new long[5_000];
        final long[] ttft = new long[3_000];
        for (int i = 0; i < tpot.length; i++)
        {
            tpot[i] = 1_000 + random.nextInt(400_000);
            engine.recordTpotMicros(m, tpot[i]);
        }
        for (int i = 0; i < ttft.length; i++)
        {
            ttft[i] = 50_000 + random.nextInt(5_000_000);
            engine.recordTtftMicros(m, ttft[i]);
        }
        java.util.Arrays.sort(tpot);
        java.util.Arrays.sort(ttft);
        engine.refreshNow();
        final Selection out = new Selection();
        for (final int p : new int[] { 50, 90, 99, 100 })
        {
            engine.select(engine.decisionId("p" + p), null, out);
            final double expectedTpotMs = tpot[(int)(((long)p * tpot.length + 99) / 100) - 1] / 1000.0;
            final double expectedTtftMs = ttft[(int)(((long)p * ttft.length + 99) / 100) - 1] / 1000.0;
            assertThat(out.tpotMs(0)).as("tpot p%d", p).isBetween(expectedTpotMs, expectedTpotMs * 1.01);
            assertThat(out.ttftMs(0)).as("ttft p%d", p).isBetween(expectedTtftMs, expectedTtftMs * 1.01);
        }
    }

    /**
     * The end of {@code EngineConcurrencyTest.shouldCountEveryLeaseOutExactlyOnceUnderStress}, replayed on a cached
     * clock: 50 ms window (5 slices of 10 ms), 1 ms refresh, samples recorded and refreshed every millisecond, then a
     * pause (joining threads and asserting, long on a loaded machine) before the final refreshNow and select.
     */
    @Test
    void shouldLoseLastSampleOnceWindowPassedButPublishOneRecordedJustBeforeRefreshNow()
    {
        final long msNs = TimeUnit.MILLISECONDS.toNanos(1);
        final SignalSettings settings = new SignalSettings(50 * msNs, msNs, TimeUnit.MINUTES.toNanos(10));
        for (final long pauseMs : new long[] { 0, 1, 39, 40, 49, 50, 51, 120, 10_000 })
        {
            final long originNs = 1_000 * SECOND_NS;
            clock.update(originNs);
            try (MultiFactorEngine engine = MultiFactorEngine.builder(twoModels(0.0)).clock(clock).settings(settings)
                .build())
            {
                final int smart = engine.modelId("smart");
                final int d = engine.decisionId("d");
                final Selection out = new Selection();
                // The stress phase: the last sample (200 us) is drained at origin + 200 ms, the start of slice 20.
                for (int ms = 1; ms <= 200; ms++)
                {
                    engine.recordTtftMicros(smart, ms);
                    clock.advance(msNs);
                    assertThat(engine.refresh()).isPositive();
                }
                clock.advance(pauseMs * msNs);

                // What the stress test did first: refreshNow and select with nothing recorded since the pause.
                engine.refreshNow();
                engine.select(d, null, out);
                if (pauseMs < 50)
                {
                    // Slice 20 is live until slice 25 starts, 50 ms after it was drained.
                    assertThat(out.ttftMs(0)).as("pause %d ms", pauseMs).isBetween(0.0, 0.202);
                }
                else
                {
                    // The window emptied while the test was paused: "no observation", the NaN the stress test saw.
                    assertThat(out.ttftMs(0)).as("pause %d ms", pauseMs).isNaN();
                }

                // What it does now: one sample, then refreshNow. It is drained and published whatever the pause.
                assertThat(engine.recordTtftMicros(smart, 1_000_000)).isEqualTo(LatencyRecorder.RECORDED);
                engine.refreshNow();
                engine.select(d, null, out);
                assertThat(out.ttftMs(0)).as("pause %d ms", pauseMs).isBetween(0.0, 1_010.0);
                if (pauseMs >= 50)
                {
                    assertThat(out.ttftMs(0)).as("pause %d ms", pauseMs).isBetween(1_000.0, 1_010.0);
                }

                // A cycle at a time behind the windows' slice (a refresh that read the clock before the last one took
                // the lock) drains into the newest slice and expires nothing.
                clock.update(clock.nanoTime() - 2 * msNs);
                assertThat(engine.recordTtftMicros(smart, 2_000_000)).isEqualTo(LatencyRecorder.RECORDED);
                engine.refreshNow();
                engine.select(d, null, out);
                assertThat(out.ttftMs(0)).as("pause %d ms", pauseMs).isBetween(0.0, 2_020.0);
                if (pauseMs >= 50)
                {
                    assertThat(out.ttftMs(0)).as("pause %d ms", pauseMs).isBetween(2_000.0, 2_020.0);
                }
            }
        }
    }

    @Test
    void shouldKeepMemoryPerModelWithin256KB()
    {
        final MultiFactorEngine engine = engine(twoModels(0.0));
        final int smart = engine.modelId("smart");
        // Latency windows (HdrHistogram footprints), the Agrona counter (value + metadata record) and the published
        // percentiles (TPOT and TTFT per percentile slot).
        final long bytes = engine.latencyFootprintBytes(smart) + CounterBuffers.BYTES_PER_COUNTER +
            2L * Double.BYTES * engine.plans().percentileSlotCount();
        System.out.println("memory per model at default settings: " + bytes + " bytes");
        assertThat(bytes).isLessThanOrEqualTo(256_000);
        assertThat(engine.latencyFootprintBytes(Handles.NONE)).isZero();
    }

    @Test
    void shouldComputeTpotFromStreamedResponse()
    {
        assertThat(Tpot.tpotMicros(1_100_000, 100_000, 11)).isEqualTo(100_000);
        assertThat(Tpot.tpotMicros(1_000, 0, 4)).isEqualTo(333);
        assertThat(Tpot.tpotMicros(1_001, 0, 3)).isEqualTo(501);
        assertThat(Tpot.tpotMicros(10, 9, 100)).isEqualTo(1);
        assertThat(Tpot.tpotMicros(Long.MAX_VALUE, 0, 2)).isEqualTo(Long.MAX_VALUE);
        assertThat(Tpot.tpotMicros(1_000, 100, 1)).isZero();
        assertThat(Tpot.tpotMicros(1_000, 100, 0)).isZero();
        assertThat(Tpot.tpotMicros(100, 100, 10)).isZero();
        assertThat(Tpot.tpotMicros(50, 100, 10)).isZero();
        assertThat(Tpot.tpotMicros(100, -1, 10)).isZero();

        final MultiFactorEngine engine = engine(twoModels(0.0));
        assertThat(engine.recordTpotMicros(engine.modelId("fast"), Tpot.tpotMicros(100, 100, 10)))
            .isEqualTo(LatencyRecorder.REFUSED);
    }
}
