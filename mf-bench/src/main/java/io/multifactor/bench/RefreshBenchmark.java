package io.multifactor.bench;

import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.engine.SignalSettings;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import org.agrona.concurrent.CachedNanoClock;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * One refresh duty cycle of an engine that knows one model, at default signal settings, in steady state: the window
 * has been filled and rotated for twice its length before measurement, and each invocation records
 * {@value #SAMPLES_PER_CYCLE} samples per metric (a few nanoseconds each, against a budget in microseconds), advances
 * the clock by one refresh period and refreshes, which rotates and drains both windows and republishes both metrics'
 * percentiles.
 * <p>
 * The duty cycle also sweeps the lease table for stale leases every {@code inflight_max_age / 64} (every ninth or
 * tenth cycle at default settings); {@code leaseCapacity} shows that cost with a small table and with the default one.
 * <p>
 * This class is a JMH {@code Scope.Thread} state: each benchmark thread has its own engine.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = BenchFlags.AGRONA_ADD_EXPORTS)
public class RefreshBenchmark
{
    /** Samples recorded per metric before each refresh. */
    static final int SAMPLES_PER_CYCLE = 2;

    /** Lease slots of the engine: 64 (sweep nearly free) or the default 65536. */
    @Param({ "64", "65536" })
    public int leaseCapacity;

    CachedNanoClock clock;
    MultiFactorEngine engine;
    SignalInputs inputs;
    long refreshNs;

    /** Builds the engine and brings its windows to steady state. */
    @Setup(Level.Trial)
    public void setup()
    {
        final SelectFixture fixture = new SelectFixture(SelectBenchmark.SEED, 1);
        final Plans plans = new PlansBuilder()
            .model(fixture.modelName(0), fixture.quality(0), fixture.promptPer1M(0))
            .decision("one").candidates(fixture.modelName(0)).add()
            .build();
        clock = new CachedNanoClock();
        clock.update(TimeUnit.HOURS.toNanos(1));
        final SignalSettings settings = SignalSettings.defaults();
        engine = MultiFactorEngine.builder(plans).clock(clock).settings(settings).leaseCapacity(leaseCapacity).build();
        refreshNs = settings.latencyRefreshNs();
        inputs = new SignalInputs(fixture, 1, 29L);
        final long cycles = 2 * settings.latencyWindowNs() / refreshNs;
        for (long c = 0; c < cycles; c++)
        {
            for (int k = 0; k < 16; k++)
            {
                recordOne();
            }
            clock.advance(refreshNs);
            engine.refresh();
        }
    }

    /** Releases the engine. */
    @TearDown(Level.Trial)
    public void tearDown()
    {
        engine.close();
    }

    /** @return the work the duty cycle reports. */
    @Benchmark
    public int refreshOneModel()
    {
        recordOne();
        recordOne();
        clock.advance(refreshNs);
        return engine.refresh();
    }

    private void recordOne()
    {
        final int k = inputs.next();
        engine.recordTpotMicros(0, inputs.tpotMicros[k]);
        engine.recordTtftMicros(0, inputs.ttftMicros[k]);
    }
}
