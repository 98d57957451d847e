package io.multifactor.testkit.generators;

import io.multifactor.testkit.reference.ReferenceDecision;
import io.multifactor.testkit.reference.ReferenceExtensions;
import io.multifactor.testkit.reference.ReferenceModel;
import io.multifactor.testkit.reference.ReferenceObservation;
import io.multifactor.testkit.reference.ReferenceRequest;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.core.RandomnessSource;
import org.quicktheories.generators.Generate;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.quicktheories.generators.SourceDSL.doubles;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

/**
 * Generators of selection problems with the extension keys of section 4.2 (quality floor, latency metric, cost mix,
 * request token counts, lexicographic objective, tie band and tie break). Values stay in normal floating-point ranges
 * (no subnormal or near-overflow numbers: {@link ScoringGenerators} covers those for the plain selection), with many
 * exact ties (small integers, shared values), missing signals, floors and ceilings set at a candidate's own value,
 * every candidate dropped or excluded, and all three policies.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class ExtensionGenerators
{
    /** Largest number of candidates generated. */
    public static final int MAX_CANDIDATES = 24;

    private static final List<String> FACTORS = ReferenceExtensions.FACTORS;
    private static final List<Double> TOLERANCES = List.of(0.0, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0);

    private ExtensionGenerators()
    {
    }

    /** @return candidate counts: mostly 2-8, often 1, sometimes up to {@link #MAX_CANDIDATES}. */
    public static Gen<Integer> candidateCounts()
    {
        return Generate.frequency(List.of(
            Pair.of(2, Generate.constant(1)),
            Pair.of(12, integers().between(2, 8)),
            Pair.of(2, integers().between(9, MAX_CANDIDATES))));
    }

    /** @return values with many exact ties: small integers, tenths, the unit interval, hundreds. */
    public static Gen<Double> values()
    {
        return Generate.frequency(List.of(
            Pair.of(3, integers().between(0, 5).map(i -> (double)i)),
            Pair.of(2, integers().between(0, 10).map(i -> i / 10.0)),
            Pair.of(3, doubles().between(0.0, 1.0)),
            Pair.of(2, doubles().between(0.0, 500.0))));
    }

    /** @return every combination of keys, each absent often enough that its default is covered. */
    public static Gen<ReferenceExtensions> extensions()
    {
        final Gen<Integer> percent = integers().between(0, 99);
        final Gen<Double> unit = doubles().between(0.0, 1.0);
        return in ->
        {
            final double floor = percent.generate(in) < 50 ? 0.0 : unit.generate(in);
            final String metric = List.of("auto", "tpot", "ttft").get(integers().between(0, 2).generate(in));
            double prompt = 1.0;
            double completion = 0.0;
            final int mixMode = percent.generate(in);
            if (mixMode >= 40)
            {
                prompt = mixMode < 70 ? integers().between(0, 5).generate(in) : unit.generate(in);
                completion = mixMode < 70 ? integers().between(0, 5).generate(in) : unit.generate(in);
                if (prompt + completion == 0.0)
                {
                    completion = 1.0;
                }
            }
            final String tieBreak = percent.generate(in) < 50 ? "first" : "random";
            if (percent.generate(in) < 45)
            {
                final List<String> priority = priority(in);
                final double tolerance = percent.generate(in) < 75 ?
                    TOLERANCES.get(integers().between(0, TOLERANCES.size() - 1).generate(in)) : unit.generate(in);
                return new ReferenceExtensions(
                    floor, metric, prompt, completion, "lexicographic", priority, tolerance, 0.0, tieBreak);
            }
            final int bandMode = percent.generate(in);
            final double band = bandMode < 40 ? 0.0 : bandMode < 75 ?
                TOLERANCES.get(integers().between(0, TOLERANCES.size() - 1).generate(in)) : unit.generate(in);
            return new ReferenceExtensions(floor, metric, prompt, completion, "weighted", List.of(), 0.0, band, tieBreak);
        };
    }

    /** @return problems with extension keys; a floor, when on, is now and then set at a candidate's own quality. */
    public static Gen<ExtendedCase> cases()
    {
        final Gen<ReferenceExtensions> extensions = extensions();
        final Gen<ExtendedCase> plain = plainCases(candidateCounts());
        final Gen<Integer> percent = integers().between(0, 99);
        return in ->
        {
            final ExtendedCase c = plain.generate(in);
            ReferenceExtensions e = extensions.generate(in);
            if (e.minQuality() > 0.0 && percent.generate(in) < 30)
            {
                final Double own = c.decision().candidates()
                    .get(integers().between(0, c.decision().candidates().size() - 1).generate(in)).quality();
                if (own != null && own > 0.0)
                {
                    e = e.withMinQuality(own);
                }
            }
            return c.with(e);
        };
    }

    /**
     * @param counts how many candidates each problem has.
     * @return problems with every extension key absent, models with completion prices, and requests that carry token
     *     counts now and then.
     */
    public static Gen<ExtendedCase> plainCases(final Gen<Integer> counts)
    {
        final Gen<Double> values = values();
        final Gen<Integer> percent = integers().between(0, 99);
        final Gen<Long> loads = longs().between(0, 12);
        return in ->
        {
            final int n = counts.generate(in);
            final List<ReferenceModel> models = new ArrayList<>();
            final Map<String, ReferenceObservation> observations = new HashMap<>();
            final Set<String> excluded = new HashSet<>();
            final int exclusionMode = percent.generate(in);
            final int sparse = percent.generate(in) < 20 ? 50 : 10;
            for (int i = 0; i < n; i++)
            {
                final String name = "m" + i;
                models.add(new ReferenceModel(name,
                    maybe(in, values, percent, sparse),
                    maybe(in, values, percent, sparse),
                    maybe(in, values, percent, sparse)));
                observations.put(name, new ReferenceObservation(
                    maybe(in, positive(values), percent, sparse + 10),
                    maybe(in, positive(values), percent, sparse + 10),
                    loads.generate(in)));
                if (exclusionMode < 4 || (exclusionMode >= 60 && percent.generate(in) < 20))
                {
                    excluded.add(name);
                }
            }
            final double[] w = new double[4];
            for (int f = 0; f < 4; f++)
            {
                w[f] = percent.generate(in) < 25 ? 0.0 : integers().between(1, 10).generate(in);
            }
            final ReferenceDecision decision = new ReferenceDecision("decision", models, w[0], w[1], w[2], w[3],
                ceiling(in, percent, observations, "tpot"), ceiling(in, percent, observations, "ttft"),
                percent.generate(in) < 15 ? values.generate(in) : 0.0,
                percent.generate(in) < 15 ? integers().between(1, 6).generate(in) : 0L,
                integers().between(1, 100).generate(in),
                List.of(ReferenceDecision.CHEAPEST, ReferenceDecision.FIRST, ReferenceDecision.FAIL)
                    .get(integers().between(0, 2).generate(in)));
            ReferenceRequest request = new ReferenceRequest(observations, excluded);
            if (percent.generate(in) < 30)
            {
                request = request.withTokens(
                    percent.generate(in) < 15 ? null : longs().between(0, 8000).generate(in),
                    percent.generate(in) < 15 ? null : longs().between(0, 4000).generate(in));
            }
            return new ExtendedCase(decision, ReferenceExtensions.NONE, request);
        };
    }

    /** @return a non-empty list of distinct factors in random order. */
    private static List<String> priority(final RandomnessSource in)
    {
        final List<String> shuffled = new ArrayList<>(FACTORS);
        for (int i = shuffled.size() - 1; i > 0; i--)
        {
            Collections.swap(shuffled, i, integers().between(0, i).generate(in));
        }
        return List.copyOf(shuffled.subList(0, integers().between(1, FACTORS.size()).generate(in)));
    }

    private static Gen<Double> positive(final Gen<Double> values)
    {
        return values.map(v -> v == 0.0 ? 1.0 : v);
    }

    private static Double maybe(
        final RandomnessSource in, final Gen<Double> values, final Gen<Integer> percent, final int missingPercent)
    {
        return percent.generate(in) < missingPercent ? null : values.generate(in);
    }

    private static double ceiling(
        final RandomnessSource in,
        final Gen<Integer> percent,
        final Map<String, ReferenceObservation> observations,
        final String metric)
    {
        if (percent.generate(in) >= 20)
        {
            return 0.0;
        }
        double largest = 0.0;
        for (final ReferenceObservation o : observations.values())
        {
            final Double value = "tpot".equals(metric) ? o.tpotMs() : o.ttftMs();
            largest = value == null ? largest : Math.max(largest, value);
        }
        return largest > 0.0 ? largest / 2 : 0.0;
    }
}
