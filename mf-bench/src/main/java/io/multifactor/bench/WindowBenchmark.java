package io.multifactor.bench;

import io.multifactor.kernel.latency.LatencyWindow;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * The latency windows of one model (TTFT and TPOT) through one refresh period, the engine's window against the
 * HdrHistogram-slice window it replaced ({@link HdrSliceWindow}), in the same run: each invocation records
 * {@value RefreshBenchmark#SAMPLES_PER_CYCLE} samples per metric, advances both windows by one refresh period
 * (1 s of a 60 s window in 5 slices: a slice expires every twelfth invocation) and reads one percentile of each.
 * Both start in steady state (filled and rotated for two windows).
 * <p>
 * This class is a JMH {@code Scope.Thread} state: each benchmark thread has its own windows.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = BenchFlags.AGRONA_ADD_EXPORTS)
public class WindowBenchmark
{
    /** Refresh periods per slice at default settings: 60 s window / 5 slices / 1 s refresh. */
    static final int REFRESHES_PER_SLICE = 12;

    /**
     * The samples: {@code narrow} are the select fixture's (within 10% of one model's nominal TTFT and TPOT), {@code wide}
     * are log-uniform from 1 ms to 10 s (a model whose latency spans four decades: the most buckets a refresh visits).
     */
    @Param({ "narrow", "wide" })
    public String spread;

    long[] ttftMicros;
    long[] tpotMicros;
    int cursor;
    LatencyWindow ttft;
    LatencyWindow tpot;
    HdrSliceWindow hdrTtft;
    HdrSliceWindow hdrTpot;
    long refreshes;
    long hdrRefreshes;

    /** Builds both pairs of windows and brings them to steady state. */
    @Setup(Level.Trial)
    public void setup()
    {
        final SignalInputs inputs = new SignalInputs(new SelectFixture(SelectBenchmark.SEED, 1), 1, 29L);
        final SplittableRandom random = new SplittableRandom(31);
        ttftMicros = new long[SignalInputs.SIZE];
        tpotMicros = new long[SignalInputs.SIZE];
        for (int k = 0; k < SignalInputs.SIZE; k++)
        {
            final boolean wide = "wide".equals(spread);
            ttftMicros[k] = wide ? logUniformMicros(random) : inputs.ttftMicros[k];
            tpotMicros[k] = wide ? logUniformMicros(random) : inputs.tpotMicros[k];
        }
        ttft = new LatencyWindow(0);
        tpot = new LatencyWindow(0);
        hdrTtft = new HdrSliceWindow(0);
        hdrTpot = new HdrSliceWindow(0);
        for (int c = 0; c < 2 * LatencyWindow.SLICE_COUNT * REFRESHES_PER_SLICE; c++)
        {
            for (int k = 0; k < 16; k++)
            {
                bucketCountsRecord();
                hdrRecord();
            }
            bucketCounts();
            hdrSlicesBaseline();
        }
    }

    /** @return the sum of the two percentiles read (the engine's window). */
    @Benchmark
    public long bucketCounts()
    {
        bucketCountsRecord();
        bucketCountsRecord();
        final long sliceIndex = ++refreshes / REFRESHES_PER_SLICE;
        ttft.advance(sliceIndex);
        tpot.advance(sliceIndex);
        return ttft.percentileMicros(95) + tpot.percentileMicros(95);
    }

    /** @return the sum of the two percentiles read (the former window, the baseline). */
    @Benchmark
    public long hdrSlicesBaseline()
    {
        hdrRecord();
        hdrRecord();
        final long sliceIndex = ++hdrRefreshes / REFRESHES_PER_SLICE;
        hdrTtft.advance(sliceIndex);
        hdrTpot.advance(sliceIndex);
        return hdrTtft.percentileMicros(95) + hdrTpot.percentileMicros(95);
    }

    private void bucketCountsRecord()
    {
        final int k = next();
        tpot.record(tpotMicros[k]);
        ttft.record(ttftMicros[k]);
    }

    private void hdrRecord()
    {
        final int k = next();
        hdrTpot.record(tpotMicros[k]);
        hdrTtft.record(ttftMicros[k]);
    }

    private int next()
    {
        final int k = cursor;
        cursor = (k + 1) & (SignalInputs.SIZE - 1);
        return k;
    }

    private static long logUniformMicros(final SplittableRandom random)
    {
        return (long)Math.exp(Math.log(1_000) + random.nextDouble() * Math.log(10_000_000 / 1_000.0));
    }
}
