package io.multifactor.testkit.generators;

import io.multifactor.testkit.reference.ReferenceDecision;
import io.multifactor.testkit.reference.ReferenceModel;
import io.multifactor.testkit.reference.ReferenceObservation;
import io.multifactor.testkit.reference.ReferenceRequest;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.core.RandomnessSource;
import org.quicktheories.generators.Generate;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.quicktheories.generators.SourceDSL.doubles;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

/**
 * Generators of selection problems for property tests. Every generated decision is valid configuration (finite,
 * non-negative quality, price and ceilings; finite weights, negative ones allowed), and the mix deliberately covers:
 * <ul>
 *   <li>one candidate, a handful, and up to {@link #MAX_CANDIDATES};</li>
 *   <li>a signal missing for some or all candidates, or shared by all (min == max);</li>
 *   <li>zero, negative and all-zero weights;</li>
 *   <li>ceilings off (0), set at a candidate's own value (kept: ceilings are strict), or below everyone;</li>
 *   <li>every candidate dropped, and every candidate excluded;</li>
 *   <li>price 0 (free), values as small as {@link Double#MIN_VALUE} and as large as {@link Double#MAX_VALUE};</li>
 *   <li>all three {@code on_no_candidates} policies.</li>
 * </ul>
 * <p>
 * This class is stateless and threadsafe.
 */
public final class ScoringGenerators
{
    /** Largest number of candidates generated. */
    public static final int MAX_CANDIDATES = 64;

    /** Values at the edges of what a double can hold, all valid configuration (finite, >= 0). */
    public static final List<Double> EXTREME_VALUES = List.of(
        0.0, Double.MIN_VALUE, 1e-310, 1e-300, 1e-12, 1e12, 1e300, Double.MAX_VALUE);

    private static final int SIGNAL_MIXED = 0;
    private static final int SIGNAL_ALL_EQUAL = 1;
    private static final int SIGNAL_SPARSE = 2;
    private static final int SIGNAL_ALL_MISSING = 3;

    private ScoringGenerators()
    {
    }

    /** @return candidate counts: mostly 2-8, often 1, sometimes up to 64, now and then exactly 64. */
    public static Gen<Integer> candidateCounts()
    {
        return weighted(List.of(
            Pair.of(3, Generate.constant(1)),
            Pair.of(12, integers().between(2, 8)),
            Pair.of(3, integers().between(9, MAX_CANDIDATES)),
            Pair.of(1, Generate.constant(MAX_CANDIDATES))));
    }

    /** @return finite non-negative values: unit interval, small integers (ties), hundreds, and the extremes. */
    public static Gen<Double> nonNegativeValues()
    {
        return weighted(List.of(
            Pair.of(4, doubles().between(0.0, 1.0)),
            Pair.of(3, integers().between(0, 5).map(i -> (double)i)),
            Pair.of(2, doubles().between(0.0, 1000.0)),
            Pair.of(1, Generate.pick(EXTREME_VALUES))));
    }

    /** @return configured weights: 0, negative, tiny, small integers, large. */
    public static Gen<Double> weights()
    {
        return weighted(List.of(
            Pair.of(3, Generate.constant(0.0)),
            Pair.of(1, doubles().between(-5.0, -1e-9)),
            Pair.of(2, doubles().between(1e-9, 1.0)),
            Pair.of(3, integers().between(1, 10).map(i -> (double)i)),
            Pair.of(1, doubles().between(1e3, 1e6))));
    }

    /** @return in-flight counts: small, shared, and very large. */
    public static Gen<Long> inflights()
    {
        return weighted(List.of(
            Pair.of(6, longs().between(0, 20)),
            Pair.of(2, longs().between(0, 2)),
            Pair.of(1, longs().between(1_000_000_000L, 1_000_000_000_000_000L))));
    }

    /** @return the three {@code on_no_candidates} policies. */
    public static Gen<String> policies()
    {
        return Generate.pick(List.of(ReferenceDecision.CHEAPEST, ReferenceDecision.FIRST, ReferenceDecision.FAIL));
    }

    /** @return selection problems covering every edge case listed in the class comment. */
    public static Gen<ScoringCase> cases()
    {
        return cases(candidateCounts());
    }

