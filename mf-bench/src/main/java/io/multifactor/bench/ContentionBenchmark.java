package io.multifactor.bench;

import io.multifactor.api.Selection;
import io.multifactor.kernel.engine.MultiFactorEngine;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import java.util.concurrent.TimeUnit;

/**
 * One engine shared by two threads (one per core): one selects (16 candidates, all ceilings active, rotating over the
 * decisions), the other records a TPOT and a TTFT sample and runs {@code begin} + {@code end} on the models those
 * decisions read, so the selecting thread reads counters and published values that the other thread keeps writing.
 * <p>
 * This class is a JMH {@code Scope.Group} state shared by the two threads of a group; the per-thread inputs are
 * {@code Scope.Thread} states.
 */
@State(Scope.Group)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = BenchFlags.AGRONA_ADD_EXPORTS)
public class ContentionBenchmark
{
    /** Candidates per decision for the selecting thread. */
    static final int CANDIDATES = 16;

    SelectWorld world;
    MultiFactorEngine engine;

    /** Builds the shared engine. */
    @Setup(Level.Trial)
    public void setup()
    {
        world = new SelectWorld(SelectBenchmark.SEED, CANDIDATES, true);
        engine = world.engine;
    }

    /** Releases the engine. */
    @TearDown(Level.Trial)
    public void tearDown()
    {
        world.close();
    }

    /**
     * The selecting thread's own result object and position in the rotation.
     * <p>
     * A JMH {@code Scope.Thread} state: used by one thread.
     */
    @State(Scope.Thread)
    public static class Selector
    {
        Selection selection;
        int cursor;

        /** Allocates the reusable selection. */
        @Setup(Level.Trial)
        public void setup()
        {
            selection = new Selection(CANDIDATES);
        }
    }

    /**
     * The recording thread's pre-built inputs.
     * <p>
     * A JMH {@code Scope.Thread} state: used by one thread.
     */
    @State(Scope.Thread)
    public static class Recorder
    {
        SignalInputs inputs;

        /** Builds the inputs over the whole pool. */
        @Setup(Level.Trial)
        public void setup()
        {
            inputs = new SignalInputs(new SelectFixture(SelectBenchmark.SEED, 1), SelectFixture.POOL_SIZE, 31L);
        }
    }

    /**
     * @param selector this thread's state.
     * @return position chosen for the next decision.
     */
    @Benchmark
    @Group("contended")
    @GroupThreads(1)
    public int select(final Selector selector)
    {
        final int k = selector.cursor;
        selector.cursor = (k + 1) & SelectFixture.SET_MASK;
        engine.select(world.decisionIds[k], null, selector.selection);
        return selector.selection.selectedIndex();
    }

    /**
     * @param recorder this thread's state.
     * @param blackhole consumes the result codes.
     * @return whether the lease was released.
     */
    @Benchmark
    @Group("contended")
    @GroupThreads(1)
    public boolean recordAndLease(final Recorder recorder, final Blackhole blackhole)
    {
        final SignalInputs inputs = recorder.inputs;
        final int k = inputs.next();
        final int model = inputs.modelIds[k];
        blackhole.consume(engine.recordTpotMicros(model, inputs.tpotMicros[k]));
        blackhole.consume(engine.recordTtftMicros(model, inputs.ttftMicros[k]));
        final long lease = engine.begin(model);
        return engine.end(lease);
    }
}
