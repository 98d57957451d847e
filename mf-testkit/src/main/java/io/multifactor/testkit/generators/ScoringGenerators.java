package io.multifactor.testkit.generators;

import io.multifactor.api.Factor;
import io.multifactor.testkit.reference.ReferenceCase;
import io.multifactor.testkit.reference.ReferenceDecision;
import io.multifactor.testkit.reference.ReferenceEligibility;
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
 * Generators of selection problems ({@link ReferenceCase}) for property tests, in four families: the seed's keys over
 * the whole range of a double ({@link #cases()}), the extension keys in normal ranges ({@link #extendedCases()}), the
 * load signals (tokens, servers' queue and KV-cache, stale) over the seed's problems ({@link #loadSignalCases()}), and
 * every key at once ({@link #everyKey()}). Every generated decision is valid configuration (finite, non-negative quality, price and
 * ceilings; finite weights, negative ones allowed), and the seed's family deliberately covers:
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

    /** Largest number of candidates of the extensions' problems. */
    public static final int EXTENDED_MAX_CANDIDATES = 24;

    /** Values at the edges of what a double can hold, all valid configuration (finite, >= 0). */
    public static final List<Double> EXTREME_VALUES = List.of(
        0.0, Double.MIN_VALUE, 1e-310, 1e-300, 1e-12, 1e12, 1e300, Double.MAX_VALUE);

    private static final List<Double> TOLERANCES = List.of(0.0, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0);

    /** In-flight token counts: a few, thousands, and up to a large server's 400,000. */
    private static final Gen<Long> TOKENS = longs().between(0L, 400_000L);

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
    public static Gen<ReferenceCase> cases()
    {
        return cases(candidateCounts());
    }

    /**
     * @param counts how many candidates each problem has (1..{@link #MAX_CANDIDATES}).
     * @return selection problems with that many candidates.
     */
    public static Gen<ReferenceCase> cases(final Gen<Integer> counts)
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
            return new ReferenceCase(decision, new ReferenceRequest(observations, excluded));
        };
    }

    /**
     * Problems where no candidate survives unless excluded ones are all there is: every candidate not excluded breaks
     * the in-flight ceiling, so the policies decide.
     *
     * @return selection problems with no survivor.
     */
    public static Gen<ReferenceCase> casesWithoutSurvivor()
    {
        final Gen<ReferenceCase> cases = cases();
        return in ->
        {
            final ReferenceCase c = cases.generate(in);
            final ReferenceDecision d = c.decision();
            final Map<String, ReferenceObservation> observations = new HashMap<>();
            for (final ReferenceModel model : d.candidates())
            {
                final ReferenceObservation o = c.request().observation(model.name());
                observations.put(model.name(), new ReferenceObservation(o.tpotMs(), o.ttftMs(), o.inflight() + 2));
            }
            return new ReferenceCase(
                d.withCeilings(d.maxTpotMs(), d.maxTtftMs(), d.maxCostPer1M(), 1),
                new ReferenceRequest(observations, c.request().excluded()));
        };
    }

    /** @return candidate counts of the extensions' problems: mostly 2-8, often 1, sometimes up to 24. */
    public static Gen<Integer> extendedCandidateCounts()
    {
        return Generate.frequency(List.of(
            Pair.of(2, Generate.constant(1)),
            Pair.of(12, integers().between(2, 8)),
            Pair.of(2, integers().between(9, EXTENDED_MAX_CANDIDATES))));
    }

    /** @return values with many exact ties: small integers, tenths, the unit interval, hundreds. */
    public static Gen<Double> tiedValues()
    {
        return Generate.frequency(List.of(
            Pair.of(3, integers().between(0, 5).map(i -> (double)i)),
            Pair.of(2, integers().between(0, 10).map(i -> i / 10.0)),
            Pair.of(3, doubles().between(0.0, 1.0)),
            Pair.of(2, doubles().between(0.0, 500.0))));
    }

    /**
     * @return the extension keys (quality floor, latency metric, cost mix, lexicographic objective over the seed's
     *     factors, tie band, tie break) in every combination, each absent often enough that its default is covered.
     */
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
                final List<String> priority = priority(in, Factor.SEED_COUNT);
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

    /**
     * @return problems with the extension keys over {@link #plainExtendedCases}; a floor, when on, is now and then set at a
     *     candidate's own quality.
     */
    public static Gen<ReferenceCase> extendedCases()
    {
        final Gen<ReferenceExtensions> extensions = extensions();
        final Gen<ReferenceCase> plain = plainExtendedCases(extendedCandidateCounts());
        final Gen<Integer> percent = integers().between(0, 99);
        return in ->
        {
            final ReferenceCase c = plain.generate(in);
            ReferenceExtensions e = extensions.generate(in);
            if (e.minQuality() > 0.0 && percent.generate(in) < 30)
            {
                final Double own = c.decision().candidates()
                    .get(integers().between(0, c.candidateCount() - 1).generate(in)).quality();
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
     * @return problems in normal ranges with many exact ties and every key beyond the seed's absent, models with
     *     completion prices, ceilings now and then, and requests that carry token counts now and then.
     */
    public static Gen<ReferenceCase> plainExtendedCases(final Gen<Integer> counts)
    {
        final Gen<Double> values = tiedValues();
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
            final double[] w = new double[Factor.SEED_COUNT];
            for (int f = 0; f < Factor.SEED_COUNT; f++)
            {
                w[f] = percent.generate(in) < 25 ? 0.0 : integers().between(1, 10).generate(in);
            }
            final ReferenceDecision decision = new ReferenceDecision("decision", models, w[0], w[1], w[2], w[3],
                halfOfLargest(in, percent, observations, true), halfOfLargest(in, percent, observations, false),
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
            return new ReferenceCase(decision, request);
        };
    }

    /**
     * @return problems with the load signals over the seed's problems ({@link #cases()}): per candidate its in-flight
     *     tokens (0, a count shared by all, a multiple of its in-flight requests, or a size from a few tokens to
     *     hundreds of thousands), {@code load_metric: tokens} or {@code requests}, {@code max_inflight_tokens} set to a
     *     value some candidates exceed, or off; per candidate a queue (a small count, the same for all, or missing) and
     *     a KV-cache use (0..1, shared or missing), stale candidates (only among those with neither signal, as the
     *     engine publishes them), queue and KV-cache weights (0, a generated weight, or negative), and the two
     *     ceilings set to a value some candidates exceed, or off.
     */
    public static Gen<ReferenceCase> loadSignalCases()
    {
        final Gen<ReferenceCase> bases = cases();
        final Gen<Double> weights = weights();
        return in -> withLoadSignals(in, bases.generate(in), weights);
    }

    /**
     * Every key at once: the problems of {@link #extendedCases()} with the load signals of {@link #loadSignalCases()}, a
     * lexicographic priority now and then over every factor of the table, {@code pick: p2c} now and then where the
     * configuration allows it (weighted, no tie band, {@code tie_break: first}), a generator seed per request, and in
     * one problem of three ejected candidates (whole milliseconds left, 0 for a probe out, ties among them) often more
     * than the ejection cap lets drop.
     *
     * @return problems with every key.
     */
    public static Gen<ReferenceCase> everyKey()
    {
        final Gen<ReferenceCase> bases = extendedCases();
        final Gen<Double> weights = weights();
        final Gen<Integer> percent = integers().between(0, 99);
        final Gen<Long> seeds = longs().all();
        return in ->
        {
            ReferenceCase c = withLoadSignals(in, bases.generate(in), weights);
            ReferenceExtensions e = c.decision().extensions();
            if (e.lexicographic() && percent.generate(in) < 50)
            {
                e = e.withLexicographic(e.tolerance(), priority(in, Factor.COUNT));
            }
            else if (!e.lexicographic() && e.tieBand() == 0.0 && "first".equals(e.tieBreak()) &&
                percent.generate(in) < 50)
            {
                e = e.withPick("p2c");
            }
            c = c.with(e);
            ReferenceRequest request = c.request().withSeed(seeds.generate(in));
            if (percent.generate(in) < 33)
            {
                final int ejectedPercent = percent.generate(in) < 50 ? 20 : 60;
                for (final ReferenceModel model : c.decision().candidates())
                {
                    if (percent.generate(in) < ejectedPercent)
                    {
                        final int kind = percent.generate(in);
                        final double millisLeft = kind < 10 ? 0.0 : kind < 40 ? 1_000.0 : integers().between(1, 30_000)
                            .generate(in);
                        request = request.withObservation(model.name(),
                            request.observation(model.name()).withEjection(millisLeft));
                    }
                }
            }
            c = c.with(request);
            // Drawn last, so that the draws of the keys above stay those of the problems before the prefix factor.
            final ReferenceCase p = percent.generate(in) < 40 ? c : withPrefix(in, c, weights);
            return percent.generate(in) < 50 ? withEligibility(in, p) : p;
        };
    }

    /**
     * The prefix factor over {@link #extendedCases()}: every problem has cached shares and cached prices (see
     * {@link #everyKey()} for them among every other key), and a lexicographic problem puts {@code prefix} in its
     * priority half the time.
     *
     * @return problems that weigh, rank by or price with the request's cached prompt shares.
     */
    public static Gen<ReferenceCase> prefixCases()
    {
        final Gen<ReferenceCase> bases = extendedCases();
        final Gen<Double> weights = weights();
        final Gen<Integer> percent = integers().between(0, 99);
        return in ->
        {
            final ReferenceCase c = withPrefix(in, bases.generate(in), weights);
            final ReferenceExtensions e = c.decision().extensions();
            if (e.lexicographic() && percent.generate(in) < 50)
            {
                final List<String> priority = new ArrayList<>(e.priority());
                priority.remove(Factor.label(Factor.PREFIX));
                priority.add(integers().between(0, priority.size()).generate(in), Factor.label(Factor.PREFIX));
                return c.with(e.withLexicographic(e.tolerance(), List.copyOf(priority)));
            }
            return c;
        };
    }

    /**
     * Adds the prefix factor to a problem: per candidate the request's cached share P(m) (missing for about one in four,
     * the same for all now and then, often exactly 0, 1/2 or 1), a weight for {@code prefix} (0, negative, or a
     * generated weight), and for about half of the priced models a {@code cached_prompt_per_1m} (often below the prompt
     * price, sometimes above it or 0).
     */
    private static ReferenceCase withPrefix(
        final RandomnessSource in, final ReferenceCase base, final Gen<Double> weights)
    {
        final Gen<Integer> percent = integers().between(0, 99);
        final Gen<Double> shares = Generate.frequency(List.of(
            Pair.of(1, Generate.constant(0.0)),
            Pair.of(1, Generate.constant(0.5)),
            Pair.of(1, Generate.constant(1.0)),
            Pair.of(3, doubles().between(0.0, 1.0))));
        final boolean shared = percent.generate(in) < 15;
        final double sharedShare = shares.generate(in);
        final int missingPercent = percent.generate(in) < 10 ? 100 : 25;
        final List<ReferenceModel> models = new ArrayList<>();
        ReferenceRequest request = base.request();
        for (final ReferenceModel model : base.decision().candidates())
        {
            if (percent.generate(in) >= missingPercent)
            {
                request = request.withObservation(model.name(),
                    request.observation(model.name()).withPrefix(shared ? sharedShare : shares.generate(in)));
            }
            final int priceMode = percent.generate(in);
            final Double prompt = model.promptPer1M();
            final Double cached = priceMode < 50 ? null : priceMode < 80 && prompt != null ? prompt / 10 :
                priceMode < 90 ? 0.0 : tiedValues().generate(in);
            models.add(model.withCachedPromptPer1M(cached));
        }
        final int weightMode = percent.generate(in);
        final double prefixWeight = weightMode < 20 ? 0.0 : weightMode < 25 ? -1.0 : weights.generate(in);
        final ReferenceDecision d = base.decision().withCandidates(models).withWeight(Factor.PREFIX, prefixWeight);
        return new ReferenceCase(d, request);
    }

    /**
     * @return the problems of {@link #everyKey()}, each with eligibility and admission keys: context windows,
     *     capabilities, the request's needs, prompt tokens, its own latency ceilings and priority, admission and the
     *     {@code shed} policy.
     */
    public static Gen<ReferenceCase> eligibilityCases()
    {
        final Gen<ReferenceCase> bases = everyKey();
        return in -> withEligibility(in, bases.generate(in));
    }

    /**
     * Adds eligibility and admission keys to a problem: about half the models get a context window (some below the
     * request's tokens), some a capability list (some empty), the request needs some capabilities, sometimes has its
     * own TTFT or TPOT ceiling and is sheddable under an admission share; sometimes the policy is {@code shed}.
     */
    static ReferenceCase withEligibility(final RandomnessSource in, final ReferenceCase c)
    {
        final Gen<Integer> percent = integers().between(0, 99);
        final Gen<Long> windows = longs().between(1, 20_000);
        final Map<String, Long> contextWindows = new HashMap<>();
        final Map<String, Integer> capabilities = new HashMap<>();
        for (final ReferenceModel model : c.decision().candidates())
        {
            if (percent.generate(in) < 40)
            {
                contextWindows.put(model.name(), windows.generate(in));
            }
            if (percent.generate(in) < 40)
            {
                capabilities.put(model.name(), integers().between(0, 7).generate(in));
            }
        }
        final long defaultOutputTokens = percent.generate(in) < 50 ? 512L : longs().between(0, 4_000).generate(in);
        final int needs = percent.generate(in) < 50 ? 0 : integers().between(1, 7).generate(in);
        final double ttft = percent.generate(in) < 70 ? 0.0 : doubles().between(1.0, 2_000.0).generate(in);
        final double tpot = percent.generate(in) < 70 ? 0.0 : doubles().between(1.0, 300.0).generate(in);
        final boolean sheddable = percent.generate(in) < 50;
        final double share = percent.generate(in) < 40 ? 0.0 : doubles().between(0.01, 1.0).generate(in);
        ReferenceCase out = c.with(new ReferenceEligibility(contextWindows, capabilities, defaultOutputTokens, share,
            needs, ttft, tpot, sheddable));
        if (percent.generate(in) < 50)
        {
            out = out.with(out.request().withTokens(longs().between(0, 16_000).generate(in),
                percent.generate(in) < 50 ? null : longs().between(1, 4_000).generate(in)));
        }
        if (percent.generate(in) < 25)
        {
            out = out.with(out.decision().withPolicy(ReferenceDecision.SHED));
        }
        return out;
    }

    /** Adds the load signals of {@link #loadSignalCases()} to a problem. */
    private static ReferenceCase withLoadSignals(
        final RandomnessSource in, final ReferenceCase base, final Gen<Double> weights)
    {
        final Gen<Integer> percent = integers().between(0, 99);
        final Gen<Integer> queues = integers().between(0, 40);
        final Gen<Double> fractions = doubles().between(0.0, 1.0);
        final Map<String, Double> queue = new HashMap<>();
        final Map<String, Double> kv = new HashMap<>();
        final Set<String> stale = new HashSet<>();
        final boolean queueShared = percent.generate(in) < 15;
        final boolean kvShared = percent.generate(in) < 15;
        final double sharedQueue = queues.generate(in);
        final double sharedKv = fractions.generate(in);
        final int missingPercent = percent.generate(in) < 10 ? 100 : 25;
        final List<String> names = new ArrayList<>();
        for (final ReferenceModel model : base.decision().candidates())
        {
            names.add(model.name());
            if (percent.generate(in) >= missingPercent)
            {
                queue.put(model.name(), queueShared ? sharedQueue : (double)queues.generate(in));
            }
            if (percent.generate(in) >= missingPercent)
            {
                kv.put(model.name(), kvShared ? sharedKv : fractions.generate(in));
            }
            if (!queue.containsKey(model.name()) && !kv.containsKey(model.name()) && percent.generate(in) < 50)
            {
                stale.add(model.name());
            }
        }
        final int weightMode = percent.generate(in);
        final double queueWeight = weightMode < 20 ? 0.0 : weightMode < 25 ? -1.0 : weights.generate(in);
        final double kvWeight = percent.generate(in) < 20 ? 0.0 : weights.generate(in);
        long maxQueue = 0L;
        if (percent.generate(in) < 40 && !queue.isEmpty())
        {
            maxQueue = Math.max(1L, queue.get(pick(in, percent, names, queue)).longValue());
        }
        double maxKv = 0.0;
        if (percent.generate(in) < 30 && !kv.isEmpty())
        {
            maxKv = Math.max(0.01, kv.get(pick(in, percent, names, kv)));
        }
        final boolean saturated = percent.generate(in) < 50;
        final long[] tokens = tokens(in, percent, base);
        final boolean tokenLoad = percent.generate(in) < 50;
        long maxTokens = 0L;
        if (percent.generate(in) < 40)
        {
            maxTokens = Math.max(1L, tokens[percent.generate(in) % names.size()]);
        }
        ReferenceRequest request = base.request();
        for (int i = 0; i < names.size(); i++)
        {
            final String name = names.get(i);
            request = request.withObservation(name, request.observation(name).withInflightTokens(tokens[i])
                .withServerLoad(queue.get(name), kv.get(name), stale.contains(name)));
        }
        final ReferenceDecision d = base.decision()
            .withWeight(Factor.QUEUE, queueWeight)
            .withWeight(Factor.KV_CACHE, kvWeight);
        final ReferenceExtensions e = d.extensions().withTokenLoad(tokenLoad, maxTokens)
            .withServerCeilings(maxQueue, maxKv, saturated);
        return new ReferenceCase(d.withExtensions(e), request);
    }

    /**
     * @return every candidate's in-flight tokens, in candidate order: all 0 now and then, else per candidate a count
     *     shared by all, a multiple of its in-flight requests, 0, or a size up to 400,000.
     */
    private static long[] tokens(final RandomnessSource in, final Gen<Integer> percent, final ReferenceCase base)
    {
        final int mode = percent.generate(in);
        final long shared = TOKENS.generate(in);
        final long perRequest = 1 + percent.generate(in) * 100L;
        final List<ReferenceModel> models = base.decision().candidates();
        final long[] tokens = new long[models.size()];
        for (int i = 0; i < tokens.length; i++)
        {
            final ReferenceObservation observation = base.request().observation(models.get(i).name());
            final int kind = percent.generate(in);
            if (mode < 10)
            {
                tokens[i] = 0L;
            }
            else if (kind < 15)
            {
                tokens[i] = shared;
            }
            else if (kind < 35)
            {
                // Saturating: a count of many requests times many tokens still fits a long.
                tokens[i] = Math.min(observation.inflight(), Long.MAX_VALUE / perRequest) * perRequest;
            }
            else if (kind < 45)
            {
                tokens[i] = 0L;
            }
            else
            {
                tokens[i] = TOKENS.generate(in);
            }
        }
        return tokens;
    }

    private static String pick(final RandomnessSource in, final Gen<Integer> percent,
        final List<String> names, final Map<String, Double> present)
    {
        final List<String> have = new ArrayList<>();
        for (final String name : names)
        {
            if (present.containsKey(name))
            {
                have.add(name);
            }
        }
        return have.get(percent.generate(in) % have.size());
    }

    /** @return a non-empty list of distinct labels of the first {@code factors} factors, in random order. */
    private static List<String> priority(final RandomnessSource in, final int factors)
    {
        final List<String> shuffled = new ArrayList<>();
        for (int f = 0; f < factors; f++)
        {
            shuffled.add(Factor.label(f));
        }
        for (int i = shuffled.size() - 1; i > 0; i--)
        {
            Collections.swap(shuffled, i, integers().between(0, i).generate(in));
        }
        return List.copyOf(shuffled.subList(0, integers().between(1, factors).generate(in)));
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

    /** Off four times in five, else half the largest TPOT (or TTFT) observed, 0 when none is. */
    private static double halfOfLargest(
        final RandomnessSource in,
        final Gen<Integer> percent,
        final Map<String, ReferenceObservation> observations,
        final boolean tpot)
    {
        if (percent.generate(in) >= 20)
        {
            return 0.0;
        }
        double largest = 0.0;
        for (final ReferenceObservation o : observations.values())
        {
            final Double value = tpot ? o.tpotMs() : o.ttftMs();
            largest = value == null ? largest : Math.max(largest, value);
        }
        return largest > 0.0 ? largest / 2 : 0.0;
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
