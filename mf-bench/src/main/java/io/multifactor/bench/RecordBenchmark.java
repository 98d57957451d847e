package io.multifactor.bench;

import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.plan.Plans;
import org.agrona.concurrent.CachedNanoClock;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Recording one latency sample into the engine's windows, rotating over 64 models and {@link SignalInputs#SIZE}
 * pre-built values. There is no reference baseline here: the reference router appends every sample to a list, which
 * grows without bound over a benchmark iteration and would measure the garbage collector.
 * <p>
 * This class is a JMH {@code Scope.Thread} state: each benchmark thread has its own engine and inputs.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = BenchFlags.AGRONA_ADD_EXPORTS)
public class RecordBenchmark
{
    MultiFactorEngine engine;
    SignalInputs inputs;

    /** Builds an engine over the 64-model pool at default settings. */
    @Setup(Level.Trial)
    public void setup()
    {
        final SelectFixture fixture = new SelectFixture(SelectBenchmark.SEED, 4);
        final Plans plans = fixture.plans(null, null);
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(TimeUnit.HOURS.toNanos(1));
        engine = MultiFactorEngine.builder(plans).clock(clock).build();
        inputs = new SignalInputs(fixture, SelectFixture.POOL_SIZE, 17L);
    }

    /** Releases the engine. */
    @TearDown(Level.Trial)
    public void tearDown()
    {
        engine.close();
    }

    /** @return the engine's result code for one TTFT sample. */
    @Benchmark
    public int recordTtftMicros()
    {
        final int k = inputs.next();
        return engine.recordTtftMicros(inputs.modelIds[k], inputs.ttftMicros[k]);
    }

    /** @return the engine's result code for one TPOT sample. */
    @Benchmark
    public int recordTpotMicros()
    {
        final int k = inputs.next();
        return engine.recordTpotMicros(inputs.modelIds[k], inputs.tpotMicros[k]);
    }
}
