package io.multifactor.kernel.engine;

import io.multifactor.api.DropReason;
import io.multifactor.api.Selection;
import io.multifactor.kernel.latency.LatencyEstimatorType;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * {@code latency_estimator: peak_ewma} on the engine: what a refresh publishes is the estimate read at the refresh
 * (decayed to it), a TPOT ceiling drops a model with one slow sample at once and lets it back once the estimate has
 * decayed below the ceiling without new samples, and the estimate is missing after the window; the window estimator
 * is unchanged beside it.
 */
class EnginePeakEwmaTest
{
    private static final long SECOND_NS = TimeUnit.SECONDS.toNanos(1);

    private final CachedNanoClock clock = new CachedNanoClock();
    private final Selection out = new Selection();
    private MultiFactorEngine engine;

    @AfterEach
    void close()
    {
        if (engine != null)
        {
            engine.close();
        }
    }

    private static Plans plans()
    {
        return new PlansBuilder()
            .model("fast", 0.5, 1.0).model("slow", 0.9, 1.0)
            .decision("d").candidates("fast", "slow").slo(200.0, 0.0, 0.0, 0L).add()
            .build();
    }

    private MultiFactorEngine engine(final int estimator)
    {
        clock.update(1_000 * SECOND_NS);
        final SignalSettings settings = new SignalSettings(30 * SECOND_NS, SECOND_NS, 600 * SECOND_NS, estimator,
            10 * SECOND_NS, SignalSettings.DEFAULT_REQUEST_TOKENS);
        engine = MultiFactorEngine.builder(plans()).clock(clock).settings(settings).build();
        return engine;
    }

    private void advance(final long seconds)
    {
        clock.advance(seconds * SECOND_NS);
        engine.refreshNow();
    }

    private Selection select()
    {
        engine.select(engine.decisionId("d"), null, out);
        return out;
    }

    @Test
    void shouldDropAtOnceAfterOneSlowSampleAndReadmitOnceDecayedBelowTheCeiling()
    {
        engine(LatencyEstimatorType.PEAK_EWMA);
        final int slow = engine.modelId("slow");
        engine.recordTpotMs(slow, 50.0);
        advance(1);
        assertThat(select().dropReason(1)).isEqualTo(DropReason.NONE);
        assertThat(out.tpotMs(1)).isCloseTo(50.0 * Math.exp(-0.1), within(1e-3));
        engine.recordTpotMs(slow, 800.0);
        advance(1);
        assertThat(select().dropReason(1)).as("one slow sample counts at once").isEqualTo(DropReason.TPOT);
        assertThat(out.tpotMs(1)).isCloseTo(800.0 * Math.exp(-0.1), within(1e-3));
        // 800 * exp(-t / 10) <= 200 once t >= 10 * ln(4) = 13.9 s after the sample, with no sample since.
        advance(12);
        assertThat(select().dropReason(1)).isEqualTo(DropReason.TPOT);
        advance(1);
        assertThat(select().dropReason(1)).as("decayed to %s ms", out.tpotMs(1)).isEqualTo(DropReason.NONE);
        assertThat(out.tpotMs(1)).isCloseTo(800.0 * Math.exp(-1.4), within(1e-3));
    }

    @Test
    void shouldBeMissingAfterTheWindowWithoutSamples()
    {
        engine(LatencyEstimatorType.PEAK_EWMA);
        engine.recordTtftMs(engine.modelId("fast"), 300.0);
        advance(29);
        assertThat(select().ttftMs(0)).isCloseTo(300.0 * Math.exp(-2.9), within(1e-3));
        advance(1);
        assertThat(select().ttftMs(0)).isNaN();
    }

    @Test
    void shouldKeepTheWindowPercentileByDefault()
    {
        engine(LatencyEstimatorType.WINDOW);
        final int slow = engine.modelId("slow");
        engine.recordTpotMs(slow, 800.0);
        advance(1);
        assertThat(select().dropReason(1)).isEqualTo(DropReason.TPOT);
        advance(14);
        assertThat(select().dropReason(1)).as("the window still holds the sample").isEqualTo(DropReason.TPOT);
        assertThat(out.tpotMs(1)).isCloseTo(800.0, within(8.0));
    }
}
