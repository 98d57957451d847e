package io.multifactor.bench;

import io.multifactor.api.InflightTracker;
import io.multifactor.api.LatencyRecorder;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.plan.NoCandidatesPolicy;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;

import org.agrona.concurrent.CachedNanoClock;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The deterministic world the select benchmarks rotate through: a pool of {@link #POOL_SIZE} models, each with a
 * quality score, a prompt price and a nominal TPOT and TTFT, and {@link #SETS} decisions of the same size, each a
 * different random choice and order of pool models, with its own weights and latency percentile.
 * <p>
 * Every signal is present (quality, price, both latencies, in-flight at least 1), so that all four ceilings can be
 * active with a non-zero value. {@link #chooseCeilings} sets a decision's ceilings from the values actually observed,
 * so that a few candidates break a ceiling and most decisions keep survivors.
 * <p>
 * This class is not threadsafe: build it and derive plans on one thread (a JMH {@code @Setup}).
 */
public final class SelectFixture
{
    /** Number of models in the pool; the largest decision uses all of them. */
    public static final int POOL_SIZE = 64;
    /** Number of decisions rotated through, a power of two so that rotation is a mask. */
    public static final int SETS = 32;
    /** Mask for rotating through {@link #SETS}. */
    public static final int SET_MASK = SETS - 1;

    private static final int[] PERCENTILES = { 50, 90, 95, 99 };

    private final int candidatesPerDecision;
    private final SplittableRandom random;
    private final String[] modelNames = new String[POOL_SIZE];
    private final double[] quality = new double[POOL_SIZE];
    private final double[] promptPer1M = new double[POOL_SIZE];
    private final double[] nominalTpotMs = new double[POOL_SIZE];
    private final double[] nominalTtftMs = new double[POOL_SIZE];
    private final long[] inflight = new long[POOL_SIZE];
    private final int[][] candidates = new int[SETS][];
    private final double[][] weights = new double[SETS][];
    private final int[] percentiles = new int[SETS];

    /**
     * @param seed seed of every random choice.
     * @param candidatesPerDecision candidates per decision, 1..{@link #POOL_SIZE}.
     */
    public SelectFixture(final long seed, final int candidatesPerDecision)
    {
        if (candidatesPerDecision < 1 || candidatesPerDecision > POOL_SIZE)
        {
            throw new IllegalArgumentException("candidates must be in 1.." + POOL_SIZE + ": " + candidatesPerDecision);
        }
        this.candidatesPerDecision = candidatesPerDecision;
        this.random = new SplittableRandom(seed);
        for (int m = 0; m < POOL_SIZE; m++)
        {
            modelNames[m] = "model-" + m;
            quality[m] = round(0.2 + 0.8 * random.nextDouble());
            promptPer1M[m] = round(0.1 + 20.0 * random.nextDouble());
            nominalTpotMs[m] = round(10.0 + 140.0 * random.nextDouble());
            nominalTtftMs[m] = round(100.0 + 1400.0 * random.nextDouble());
            inflight[m] = 1 + random.nextInt(40);
        }
        final int[] order = new int[POOL_SIZE];
        for (int s = 0; s < SETS; s++)
        {
            for (int m = 0; m < POOL_SIZE; m++)
            {
                order[m] = m;
            }
            for (int m = POOL_SIZE - 1; m > 0; m--)
            {
                final int j = random.nextInt(m + 1);
                final int t = order[m];
                order[m] = order[j];
                order[j] = t;
            }
            candidates[s] = Arrays.copyOf(order, candidatesPerDecision);
            weights[s] = new double[] {
                0.1 + random.nextDouble(), 0.1 + random.nextDouble(), 0.1 + random.nextDouble(), 0.1 + random.nextDouble() };
            percentiles[s] = PERCENTILES[random.nextInt(PERCENTILES.length)];
        }
    }

    /** @return candidates per decision. */
    public int candidatesPerDecision()
    {
        return candidatesPerDecision;
    }

    /**
     * @param set decision index, 0..{@link #SETS}-1.
     * @return its name in the plans.
     */
    public static String decisionName(final int set)
    {
        return "decision-" + set;
    }

    /**
     * @param model pool index.
     * @return its name in the plans.
     */
    public String modelName(final int model)
    {
        return modelNames[model];
    }

    /**
     * @param set decision index.
     * @param index candidate position.
     * @return pool index of that candidate.
     */
    public int candidate(final int set, final int index)
    {
        return candidates[set][index];
    }

    /**
     * @param set decision index.
     * @return its configured weights {quality, latency, cost, load}, before normalization (a copy).
     */
    public double[] weights(final int set)
    {
        return weights[set].clone();
    }

    /**
     * @param set decision index.
     * @return its latency percentile.
     */
    public int percentile(final int set)
    {
        return percentiles[set];
    }

    /**
     * @param model pool index.
     * @return its quality score.
     */
    public double quality(final int model)
    {
        return quality[model];
    }

    /**
     * @param model pool index.
     * @return its nominal TPOT in milliseconds; samples are drawn around it.
     */
    public double nominalTpotMs(final int model)
    {
        return nominalTpotMs[model];
    }

    /**
     * @param model pool index.
     * @return its nominal TTFT in milliseconds; samples are drawn around it.
     */
    public double nominalTtftMs(final int model)
    {
        return nominalTtftMs[model];
    }

    /**
     * @param model pool index.
     * @return its in-flight count, at least 1.
     */
    public long inflight(final int model)
    {
        return inflight[model];
    }

    /**
     * @param model pool index.
     * @return its prompt price in USD per 1M tokens, positive.
     */
    public double promptPer1M(final int model)
    {
        return promptPer1M[model];
    }

    /**
     * One latency sample within +-10% of a nominal value, in microseconds.
     *
     * @param nominalMs nominal latency in milliseconds.
     * @return a sample in microseconds, at least 1.
     */
    public long sampleMicros(final double nominalMs)
    {
        return Math.max(1L, Math.round(nominalMs * 1000.0 * (0.9 + 0.2 * random.nextDouble())));
    }

    /**
     * Records {@link SelectWorld#SAMPLES_PER_METRIC} TPOT and TTFT samples per pool model, drawn within +-10% of its
     * nominal values from a second fixture (seeded from {@link SelectBenchmark#SEED}, so every target fed gets the same
     * samples), and opens each model's {@link #inflight} leases (without token counts), addressing models by pool
     * index.
     *
     * @param recorder where the samples go.
     * @param tracker where the leases are begun.
     * @param clockOrNull advanced by one millisecond before each pair of samples (so that a peak-EWMA estimate decays
     *     between them as it would under traffic), or {@code null} to record them all at one instant.
     * @return the fixture the samples were drawn from, to draw more from the same sequence.
     */
    public SelectFixture feed(
        final LatencyRecorder recorder, final InflightTracker tracker, final CachedNanoClock clockOrNull)
    {
        final SelectFixture samples = new SelectFixture(SelectBenchmark.SEED ^ 0x5A5A5A5AL, 1);
        for (int m = 0; m < POOL_SIZE; m++)
        {
            for (int k = 0; k < SelectWorld.SAMPLES_PER_METRIC; k++)
            {
                if (clockOrNull != null)
                {
                    clockOrNull.advance(1_000_000L);
                }
                recorder.recordTpotMicros(m, samples.sampleMicros(nominalTpotMs[m]));
                recorder.recordTtftMicros(m, samples.sampleMicros(nominalTtftMs[m]));
            }
            for (long k = 0; k < inflight[m]; k++)
            {
                tracker.begin(m);
            }
        }
        return samples;
    }

    /**
     * Plans with every model of the pool and every decision, each decision shaped further by the caller (the
     * variants of the extension and signal benchmarks): candidates, the seed weights, the percentile and
     * {@code on_no_candidates: cheapest} are set before {@code shaper} runs, which may replace any of them.
     *
     * @param previous the snapshot these plans replace (keeps handles), or null for a first snapshot.
     * @param completionPrices whether models have a completion price (three times the prompt's, as at most
     *     providers), or only a prompt price.
     * @param shaper called once per decision with its set index and specification, before it is added.
     * @return the snapshot.
     */
    public Plans plans(final Plans previous, final boolean completionPrices, final DecisionShaper shaper)
    {
        final PlansBuilder builder = previous == null ? new PlansBuilder() : new PlansBuilder(previous);
        for (int m = 0; m < POOL_SIZE; m++)
        {
            builder.model(modelNames[m], quality[m], promptPer1M[m], completionPrices ? 3 * promptPer1M[m] : Double.NaN);
        }
        for (int s = 0; s < SETS; s++)
        {
            final PlansBuilder.DecisionSpec spec = baseDecision(builder, s);
            shaper.shape(s, spec);
            spec.add();
        }
        return builder.build();
    }

    /**
     * @param engine an engine holding plans of this fixture.
     * @return the handle of each decision, by set index.
     */
    public static int[] decisionIds(final MultiFactorEngine engine)
    {
        final int[] ids = new int[SETS];
        for (int s = 0; s < SETS; s++)
        {
            ids[s] = engine.decisionId(decisionName(s));
        }
        return ids;
    }

    /** Shapes one decision of {@link #plans(Plans, boolean, DecisionShaper)}; called on the building thread. */
    @FunctionalInterface
    public interface DecisionShaper
    {
        /**
         * @param set decision index.
         * @param spec its specification, with candidates, seed weights, percentile and policy set.
         */
        void shape(int set, PlansBuilder.DecisionSpec spec);
    }

    /**
     * Plans with every model and decision; {@code ceilings[set]} as from {@link #chooseCeilings}, or all ceilings off
     * when {@code ceilings} is null.
     *
     * @param previous the snapshot these plans replace (keeps handles), or null for a first snapshot.
     * @param ceilings per decision {max TPOT ms, max TTFT ms, max cost per 1M, max in-flight}, or null.
     * @return the snapshot.
     */
    public Plans plans(final Plans previous, final double[][] ceilings)
    {
        final PlansBuilder builder = previous == null ? new PlansBuilder() : new PlansBuilder(previous);
        for (int m = 0; m < POOL_SIZE; m++)
        {
            builder.model(modelNames[m], quality[m], promptPer1M[m]);
        }
        for (int s = 0; s < SETS; s++)
        {
            final PlansBuilder.DecisionSpec spec = baseDecision(builder, s);
            if (ceilings != null)
            {
                final double[] c = ceilings[s];
                spec.slo(c[0], c[1], c[2], (long)c[3]);
            }
            spec.add();
        }
        return builder.build();
    }

    private PlansBuilder.DecisionSpec baseDecision(final PlansBuilder builder, final int set)
    {
        final String[] names = new String[candidatesPerDecision];
        for (int i = 0; i < candidatesPerDecision; i++)
        {
            names[i] = modelNames[candidates[set][i]];
        }
        final double[] w = weights[set];
        return builder.decision(decisionName(set))
            .candidates(names)
            .weights(w[0], w[1], w[2], w[3])
            .percentile(percentiles[set])
            .policy(NoCandidatesPolicy.CHEAPEST);
    }

    /**
     * Chooses the four ceilings of one decision from its observed values: for each signal, a small random number of
     * candidates (none for two signals in three) strictly exceed the ceiling. Every ceiling is non-zero, so active.
     *
     * @param tpotMs observed TPOT per candidate.
     * @param ttftMs observed TTFT per candidate.
     * @param costPer1M prompt price per candidate.
     * @param inflight in-flight count per candidate.
     * @return {max TPOT ms, max TTFT ms, max cost per 1M, max in-flight}.
     */
    public double[] chooseCeilings(final double[] tpotMs, final double[] ttftMs, final double[] costPer1M, final long[] inflight)
    {
        final double[] loads = new double[inflight.length];
        for (int i = 0; i < loads.length; i++)
        {
            loads[i] = inflight[i];
        }
        return new double[] { ceiling(tpotMs), ceiling(ttftMs), ceiling(costPer1M), Math.max(1.0, ceiling(loads)) };
    }

    private double ceiling(final double[] values)
    {
        final double[] sorted = values.clone();
        Arrays.sort(sorted);
        final int n = sorted.length;
        // One signal in three has exceeding candidates: one for small decisions, up to an eighth of a large one.
        final int exceeding = random.nextInt(3) == 0 ? Math.min(n - 1, 1 + random.nextInt(Math.max(1, n / 8))) : 0;
        final int rank = n - 1 - exceeding;
        // Candidates equal to sorted[rank] are not above it (the filter is strict), so at most `exceeding` drop.
        return sorted[rank];
    }

    private static double round(final double value)
    {
        return Math.round(value * 1000.0) / 1000.0;
    }
}
