package io.multifactor.concurrency;

import io.multifactor.kernel.latency.LatencyWindow;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.junit.jupiter.api.Test;

/**
 * A latency window's recorder and its refresh against their sequential specification: samples recorded from any
 * thread (each raises its bucket's count and widens the written range of the recorder's active array), and a refresh
 * that swaps the arrays, waits for the writers of the old one (the writer-reader phaser) and drains it into the window,
 * then reads the percentiles the engine publishes. Every sample is in exactly one refresh: the first that starts
 * after it was recorded, or the one it raced.
 */
@Param(name = "extraMicros", gen = IntGen.class, conf = "0:12")
public class LatencyWindowLincheckTest
{
    private final LatencyWindow window = new LatencyWindow(0);

    /**
     * @param extraMicros the sample above 1 ms, in microseconds: 1.000 to 1.012 ms span four buckets.
     * @return the recording's result code.
     */
    @Operation
    public int record(@Param(name = "extraMicros") final int extraMicros)
    {
        return window.record(1_000L + extraMicros);
    }

    /** @return live samples, p50 and p100 after draining the recorder: what the refresh publishes. */
    @Operation(nonParallelGroup = "refresh")
    public String refresh()
    {
        window.advance(0);
        return window.sampleCount() + " samples, p50 " + window.percentileMicros(50) + ", p100 " +
            window.percentileMicros(100);
    }

    @Test
    void modelChecking()
    {
        new ModelCheckingOptions()
            .iterations(Budget.ITERATIONS)
            .invocationsPerIteration(Budget.INVOCATIONS)
            .threads(3).actorsPerThread(2).actorsBefore(1).actorsAfter(1)
            .check(LatencyWindowLincheckTest.class);
    }

    @Test
    void stress()
    {
        new StressOptions()
            .iterations(Budget.ITERATIONS)
            .invocationsPerIteration(Budget.STRESS_INVOCATIONS)
            .threads(3).actorsPerThread(3).actorsBefore(1).actorsAfter(1)
            .check(LatencyWindowLincheckTest.class);
    }
}
