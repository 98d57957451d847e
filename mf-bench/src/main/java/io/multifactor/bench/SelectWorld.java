package io.multifactor.bench;

import io.multifactor.api.DropReason;
import io.multifactor.api.Selection;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.testkit.reference.ReferenceCase;
import io.multifactor.testkit.reference.ReferenceDecision;
import io.multifactor.testkit.reference.ReferenceModel;
import io.multifactor.testkit.reference.ReferenceObservation;
import io.multifactor.testkit.reference.ReferenceRequest;
import io.multifactor.testkit.reference.ReferenceRouter;
import io.multifactor.testkit.reference.ReferenceResult;
import io.multifactor.testkit.reference.ReferenceScorer;
import io.multifactor.testkit.reference.ScoreTolerance;
import org.agrona.concurrent.CachedNanoClock;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Everything the select benchmarks need, built from one {@link SelectFixture}: the same real latency samples and
 * in-flight leases fed to a {@link MultiFactorEngine} and to the reference router, the observations the engine
 * publishes for every decision, ceilings chosen from those observations (when on), the final plans (installed in the
 * engine), and per decision a {@link SelectCase} for the kernel and the hand loop, a {@link ReferenceCase} for the
 * reference scorer, and a decision handle and name for the engine and the reference router.
 * <p>
 * {@link #checkAgreement} verifies that the engine, the kernel, the hand loop and the reference scorer make the same
 * choice on every data set (they see the same observations). The reference router computes exact percentiles where the
 * engine's histograms have up to 1% error, so it may choose differently now and then; {@link #routerAgreement} counts.
 * <p>
 * This class is not threadsafe: build and check it on one thread, then only read it; the engine is threadsafe.
 */
public final class SelectWorld
{
    /** Latency samples recorded per model and metric. */
    public static final int SAMPLES_PER_METRIC = 100;

    private static final long WINDOW_NS = TimeUnit.SECONDS.toNanos(60);

    final SelectFixture fixture;
    final Plans plans;
    final SelectCase[] cases = new SelectCase[SelectFixture.SETS];
    final ReferenceCase[] referenceCases = new ReferenceCase[SelectFixture.SETS];
    final String[] decisionNames = new String[SelectFixture.SETS];
    final int[] decisionIds = new int[SelectFixture.SETS];
    final ReferenceRouter router;
    final MultiFactorEngine engine;
    final Set<String> noExclusions = Set.of();

    /**
     * @param seed seed of the fixture.
     * @param candidates candidates per decision.
     * @param ceilingsOn whether the four ceilings are active.
     */
    public SelectWorld(final long seed, final int candidates, final boolean ceilingsOn)
    {
        this(seed, candidates, ceilingsOn, true);
    }

    /**
     * @param seed seed of the fixture.
     * @param candidates candidates per decision.
     * @param ceilingsOn whether the four ceilings are active.
     * @param countSelections whether the engine counts selections and drops (its metric counters).
     */
    public SelectWorld(final long seed, final int candidates, final boolean ceilingsOn, final boolean countSelections)
    {
        fixture = new SelectFixture(seed, candidates);
        final Plans first = fixture.plans(null, null);
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(TimeUnit.HOURS.toNanos(1));

        final List<ReferenceModel> models = new ArrayList<>();
        for (int m = 0; m < SelectFixture.POOL_SIZE; m++)
        {
            models.add(new ReferenceModel(fixture.modelName(m), fixture.quality(m), fixture.promptPer1M(m)));
        }
        engine = MultiFactorEngine.builder(first).clock(clock).countSelections(countSelections).build();
        for (int m = 0; m < SelectFixture.POOL_SIZE; m++)
        {
            // feed() addresses models by pool index, in the engine as in the router.
            if (engine.modelId(fixture.modelName(m)) != m)
            {
                throw new IllegalStateException("model handle of " + fixture.modelName(m) + " is not " + m);
            }
        }
        fixture.feed(engine, engine, null);
        engine.refreshNow();

        final int n = candidates;
        final double[][] tpot = new double[SelectFixture.SETS][n];
        final double[][] ttft = new double[SelectFixture.SETS][n];
        final long[][] inflight = new long[SelectFixture.SETS][n];
        final double[][] ceilings = new double[SelectFixture.SETS][];
        final Selection probe = new Selection(n);
        for (int s = 0; s < SelectFixture.SETS; s++)
        {
            engine.select(engine.decisionId(SelectFixture.decisionName(s)), null, probe);
            final double[] cost = new double[n];
            for (int i = 0; i < n; i++)
            {
                tpot[s][i] = probe.tpotMs(i);
                ttft[s][i] = probe.ttftMs(i);
                inflight[s][i] = probe.inflight(i);
                cost[i] = fixture.promptPer1M(fixture.candidate(s, i));
            }
            ceilings[s] = fixture.chooseCeilings(tpot[s], ttft[s], cost, inflight[s]);
        }
        plans = ceilingsOn ? fixture.plans(first, ceilings) : first;
        engine.replacePlans(plans);
        engine.refreshNow();

        final List<ReferenceDecision> decisions = new ArrayList<>();
        for (int s = 0; s < SelectFixture.SETS; s++)
        {
            decisionNames[s] = SelectFixture.decisionName(s);
            decisionIds[s] = engine.decisionId(decisionNames[s]);
            final DecisionPlan plan = plans.decision(plans.decisionId(decisionNames[s]));
            cases[s] = new SelectCase(plan, tpot[s], ttft[s], inflight[s]);
            final ReferenceDecision referenceDecision = referenceDecision(models, s, ceilingsOn ? ceilings[s] : null);
            decisions.add(referenceDecision);
            final Map<String, ReferenceObservation> observations = new HashMap<>();
            for (int i = 0; i < n; i++)
            {
                observations.put(
                    fixture.modelName(fixture.candidate(s, i)),
                    new ReferenceObservation(tpot[s][i], ttft[s][i], inflight[s][i]));
            }
            referenceCases[s] = new ReferenceCase(referenceDecision, new ReferenceRequest(observations, noExclusions));
        }
        router = new ReferenceRouter(models, decisions, clock, WINDOW_NS);
        fixture.feed(router, router, null);
    }

    /**
     * Checks that the storing hand loop leaves what the engine's selection holds: the choice, and per candidate the
     * drop reason, TPOT, TTFT, ranked latency, load, in-flight count and a survivor's score (within 1e-9: other
     * expressions), and that it counts one choice and one drop per dropped candidate.
     */
    private static void checkStoredAlike(final int set, final Selection selection, final SelectCase c)
    {
        final int n = c.candidateCount();
        final HandResult stored = new HandResult(n);
        final long[] counts = new long[SelectCase.counterIdLimit(n)];
        final int chosen = HandLoopSelector.selectStoring(c, stored, counts);
        long counted = 0;
        for (final long k : counts)
        {
            counted += k;
        }
        final String problem = chosen != selection.selectedIndex() ? "chose " + chosen :
            stored.outcome != selection.outcome() ? "outcome " + stored.outcome :
            counted != 1 + selection.droppedCount() ? "counted " + counted : null;
        String candidateProblem = null;
        for (int i = 0; i < n && candidateProblem == null; i++)
        {
            final boolean survived = selection.dropReason(i) == DropReason.NONE;
            if (stored.dropReasons[i] != selection.dropReason(i) || stored.tpotMs[i] != selection.tpotMs(i) ||
                stored.ttftMs[i] != selection.ttftMs(i) || stored.latencyMs[i] != selection.latencyMs(i) ||
                stored.load[i] != selection.load(i) || stored.inflight[i] != selection.inflight(i) ||
                survived && !ScoreTolerance.close(stored.scores[i], selection.score(i)))
            {
                candidateProblem = "candidate " + i;
            }
        }
        if (problem != null || candidateProblem != null)
        {
            throw new IllegalStateException("set " + set + ": the storing hand loop disagrees with the engine: " +
                (problem != null ? problem : candidateProblem));
        }
    }

    /**
     * Checks that the engine, the kernel, the hand loop and the reference scorer choose the same candidate for every
     * data set.
     *
     * @param selection a selection to use for the engine and the kernel.
     * @throws IllegalStateException naming the first data set where two implementations disagree.
     */
    public void checkAgreement(final Selection selection)
    {
        for (int s = 0; s < SelectFixture.SETS; s++)
        {
            engine.select(decisionIds[s], null, selection);
            final int byEngine = selection.selectedIndex();
            final int byKernel = SelectBenchmark.kernelSelect(cases[s], selection);
            final int byHandLoop = HandLoopSelector.select(cases[s]);
            checkStoredAlike(s, selection, cases[s]);
            final ReferenceResult scored = ReferenceScorer.select(referenceCases[s]);
            final int byScorer = scored.selectedIndex();
            // The reference computes scores with other expressions: a near tie (1e-9) may go either way.
            final boolean scorerAgrees = byKernel == byScorer || byKernel >= 0 && byScorer >= 0 &&
                scored.candidates().get(byKernel).score() != null &&
                ScoreTolerance.close(scored.candidates().get(byKernel).score(), scored.selectedScore());
            if (byEngine != byKernel || byKernel != byHandLoop || !scorerAgrees)
            {
                throw new IllegalStateException("set " + s + " disagrees: engine " + byEngine + ", kernel " + byKernel +
                    ", hand loop " + byHandLoop + ", reference scorer " + byScorer);
            }
        }
    }

    /**
     * @param selection a selection to use for the engine.
     * @return on how many data sets the reference router chooses as the engine does.
     */
    public int routerAgreement(final Selection selection)
    {
        int agreeing = 0;
        for (int s = 0; s < SelectFixture.SETS; s++)
        {
            engine.select(decisionIds[s], null, selection);
            if (selection.selectedIndex() == router.select(decisionNames[s], noExclusions).selectedIndex())
            {
                agreeing++;
            }
        }
        return agreeing;
    }

    /** Releases the engine's memory. */
    public void close()
    {
        engine.close();
    }

    /** @return the data sets, one per decision. */
    public SelectCase[] cases()
    {
        return cases.clone();
    }

    private ReferenceDecision referenceDecision(final List<ReferenceModel> models, final int set, final double[] ceilings)
    {
        final List<ReferenceModel> candidates = new ArrayList<>();
        for (int i = 0; i < fixture.candidatesPerDecision(); i++)
        {
            candidates.add(models.get(fixture.candidate(set, i)));
        }
        final double[] w = fixture.weights(set);
        final double maxTpot = ceilings == null ? 0.0 : ceilings[0];
        final double maxTtft = ceilings == null ? 0.0 : ceilings[1];
        final double maxCost = ceilings == null ? 0.0 : ceilings[2];
        final long maxInflight = ceilings == null ? 0L : (long)ceilings[3];
        return new ReferenceDecision(
            SelectFixture.decisionName(set), candidates, w[0], w[1], w[2], w[3], maxTpot, maxTtft, maxCost, maxInflight,
            fixture.percentile(set), ReferenceDecision.CHEAPEST);
    }
}
