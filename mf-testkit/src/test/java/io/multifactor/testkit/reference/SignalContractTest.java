package io.multifactor.testkit.reference;

import io.multifactor.api.Handles;
import io.multifactor.api.InflightTracker;
import io.multifactor.api.LatencyRecorder;
import io.multifactor.api.Outcome;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The contract of {@link LatencyRecorder} and {@link InflightTracker} as seen through a selection, run against every
 * implementation (the engine and the reference router): samples are refused or recorded as documented, leases count
 * once, and selections see the recorded percentiles (nearest rank, within HdrHistogram's 1%), the load and the window.
 */
abstract class SignalContractTest
{
    static final long SECOND_NS = 1_000_000_000L;
    static final long WINDOW_NS = 60 * SECOND_NS;
    static final List<ReferenceModel> MODELS = List.of(
        new ReferenceModel("fast", 0.5, 1.0), new ReferenceModel("slow", 0.5, 1.0));
    static final ReferenceDecision LATENCY_ONLY = ReferenceDecision.withDefaults("latency", MODELS).withWeights(0, 1, 0, 0);

    final CachedNanoClock clock = new CachedNanoClock();

    /** Builds the implementation over {@link #MODELS} and {@link #LATENCY_ONLY}, a window of 60 s, on {@link #clock}. */
    abstract void create();

    abstract LatencyRecorder recorder();

    abstract InflightTracker tracker();

    abstract int modelId(String name);

    abstract long inflight(String name);

    /** Publishes what was recorded (where the implementation needs it) and selects. */
    abstract ReferenceResult select(String decision, Set<String> excluded);

    /** One duty cycle at the clock's current time (where the implementation has one). */
    abstract void tick();

    abstract void close();

    @BeforeEach
    void setUp()
    {
        clock.update(SECOND_NS);
        create();
    }

    @AfterEach
    void tearDown()
    {
        close();
    }

    @Test
    void shouldRecordPositiveSamplesAndRefuseTheRest()
    {
        final int fast = modelId("fast");
        assertThat(recorder().recordTpotMicros(fast, 1)).isEqualTo(LatencyRecorder.RECORDED);
        assertThat(recorder().recordTtftMicros(fast, 250_000)).isEqualTo(LatencyRecorder.RECORDED);
        assertThat(recorder().recordTtftMicros(fast, 0)).isEqualTo(LatencyRecorder.REFUSED);
        assertThat(recorder().recordTpotMicros(fast, -3)).isEqualTo(LatencyRecorder.REFUSED);
        assertThat(recorder().recordTpotMs(fast, Double.NaN)).isEqualTo(LatencyRecorder.REFUSED);
        assertThat(recorder().recordTtftMs(fast, Double.POSITIVE_INFINITY)).isEqualTo(LatencyRecorder.REFUSED);
        assertThat(recorder().recordTpotMicros(Handles.NONE, 5)).isEqualTo(LatencyRecorder.UNKNOWN_MODEL);
        assertThat(recorder().recordTtftMicros(9_999, 5)).isEqualTo(LatencyRecorder.UNKNOWN_MODEL);
    }

    @Test
    void shouldCountEachLeaseOnce()
    {
        final long first = tracker().begin(modelId("fast"));
        final long second = tracker().begin(modelId("fast"));
        assertThat(first).isNotEqualTo(InflightTracker.NO_LEASE).isNotEqualTo(second);
        assertThat(inflight("fast")).isEqualTo(2);
        assertThat(tracker().end(first)).isTrue();
        assertThat(tracker().end(first)).isFalse();
        assertThat(inflight("fast")).isEqualTo(1);
        assertThat(tracker().end(second)).isTrue();
        assertThat(inflight("fast")).isZero();
        assertThat(tracker().begin(Handles.NONE)).isEqualTo(InflightTracker.NO_LEASE);
        assertThat(tracker().end(InflightTracker.NO_LEASE)).isFalse();
    }

    @Test
    void shouldSelectTheFasterModelFromRecordedTpotPercentiles()
    {
        final List<Long> fastMicros = new ArrayList<>();
        for (int i = 0; i < 200; i++)
        {
            final long fast = 10_000 + 50L * i;
            fastMicros.add(fast);
            recorder().recordTpotMicros(modelId("fast"), fast);
            recorder().recordTpotMicros(modelId("slow"), 40_000 + 100L * i);
        }

        final ReferenceResult result = select("latency", Set.of());

        assertThat(result.outcome()).isEqualTo(Outcome.SCORED);
        assertThat(result.selectedModel()).isEqualTo("fast");
        final double expectedMs = ReferencePercentiles.nearestRank(fastMicros, 95) / 1000.0;
        assertThat(result.candidate("fast").tpotMs()).isCloseTo(expectedMs, within(expectedMs * 0.01));
        assertThat(result.candidate("fast").ttftMs()).isNull();
    }

    @Test
    void shouldUseTtftWhenNoTpotWasRecorded()
    {
        recorder().recordTtftMs(modelId("fast"), 900.0);
        recorder().recordTtftMs(modelId("slow"), 300.0);

        final ReferenceResult result = select("latency", Set.of());

        assertThat(result.selectedModel()).isEqualTo("slow");
        assertThat(result.candidate("slow").latencyMs()).isCloseTo(300.0, within(3.0));
    }

    @Test
    void shouldSeeLoadAndExclusionsInSelection()
    {
        tracker().begin(modelId("slow"));
        tracker().begin(modelId("slow"));

        final ReferenceResult result = select("latency", Set.of("fast"));

        assertThat(result.candidate("slow").inflight()).isEqualTo(2);
        assertThat(result.candidate("fast").dropLabel()).isEqualTo("excluded");
        assertThat(result.selectedModel()).isEqualTo("slow");
    }

    @Test
    void shouldForgetSamplesOnceTheyLeaveTheWindow()
    {
        recorder().recordTpotMs(modelId("fast"), 500.0);
        assertThat(select("latency", Set.of()).candidate("fast").tpotMs()).isNotNull();

        for (int s = 0; s < 2 * WINDOW_NS / SECOND_NS + 5; s++)
        {
            clock.advance(SECOND_NS);
            tick();
        }

        assertThat(select("latency", Set.of()).candidate("fast").tpotMs()).isNull();
    }

    @Test
    void shouldFailForUnknownDecision()
    {
        final ReferenceResult result = select("nope", Set.of());
        assertThat(result.outcome()).isEqualTo(Outcome.FAILED);
        assertThat(result.candidates()).isEmpty();
    }
}
