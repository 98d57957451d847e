package io.multifactor.bench;

import io.multifactor.api.Selection;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.scoring.ScoringKernel;
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

import java.util.concurrent.TimeUnit;

/**
 * One selection, by the kernel and by the baselines, over the same {@link SelectFixture#SETS} pre-built decisions:
 * each invocation takes the next decision, so the branch predictor cannot learn one input.
 * <ul>
 *   <li>{@code kernel}: {@link Selection#reset}, {@link Selection#observe} per candidate, then
 *       {@link ScoringKernel#score}, as the engine does after reading its published signals;</li>
 *   <li>{@code handLoop}: {@link HandLoopSelector}, the practical limit.</li>
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

    SelectCase[] cases;
    Selection selection;
    int cursor;

    /** Builds the data sets and checks that every implementation agrees on each of them. */
    @Setup(Level.Trial)
    public void setup()
    {
        final SelectFixture fixture = new SelectFixture(SEED, candidates);
        final Plans first = fixture.plans(null, null);
        final int n = candidates;
        final double[][] tpot = new double[SelectFixture.SETS][n];
        final double[][] ttft = new double[SelectFixture.SETS][n];
        final long[][] inflight = new long[SelectFixture.SETS][n];
        for (int s = 0; s < SelectFixture.SETS; s++)
        {
            for (int i = 0; i < n; i++)
            {
                final int model = fixture.candidate(s, i);
                tpot[s][i] = fixture.nominalTpotMs(model);
                ttft[s][i] = fixture.nominalTtftMs(model);
                inflight[s][i] = fixture.inflight(model);
            }
        }
        final Plans plans;
        if ("all".equals(ceilings))
        {
            final double[][] chosen = new double[SelectFixture.SETS][];
            for (int s = 0; s < SelectFixture.SETS; s++)
            {
                final double[] cost = new double[n];
                for (int i = 0; i < n; i++)
                {
                    cost[i] = fixture.promptPer1M(fixture.candidate(s, i));
                }
                chosen[s] = fixture.chooseCeilings(tpot[s], ttft[s], cost, inflight[s]);
            }
            plans = fixture.plans(first, chosen);
        }
        else if ("none".equals(ceilings))
        {
            plans = first;
        }
        else
        {
            throw new IllegalArgumentException("ceilings must be all or none: " + ceilings);
        }
        cases = new SelectCase[SelectFixture.SETS];
        for (int s = 0; s < SelectFixture.SETS; s++)
        {
            final DecisionPlan plan = plans.decision(plans.decisionId(SelectFixture.decisionName(s)));
            cases[s] = new SelectCase(plan, tpot[s], ttft[s], inflight[s]);
        }
        selection = new Selection(n);
        for (int s = 0; s < SelectFixture.SETS; s++)
        {
            final int byKernel = kernelSelect(cases[s], selection);
            final int byHandLoop = HandLoopSelector.select(cases[s]);
            if (byKernel != byHandLoop)
            {
                throw new IllegalStateException(
                    "set " + s + ": kernel chose " + byKernel + ", hand loop chose " + byHandLoop);
            }
        }
        cursor = 0;
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

    private SelectCase next()
    {
        final int k = cursor;
        cursor = (k + 1) & SelectFixture.SET_MASK;
        return cases[k];
    }

    static int kernelSelect(final SelectCase c, final Selection selection)
    {
        final DecisionPlan plan = c.plan;
        final int n = c.candidateCount;
        selection.reset(c.decisionId, n);
        final int[] modelIds = c.modelIds;
        final double[] tpot = c.tpotMs;
        final double[] ttft = c.ttftMs;
        final long[] inflight = c.inflight;
        for (int i = 0; i < n; i++)
        {
            selection.observe(i, modelIds[i], false, tpot[i], ttft[i], inflight[i]);
        }
        ScoringKernel.score(plan, selection);
        return selection.selectedIndex();
    }
}