    /**
     * @param counts how many candidates each problem has (1..{@link #MAX_CANDIDATES}).
     * @return selection problems with that many candidates.
     */
    public static Gen<ScoringCase> cases(final Gen<Integer> counts)
    {
        final Gen<Integer> modes = weighted(List.of(
            Pair.of(6, Generate.constant(SIGNAL_MIXED)),
            Pair.of(2, Generate.constant(SIGNAL_ALL_EQUAL)),
            Pair.of(2, Generate.constant(SIGNAL_SPARSE)),
            Pair.of(1, Generate.constant(SIGNAL_ALL_MISSING))));
        final Gen<Integer> percent = integers().between(0, 99);
        final Gen<Integer> percentiles = integers().between(1, 100);
        final Gen<Double> values = nonNegativeValues();
        final Gen<Long> loads = inflights();
        final Gen<Double> weights = weights();
        final Gen<String> policies = policies();

        return in ->
        {
            final int n = counts.generate(in);
            final List<Double> quality = signal(in, n, modes.generate(in), values, percent);
            final List<Double> price = signal(in, n, modes.generate(in), values, percent);
            final List<Double> tpot = signal(in, n, modes.generate(in), values, percent);
            final List<Double> ttft = signal(in, n, modes.generate(in), values, percent);
            final List<Long> load = new ArrayList<>();
            final boolean loadEqual = percent.generate(in) < 15;
            final long sharedLoad = loads.generate(in);
            for (int i = 0; i < n; i++)
            {
                load.add(loadEqual ? sharedLoad : loads.generate(in));
            }

            // Weights: one case in ten has them all zero (or all negative), which means equal weights.
            final int weightMode = percent.generate(in);
            final double[] w = new double[4];
            for (int f = 0; f < 4; f++)
            {
                final double generated = weights.generate(in);
                w[f] = weightMode < 5 ? 0.0 : weightMode < 10 ? -Math.abs(generated) - 1.0 : generated;
            }

            double maxTpot = ceiling(in, tpot, percent);
            final double maxTtft = ceiling(in, ttft, percent);
            final double maxCost = ceiling(in, price, percent);
            long maxInflight = 0;
            final int inflightCeilingMode = percent.generate(in);
            if (inflightCeilingMode < 25)
            {
                maxInflight = Math.max(1, load.get(integers().between(0, n - 1).generate(in)));
            }

            // One case in eight drops every candidate: a tight in-flight ceiling everyone is above.
            if (percent.generate(in) < 12)
            {
                maxInflight = 1;
                for (int i = 0; i < n; i++)
                {
                    load.set(i, load.get(i) + 2);
                }
            }
            else if (maxTpot == 0.0 && percent.generate(in) < 3)
            {
                // Now and then a TPOT ceiling below every observed value instead.
                maxTpot = Double.MIN_VALUE;
            }

            final List<ReferenceModel> models = new ArrayList<>();
            final Map<String, ReferenceObservation> observations = new HashMap<>();
            for (int i = 0; i < n; i++)
            {
                final String name = "m" + i;
                models.add(new ReferenceModel(name, quality.get(i), price.get(i)));
                observations.put(name, new ReferenceObservation(tpot.get(i), ttft.get(i), load.get(i)));
            }

            // Exclusions: none half the time, some, or (one case in twenty) all of them.
            final int exclusionMode = percent.generate(in);
            final Set<String> excluded = new HashSet<>();
            for (int i = 0; i < n; i++)
            {
                final boolean out = exclusionMode < 5 || (exclusionMode >= 50 && percent.generate(in) < 25);
                if (out)
                {
                    excluded.add("m" + i);
                }
            }

            final ReferenceDecision decision = new ReferenceDecision(
                "decision", models, w[0], w[1], w[2], w[3], maxTpot, maxTtft, maxCost, maxInflight,
                percentiles.generate(in), policies.generate(in));
            return new ScoringCase(decision, new ReferenceRequest(observations, excluded));
        };
    }

    /**
     * Problems where no candidate survives unless excluded ones are all there is: every candidate not excluded breaks
     * the in-flight ceiling, so the policies decide.
     *
     * @return selection problems with no survivor.
     */
    public static Gen<ScoringCase> casesWithoutSurvivor()
    {
        final Gen<ScoringCase> cases = cases();
        return in ->
        {
            final ScoringCase c = cases.generate(in);
            final ReferenceDecision d = c.decision();
            final Map<String, ReferenceObservation> observations = new HashMap<>();
            for (final ReferenceModel model : d.candidates())
            {
                final ReferenceObservation o = c.request().observation(model.name());
                observations.put(model.name(), new ReferenceObservation(o.tpotMs(), o.ttftMs(), o.inflight() + 2));
            }
            return new ScoringCase(
                d.withCeilings(d.maxTpotMs(), d.maxTtftMs(), d.maxCostPer1M(), 1),
                new ReferenceRequest(observations, c.request().excluded()));
        };
    }

    private static List<Double> signal(
        final RandomnessSource in,
        final int n,
        final int mode,
        final Gen<Double> values,
        final Gen<Integer> percent)
    {
        final List<Double> signal = new ArrayList<>();
        final Double shared = values.generate(in);
        for (int i = 0; i < n; i++)
        {
            switch (mode)
            {
                case SIGNAL_ALL_EQUAL:
                    signal.add(shared);
                    break;
                case SIGNAL_ALL_MISSING:
                    signal.add(null);
                    break;
                case SIGNAL_SPARSE:
                    signal.add(percent.generate(in) < 50 ? null : values.generate(in));
                    break;
                default:
                    signal.add(percent.generate(in) < 10 ? null : values.generate(in));
                    break;
            }
        }
        return signal;
    }

    /** Off (0) half the time, else one candidate's own value (so it is kept and larger ones drop), sometimes halved. */
    private static double ceiling(
        final RandomnessSource in, final List<Double> values, final Gen<Integer> percent)
    {
        final int mode = percent.generate(in);
        final Double picked = values.get(integers().between(0, values.size() - 1).generate(in));
        if (mode < 50 || picked == null)
        {
            return 0.0;
        }
        return mode < 85 ? picked : picked / 2;
    }

    private static <T> Gen<T> weighted(final List<Pair<Integer, Gen<T>>> choices)
    {
        return Generate.frequency(choices);
    }
}
