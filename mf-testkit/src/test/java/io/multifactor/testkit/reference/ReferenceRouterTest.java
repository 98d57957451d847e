package io.multifactor.testkit.reference;

import io.multifactor.api.Handles;
import io.multifactor.api.InflightTracker;
import io.multifactor.api.LatencyRecorder;
import io.multifactor.api.Outcome;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class ReferenceRouterTest
{
    private static final long SECOND_NS = 1_000_000_000L;
    private static final List<ReferenceModel> MODELS = List.of(
        new ReferenceModel("fast", 0.5, 1.0), new ReferenceModel("slow", 0.5, 1.0));
    private static final ReferenceDecision LATENCY_ONLY =
        ReferenceDecision.withDefaults("latency", MODELS).withWeights(0, 1, 0, 0);

    private final CachedNanoClock clock = new CachedNanoClock();
    private final ReferenceRouter router = new ReferenceRouter(MODELS, List.of(LATENCY_ONLY), clock, 60 * SECOND_NS);

    @Test
    void shouldGiveModelsHandlesInListOrder()
    {
        assertThat(router.modelId("fast")).isEqualTo(0);
        assertThat(router.modelId("slow")).isEqualTo(1);
        assertThat(router.modelId("nope")).isEqualTo(Handles.NONE);
    }

    @Test
    void shouldReportNearestRankPercentileOfRecordedSamplesInMilliseconds()
    {
        for (int i = 1; i <= 100; i++)
        {
            assertThat(router.recordTpotMicros(0, i * 1000L)).isEqualTo(LatencyRecorder.RECORDED);
        }
        assertThat(router.tpotMs("fast", 95)).isEqualTo(95.0);
        assertThat(router.tpotMs("fast", 50)).isEqualTo(50.0);
        assertThat(router.ttftMs("fast", 95)).isNull();
    }

    @Test
    void shouldRefuseNonPositiveSamplesAndUnknownModels()
    {
        assertThat(router.recordTtftMicros(0, 0)).isEqualTo(LatencyRecorder.REFUSED);
        assertThat(router.recordTtftMicros(0, -5)).isEqualTo(LatencyRecorder.REFUSED);
        assertThat(router.recordTtftMs(0, Double.NaN)).isEqualTo(LatencyRecorder.REFUSED);
        assertThat(router.recordTpotMicros(7, 10)).isEqualTo(LatencyRecorder.UNKNOWN_MODEL);
        assertThat(router.recordTpotMicros(Handles.NONE, 10)).isEqualTo(LatencyRecorder.UNKNOWN_MODEL);
        assertThat(router.ttftMs("fast", 95)).isNull();
    }

    @Test
    void shouldForgetSamplesOnceTheyLeaveTheWindow()
    {
        clock.update(SECOND_NS);
        router.recordTpotMicros(0, 500_000);
        clock.advance(30 * SECOND_NS);
        router.recordTpotMicros(0, 20_000);
        assertThat(router.tpotMs("fast", 100)).isEqualTo(500.0);

        clock.advance(30 * SECOND_NS);
        assertThat(router.tpotMs("fast", 100)).isEqualTo(20.0);

        clock.advance(30 * SECOND_NS);
        assertThat(router.tpotMs("fast", 100)).isNull();
    }

    @Test
    void shouldCountEachLeaseOnce()
    {
        final long first = router.begin(0);
        final long second = router.begin(0);
        assertThat(router.inflight("fast")).isEqualTo(2);
        assertThat(router.end(first)).isTrue();
        assertThat(router.end(first)).isFalse();
        assertThat(router.end(12345L)).isFalse();
        assertThat(router.inflight("fast")).isEqualTo(1);
        assertThat(router.end(second)).isTrue();
        assertThat(router.inflight("fast")).isZero();
        assertThat(router.begin(42)).isEqualTo(InflightTracker.NO_LEASE);
        assertThat(router.end(InflightTracker.NO_LEASE)).isFalse();
    }

    @Test
    void shouldSelectFromObservedPercentilesAndLoad()
    {
        router.recordTpotMs(0, 20.0);
        router.recordTpotMs(1, 90.0);
        router.begin(1);

        final ReferenceResult result = router.select("latency", Set.of());

        assertThat(result.outcome()).isEqualTo(Outcome.SCORED);
        assertThat(result.selectedModel()).isEqualTo("fast");
        assertThat(result.candidate("slow").tpotMs()).isEqualTo(90.0);
        assertThat(result.candidate("slow").inflight()).isEqualTo(1);
        final ReferenceRequest same = new ReferenceRequest(
            Map.of("fast", new ReferenceObservation(20.0, null, 0), "slow", new ReferenceObservation(90.0, null, 1)),
            Set.of());
        assertThat(result).isEqualTo(ReferenceScorer.select(new ReferenceCase(LATENCY_ONLY, same)));
    }

    @Test
    void shouldHonourExclusionsAndFailForUnknownDecision()
    {
        router.recordTpotMs(0, 20.0);
        router.recordTpotMs(1, 90.0);
        assertThat(router.select("latency", Set.of("fast")).selectedModel()).isEqualTo("slow");
        final ReferenceResult unknown = router.select("nope", Set.of());
        assertThat(unknown.outcome()).isEqualTo(Outcome.FAILED);
        assertThat(unknown.candidates()).isEmpty();
    }
}
