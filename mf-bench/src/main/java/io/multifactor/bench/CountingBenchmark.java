package io.multifactor.bench;

import io.multifactor.api.Selection;
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
import org.openjdk.jmh.infra.ThreadParams;

import java.util.concurrent.TimeUnit;

/**
 * What the engine's metric counters cost {@code select}: the same engine inputs with selection counting on
 * ({@link #counting}, the default: each selection and each drop counted into the calling thread's own counter block,
 * which the refresh agent adds into the shared counters once per period) and off ({@link #notCounting}), in the same
 * run, at 4 and 16 candidates. The annotations are the verdict settings (3 forks of 5 x 1 s after 5 x 1 s of warm-up
 * per case): one run of this class decides both sizes, because a single fork at 16 candidates has come out either way
 * (its JIT's inlining varies between forks). Run with {@code -t 2} as well to see two threads on one engine; each
 * thread starts its rotation over the 32 decisions half a turn after the previous one. With ceilings on, a few
 * candidates are dropped and their drops counted too.
 * <p>
 * This class is not threadsafe on its own: JMH gives each thread its own {@link Cursor}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 3, jvmArgsAppend = BenchFlags.AGRONA_ADD_EXPORTS)
public class CountingBenchmark
{
    /** Candidates per decision. */
    @Param({ "4", "16" })
    public int candidates;

    /** {@code all}: the four ceilings active, a few candidates dropped; {@code none}: every ceiling off. */
    @Param({ "all" })
    public String ceilings;

    SelectWorld counted;
    SelectWorld uncounted;

    /** Builds the two engines from the same seed. */
    @Setup(Level.Trial)
    public void setup()
    {
        final boolean ceilingsOn = "all".equals(ceilings);
        counted = new SelectWorld(SelectBenchmark.SEED, candidates, ceilingsOn, true);
        uncounted = new SelectWorld(SelectBenchmark.SEED, candidates, ceilingsOn, false);
    }

    /** Releases the engines. */
    @TearDown(Level.Trial)
    public void tearDown()
    {
        counted.close();
        uncounted.close();
    }

    /** One thread's selection and position in the rotation over the decisions. */
    @State(Scope.Thread)
    public static class Cursor
    {
        Selection selection;
        int next;

        /**
         * @param threads the thread's index.
         */
        @Setup(Level.Trial)
        public void setup(final ThreadParams threads)
        {
            selection = new Selection(16);
            next = (threads.getThreadIndex() * (SelectFixture.SETS / 2)) & SelectFixture.SET_MASK;
        }

        int nextSet()
        {
            final int k = next;
            next = (k + 1) & SelectFixture.SET_MASK;
            return k;
        }
    }

    /**
     * @param cursor the thread's state.
     * @return the chosen index, so that the selection is not dead code.
     */
    @Benchmark
    public int counting(final Cursor cursor)
    {
        counted.engine.select(counted.decisionIds[cursor.nextSet()], null, cursor.selection);
        return cursor.selection.selectedIndex();
    }

    /**
     * @param cursor the thread's state.
     * @return the chosen index.
     */
    @Benchmark
    public int notCounting(final Cursor cursor)
    {
        uncounted.engine.select(uncounted.decisionIds[cursor.nextSet()], null, cursor.selection);
        return cursor.selection.selectedIndex();
    }
}
