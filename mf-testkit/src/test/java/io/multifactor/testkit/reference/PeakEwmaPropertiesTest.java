package io.multifactor.testkit.reference;

import io.multifactor.api.Selection;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.engine.SignalSettings;
import io.multifactor.kernel.latency.LatencyEstimatorType;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

/**
 * The engine's peak-EWMA equals {@link ReferencePeakEwma}'s formula on random sample sequences, gaps (some of a window
 * or more), decays and reading times: samples are recorded through {@code recordTpotMicros} on a manual clock at
 * whole milliseconds, then the engine refreshes at the reading time and {@code select} reports what it published.
 * The engine keeps the estimate as a float and publishes whole microseconds: they agree within 1e-5 relative plus one
 * microsecond, and are missing together.
 */
class PeakEwmaPropertiesTest
{
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final int WINDOW_MS = 30_000;
    private static final Plans PLANS = new PlansBuilder().model("m", 0.5, 1.0).decision("d").candidates("m").add().build();

    @Test
    void shouldEqualTheFormulaOnRandomSequencesAndGaps()
    {
        final int[] checked = new int[2];
        qt().withFixedSeed(19L).withExamples(300)
            .forAll(
                lists().of(integers().between(0, 40_000)).ofSizeBetween(1, 30),
                lists().of(integers().between(1, 5_000_000)).ofSizeBetween(30, 30),
                integers().between(0, 45_000),
                integers().between(1, 20))
            .checkAssert((gapsMs, valuesMicros, readGapMs, tauS) ->
            {
                final CachedNanoClock clock = new CachedNanoClock();
                clock.update(1_000_000 * MS);
                final SignalSettings settings = new SignalSettings(WINDOW_MS * MS, 1_000 * MS, 600_000 * MS,
                    LatencyEstimatorType.PEAK_EWMA, TimeUnit.SECONDS.toNanos(tauS), 1_000);
                final List<ReferencePeakEwma.Sample> samples = new ArrayList<>();
                double expectedMs;
                double actualMs;
                try (MultiFactorEngine engine = MultiFactorEngine.builder(PLANS).clock(clock).settings(settings).build())
                {
                    long nowMs = 0;
                    for (int i = 0; i < gapsMs.size(); i++)
                    {
                        nowMs += gapsMs.get(i);
                        clock.update((1_000_000 + nowMs) * MS);
                        engine.recordTpotMicros(0, valuesMicros.get(i));
                        samples.add(new ReferencePeakEwma.Sample(nowMs / 1000.0, valuesMicros.get(i)));
                    }
                    nowMs += readGapMs;
                    clock.update((1_000_000 + nowMs) * MS);
                    engine.refreshNow();
                    final Selection out = new Selection();
                    engine.select(engine.decisionId("d"), null, out);
                    actualMs = out.tpotMs(0);
                    expectedMs = ReferencePeakEwma.estimate(samples, nowMs / 1000.0, tauS, WINDOW_MS / 1000.0) / 1000.0;
                }
                if (Double.isNaN(expectedMs))
                {
                    assertThat(actualMs).as("missing in both").isNaN();
                    checked[0]++;
                }
                else
                {
                    assertThat(actualMs).isCloseTo(expectedMs,
                        org.assertj.core.api.Assertions.within(1e-5 * expectedMs + 0.001));
                    checked[1]++;
                }
            });
        System.out.println("PeakEwmaPropertiesTest: 300 random sequences, " + checked[1] + " estimates equal to the " +
            "formula, " + checked[0] + " missing in both");
        assertThat(checked[0]).as("some sequences end a window after their last sample").isPositive();
        assertThat(checked[1]).isPositive();
    }
}
