package io.multifactor.bench;

import io.multifactor.api.Selection;
import io.multifactor.kernel.scoring.ScoringKernel;
import io.multifactor.testkit.reference.ReferenceScorer;
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
import org.openjdk.jmh.infra.BenchmarkParams;

import java.util.concurrent.TimeUnit;

/**
 * One selection, by the engine, by its kernel alone and by the baselines, over the same {@link SelectFixture#SETS} pre-built decisions:
 * each invocation takes the next decision, so the branch predictor cannot learn one input.
 * <ul>
 *   <li>{@code engine}: {@code MultiFactorEngine.select} with published signals from real samples and in-flight leases,
 *       counting selections and drops (the default);</li>
 *   <li>{@code engineNotCounting}: the same engine built with {@code countSelections(false)}, so that the difference
 *       from {@code engine} in the same run is what counting costs;</li>
 *   <li>{@code kernel}: {@link ScoringKernel#select} over standalone signals holding the same observations (its own
 *       small counter buffer instead of the engine's), without the engine's state and plan lookup;</li>
 *   <li>{@code handLoop}: {@link HandLoopSelector}, the practical limit;</li>
 *   <li>{@code handLoopStoring}: the same loop storing what a selection holds after a call into a {@link HandResult}
 *       (per candidate its drop reason, latencies, load, in-flight count and score; the bounds; the outcome), the
 *       control of what the result contract costs a loop with no engine around it;</li>
 *   <li>{@code handLoopStoringCounting}: that loop also counting the choice and each drop (in its drop branch) with
 *       plain increments into an array laid out as the engine's per-thread block, the control of what counting costs
 *       it;</li>
 *   <li>{@code reference}: the mf-testkit reference router (sort-based percentiles over raw samples, object-based
 *       scoring), the baseline of the "faster" claims;</li>
 *   <li>{@code referenceScorer}: the reference scorer alone over the same observations as the kernel.</li>
 * </ul>
 * Every benchmark returns the chosen position, and {@link #setup} checks that they all choose the same one.
 * <p>
 * This class is a JMH {@code Scope.Thread} state: each benchmark thread has its own instance.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = BenchFlags.AGRONA_ADD_EXPORTS)
public class SelectBenchmark
{
    /** Seed of the data sets, fixed so that every run measures the same inputs. */
    static final long SEED = 0x5EED_0F_5E1ECL;

    /** Candidates per decision. */
    @Param({ "2", "4", "8", "16", "64" })
    public int candidates;

    /** {@code all}: the four ceilings active, a few candidates dropped; {@code none}: every ceiling off. */
    @Param({ "all", "none" })
    public String ceilings;

    /** Calls made to a reference baseline in setup, at most, so that it is measured compiled. */
    static final int PREWARM_CALLS = 1_000_000;
    /** Time spent pre-warming a reference baseline in setup, at most. */
    static final long PREWARM_NS = TimeUnit.SECONDS.toNanos(4);

    SelectWorld world;
    SelectCase[] cases;
    int prewarmSink;
    Selection selection;
    HandResult handResult;
    long[] handCounts;
    int cursor;

    /**
     * Builds the data sets, checks that every implementation agrees on each of them and, for a reference baseline,
     * runs it for 4 s first ({@value #PREWARM_CALLS} calls at most): on 2 busy cores its JIT compilation takes several
     * seconds, so the quick profile's short warm-up would measure it partly interpreted (tens of microseconds instead
     * of about two), which would flatter every ratio against it.
     *
     * @param params which benchmark this trial runs.
     */
    @Setup(Level.Trial)
    public void setup(final BenchmarkParams params)
    {
        final boolean ceilingsOn;
        if ("all".equals(ceilings))
        {
            ceilingsOn = true;
        }
        else if ("none".equals(ceilings))
        {
            ceilingsOn = false;
        }
        else
        {
            throw new IllegalArgumentException("ceilings must be all or none: " + ceilings);
        }
        final String benchmark = params.getBenchmark();
        final String method = benchmark.substring(benchmark.lastIndexOf('.') + 1);
        // The one engine this trial measures: counting unless the benchmark is the one without.
        world = new SelectWorld(SEED, candidates, ceilingsOn, !"engineNotCounting".equals(method));
        cases = world.cases();
        selection = new Selection(candidates);
        handResult = new HandResult(candidates);
        handCounts = new long[SelectCase.counterIdLimit(candidates)];
        world.checkAgreement(selection);
        if (method.startsWith("reference"))
        {
            final long deadlineNs = System.nanoTime() + PREWARM_NS;
            for (int i = 0; i < PREWARM_CALLS && System.nanoTime() - deadlineNs < 0; i++)
            {
                prewarmSink += "reference".equals(method) ? reference() : referenceScorer();
            }
        }
        cursor = 0;
    }

    /** Releases the engine. */
    @TearDown(Level.Trial)
    public void tearDown()
    {
        world.close();
    }

    /**
     * The real engine: reads the plan snapshot, the published percentiles and the in-flight counters, then scores.
     *
     * @return position chosen by the engine for the next data set.
     */
    @Benchmark
    public int engine()
    {
        world.engine.select(world.decisionIds[nextSet()], null, selection);
        return selection.selectedIndex();
    }

    /**
     * The same engine with selection counting off ({@code countSelections(false)}), same inputs: the baseline of what
     * counting costs {@code select}.
     *
     * @return position chosen by the engine for the next data set.
     */
    @Benchmark
    public int engineNotCounting()
    {
        world.engine.select(world.decisionIds[nextSet()], null, selection);
        return selection.selectedIndex();
    }

    /**
     * @return position chosen by the scoring kernel for the next data set.
     */
    @Benchmark
    public int kernel()
    {
        return kernelSelect(next(), selection);
    }

    /**
     * @return position chosen by the hand-written loop for the next data set.
     */
    @Benchmark
    public int handLoop()
    {
        return HandLoopSelector.select(next());
    }

    /**
     * @return position chosen by the hand-written loop that stores the result, for the next data set.
     */
    @Benchmark
    public int handLoopStoring()
    {
        return HandLoopSelector.selectStoring(next(), handResult, null);
    }

    /**
     * @return position chosen by the hand-written loop that stores the result and counts, for the next data set.
     */
    @Benchmark
    public int handLoopStoringCounting()
    {
        return HandLoopSelector.selectStoring(next(), handResult, handCounts);
    }

    /**
     * The reference router: percentiles sorted from the raw samples of the window, then the object-based scorer, under
     * the router's lock, as the Go original does.
     *
     * @return position it chose for the next data set.
     */
    @Benchmark
    public int reference()
    {
        return world.router.select(world.decisionNames[nextSet()], world.noExclusions).selectedIndex();
    }

    /**
     * The reference scorer alone, over the same observations as the kernel (no percentile computation).
     *
     * @return position it chose for the next data set.
     */
    @Benchmark
    public int referenceScorer()
    {
        final int k = nextSet();
        return ReferenceScorer.select(world.referenceCases[k]).selectedIndex();
    }

    private SelectCase next()
    {
        return cases[nextSet()];
    }

    private int nextSet()
    {
        final int k = cursor;
        cursor = (k + 1) & SelectFixture.SET_MASK;
        return k;
    }

    static int kernelSelect(final SelectCase c, final Selection selection)
    {
        ScoringKernel.select(c.plan, c.signals, null, selection);
        return selection.selectedIndex();
    }
}
