package io.multifactor.concurrency;

import io.multifactor.api.LatencyRecorder;
import io.multifactor.api.Selection;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.latency.LatencyWindow;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import org.agrona.concurrent.CachedNanoClock;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.junit.jupiter.api.Test;

/**
 * The path of a latency sample to a selection, against its sequential specification: samples recorded from any thread
 * (the window's multi-writer recorder), a refresh that drains them and publishes the percentiles (one refresh thread at
 * a time, as the engine's agent), and a {@code select} that reads what was published. A sample counts from the first
 * refresh that follows its record; a selection sees the percentiles of the last refresh before it, whole.
 * <p>
 * Stress mode only (real threads): the model checker would trace every instruction of the engine's construction and
 * refresh, several hundred milliseconds per interleaving; {@code LatencyWindowLincheckTest} model-checks the window
 * underneath, where the concurrency of this path lives (the final publication is one opaque store of a double per
 * percentile, read by one opaque load).
 */
@Param(name = "extraMicros", gen = IntGen.class, conf = "0:12")
public class PercentilePublicationLincheckTest
{
    private final MultiFactorEngine engine;
    private final int model;
    private final int decision;
    private final Selection selection = new Selection(1);

    /** One engine with one model on a clock that stands still: every refresh drains and republishes. */
    public PercentilePublicationLincheckTest()
    {
        final Plans plans = new PlansBuilder()
            .model("m", 0.5, 1.0)
            .decision("d").candidates("m").percentile(50).add()
            .build();
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(1_000_000_000L);
        engine = MultiFactorEngine.builder(plans).clock(clock).counterCapacity(64).leaseCapacity(2).build();
        model = engine.modelId("m");
        decision = engine.decisionId("d");
    }

    /**
     * @param extraMicros the sample above 1 ms, in microseconds: 1.000 to 1.012 ms span four buckets (4 us wide), so
     *     different samples give different percentiles while the window's walks stay short for the model checker.
     * @return the recording's result code.
     */
    @Operation
    public int record(@Param(name = "extraMicros") final int extraMicros)
    {
        return engine.recordTpotMicros(model, 1_000L + extraMicros);
    }

    /** Drains the recorded samples and publishes the percentiles. */
    @Operation(nonParallelGroup = "refresh")
    public void refresh()
    {
        engine.refreshNow();
    }

    /** @return the TPOT p50 a selection reads, in microseconds (0 when not observed). */
    @Operation
    public long selectedTpotMicros()
    {
        synchronized (selection)
        {
            engine.select(decision, null, selection);
            final double ms = selection.tpotMs(0);
            return ms == ms ? Math.round(ms * 1_000.0) : 0L;
        }
    }

    @Test
    void stress()
    {
        new StressOptions()
            .iterations(Budget.ENGINE_ITERATIONS)
            .invocationsPerIteration(Budget.ENGINE_INVOCATIONS)
            .threads(3).actorsPerThread(3).actorsBefore(1).actorsAfter(1)
            .sequentialSpecification(Specification.class)
            .check(PercentilePublicationLincheckTest.class);
    }

    /**
     * The sequential specification, without an engine (the checker builds one per linearization it tries): a window
     * drained by each refresh, and the p50 the last refresh published.
     * <p>
     * Not threadsafe: Lincheck runs it on one thread.
     */
    public static final class Specification
    {
        private final LatencyWindow window = new LatencyWindow(0);
        private long publishedMicros;

        /**
         * @param extraMicros the sample above 1 ms, in microseconds.
         * @return {@link LatencyRecorder#RECORDED}.
         */
        public int record(final int extraMicros)
        {
            return window.record(1_000L + extraMicros);
        }

        /** Drains and publishes. */
        public void refresh()
        {
            window.advance(0);
            publishedMicros = window.percentileMicros(50);
        }

        /** @return the p50 published last, in microseconds, 0 when not observed. */
        public long selectedTpotMicros()
        {
            return publishedMicros;
        }
    }
}
