package io.multifactor.bench;

import io.multifactor.api.Selection;
import io.multifactor.kernel.engine.MultiFactorEngine;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.ThreadParams;

import java.util.concurrent.TimeUnit;

/**
 * The hot paths on one shared engine, by one thread and by two threads at once (one per core on the 2-core machine):
 * {@code select} (16 candidates, all ceilings active, rotating over the decisions, counting on as by default),
 * {@code begin} + {@code end}, and {@code select} + recording a TPOT and a TTFT sample of the chosen model (what a
 * router does per request). JMH reports the average time per operation of each thread, so the two-thread row divided
 * by the one-thread row shows what the threads cost each other: shared writes (a cache line that every call writes
 * and the other thread reads) show up as a ratio well above 1.
 * <p>
 * The control is the hand loop ({@link HandLoopSelector}) over the same decisions, by one and by two threads: it shares
 * nothing, so its own two-thread ratio is what the machine alone costs (two hyperthreads or a noisy neighbour slow
 * both threads even when they share no line); judge the engine's ratios against it. Every thread's inputs are
 * deterministic: thread {@code i} of a trial starts its rotation over the decisions at {@code i * SETS / 2} and draws
 * its signal inputs from seed {@code SEED + i}, so runs and forks measure the same work.
 * <p>
 * This class is a JMH {@code Scope.Benchmark} state shared by the threads of a trial; each thread's inputs are a
 * {@code Scope.Thread} state.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = BenchFlags.AGRONA_ADD_EXPORTS)
public class ThreadsBenchmark
{
    /** Candidates per decision. */
    static final int CANDIDATES = 16;

    SelectWorld world;
    MultiFactorEngine engine;
    SelectCase[] cases;

    /** Builds the shared engine and checks that the engine and the hand loop agree on every decision. */
    @Setup(Level.Trial)
    public void setup()
    {
        world = new SelectWorld(SelectBenchmark.SEED, CANDIDATES, true);
        engine = world.engine;
        cases = world.cases();
        world.checkAgreement(new Selection(CANDIDATES));
    }

    /** Releases the engine. */
    @TearDown(Level.Trial)
    public void tearDown()
    {
        world.close();
    }

    /**
     * One thread's own result object, position in the rotation and pre-built signal inputs (seeded per thread).
     * <p>
     * A JMH {@code Scope.Thread} state: used by one thread.
     */
    @State(Scope.Thread)
    public static class Caller
    {
        Selection selection;
        SignalInputs inputs;
        int cursor;

        /**
         * Allocates the reusable selection and the inputs, both fixed by the thread's index in the trial.
         *
         * @param thread which thread of the trial this is.
         */
        @Setup(Level.Trial)
        public void setup(final ThreadParams thread)
        {
            final int index = thread.getThreadIndex();
            selection = new Selection(CANDIDATES);
            inputs = new SignalInputs(
                new SelectFixture(SelectBenchmark.SEED, 1), SelectFixture.POOL_SIZE, SelectBenchmark.SEED + index);
            cursor = (index * (SelectFixture.SETS / 2)) & SelectFixture.SET_MASK;
        }

        int nextDecision()
        {
            final int k = cursor;
            cursor = (k + 1) & SelectFixture.SET_MASK;
            return k;
        }
    }

    /**
     * The control: the hand loop over the same decisions, sharing nothing.
     *
     * @param caller this thread's state.
     * @return position chosen for the next decision.
     */
    @Benchmark
    @Threads(1)
    public int handLoopOneThread(final Caller caller)
    {
        return HandLoopSelector.select(cases[caller.nextDecision()]);
    }

    /**
     * The control with two threads: its ratio to {@link #handLoopOneThread} is what two threads cost each other on
     * this machine without sharing anything.
     *
     * @param caller this thread's state.
     * @return position chosen for the next decision.
     */
    @Benchmark
    @Threads(2)
    public int handLoopTwoThreads(final Caller caller)
    {
        return HandLoopSelector.select(cases[caller.nextDecision()]);
    }

    /**
     * @param caller this thread's state.
     * @return position chosen for the next decision.
     */
    @Benchmark
    @Threads(1)
    public int selectOneThread(final Caller caller)
    {
        return select(caller);
    }

    /**
     * @param caller this thread's state.
     * @return position chosen for the next decision.
     */
    @Benchmark
    @Threads(2)
    public int selectTwoThreads(final Caller caller)
    {
        return select(caller);
    }

    /**
     * @param caller this thread's state.
     * @return whether the lease was released.
     */
    @Benchmark
    @Threads(1)
    public boolean beginEndOneThread(final Caller caller)
    {
        return beginEnd(caller);
    }

    /**
     * @param caller this thread's state.
     * @return whether the lease was released.
     */
    @Benchmark
    @Threads(2)
    public boolean beginEndTwoThreads(final Caller caller)
    {
        return beginEnd(caller);
    }

    /**
     * @param caller this thread's state.
     * @return the sum of the two recording result codes and the chosen position.
     */
    @Benchmark
    @Threads(1)
    public int selectRecordOneThread(final Caller caller)
    {
        return selectRecord(caller);
    }

    /**
     * @param caller this thread's state.
     * @return the sum of the two recording result codes and the chosen position.
     */
    @Benchmark
    @Threads(2)
    public int selectRecordTwoThreads(final Caller caller)
    {
        return selectRecord(caller);
    }

    private int select(final Caller caller)
    {
        engine.select(world.decisionIds[caller.nextDecision()], null, caller.selection);
        return caller.selection.selectedIndex();
    }

    private boolean beginEnd(final Caller caller)
    {
        final SignalInputs inputs = caller.inputs;
        final long lease = engine.begin(inputs.modelIds[inputs.next()]);
        return engine.end(lease);
    }

    private int selectRecord(final Caller caller)
    {
        final Selection selection = caller.selection;
        engine.select(world.decisionIds[caller.nextDecision()], null, selection);
        final int model = selection.selectedModel();
        final SignalInputs inputs = caller.inputs;
        final int k = inputs.next();
        return selection.selectedIndex() + engine.recordTpotMicros(model, inputs.tpotMicros[k]) +
            engine.recordTtftMicros(model, inputs.ttftMicros[k]);
    }
}
