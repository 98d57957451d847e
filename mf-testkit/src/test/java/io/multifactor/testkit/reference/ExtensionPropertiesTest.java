package io.multifactor.testkit.reference;

import io.multifactor.api.DropReason;
import io.multifactor.api.Factor;
import io.multifactor.api.Outcome;
import io.multifactor.testkit.generators.ScoringGenerators;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.doubles;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

/**
 * Properties of the extensions of section 4.2, each over {@link #CASES} generated problems
 * ({@link ScoringGenerators#extendedCases()}), checked on the kernel and on the oracle ({@link ReferenceScorer}), and the
 * two against each other. A fixed seed makes every run the same (override with {@code -Dmf.properties.seed=N}); the case
 * count of each property is printed.
 */
class ExtensionPropertiesTest
{
    /** The issue asks for at least this many generated cases per property. */
    static final int CASES = 10_000;

    /** Scores of two implementations agree within this, relative to the larger of 1 and the values. */
    static final double TOLERANCE = 1e-9;

    private static final long SEED = Long.getLong("mf.properties.seed", 20261130L);
    private static final Map<String, AtomicLong> COUNTS = new java.util.concurrent.ConcurrentSkipListMap<>();

    @AfterAll
    static void reportCounts()
    {
        COUNTS.forEach((property, count) ->
            System.out.println("ExtensionPropertiesTest: " + property + ": " + count.get() + " generated cases (seed " +
                SEED + ')'));
    }

    private static <T> void check(final String property, final Gen<T> gen, final Consumer<T> body)
    {
        final AtomicLong ran = COUNTS.computeIfAbsent(property, p -> new AtomicLong());
        qt().withFixedSeed(SEED).withExamples(CASES).withShrinkCycles(200).forAll(gen).checkAssert(value ->
        {
            ran.incrementAndGet();
            body.accept(value);
        });
        assertThat(ran.get()).as("cases run for " + property).isGreaterThanOrEqualTo(CASES);
    }

    private static ReferenceResult kernel(final ReferenceCase c, final long seed)
    {
        return KernelAdapter.select(c.with(c.request().withSeed(seed)));
    }

    private static ReferenceRanking reference(final ReferenceCase c, final long seed)
    {
        return ReferenceScorer.rank(c.with(c.request().withSeed(seed)));
    }

    private static ReferenceExtensions keys(final ReferenceCase c)
    {
        return c.decision().extensions();
    }

    private static boolean close(final Double a, final Double b)
    {
        if (a == null || b == null)
        {
            return a == null && b == null;
        }
        return Math.abs(a - b) <= TOLERANCE * Math.max(1.0, Math.max(Math.abs(a), Math.abs(b)));
    }

    @Test
    void shouldReproduceThePlainSelectionWhenEveryKeyIsAbsent()
    {
        final Gen<ReferenceCase> plain = ScoringGenerators.plainExtendedCases(ScoringGenerators.extendedCandidateCounts())
            .map(c -> c.with(c.request().withTokens(null, null)));
        check("keys absent == 4.1", plain, c ->
        {
            // The kernel through a Request without tokens is the kernel of 4.1, bit for bit.
            final ReferenceResult plainKernel = KernelAdapter.selectWithoutRequest(c);
            assertThat(kernel(c, 1L)).isEqualTo(plainKernel);
            // The kernel of 4.1 agrees with the oracle with every key absent, to rounding.
            final ReferenceResult oracle = reference(c, 1L).result();
            assertAgree(plainKernel, oracle, Double.POSITIVE_INFINITY);
        });
    }

    @Test
    void shouldNeverAdmitACandidateBelowTheQualityFloor()
    {
        final Gen<ReferenceCase> floored = ScoringGenerators.extendedCases().zip(doubles().between(1e-6, 1.0), (c, q) ->
            keys(c).minQuality() > 0.0 ? c : c.with(keys(c).withMinQuality(q)));
        check("floor never admits below it", floored, c ->
        {
            final double floor = keys(c).minQuality();
            for (final ReferenceResult r : List.of(kernel(c, 7L), reference(c, 7L).result()))
            {
                for (final ReferenceCandidate candidate : r.candidates())
                {
                    final boolean below = candidate.quality() == null || candidate.quality() < floor;
                    if (candidate.dropReason() == DropReason.NONE)
                    {
                        assertThat(below).as(candidate.model() + " survived below the floor " + floor).isFalse();
                    }
                    if (below && candidate.dropReason() != DropReason.EXCLUDED)
                    {
                        assertThat(candidate.dropReason()).as("reason of " + candidate.model())
                            .isEqualTo(DropReason.QUALITY);
                    }
                }
            }
        });
    }

    @Test
    void shouldRankByThePriorityTupleWhenToleranceIsZero()
    {
        final Gen<ReferenceCase> lexicographic = ScoringGenerators.extendedCases()
            .zip(longs().all(), (c, s) -> c.with(keys(c).withLexicographic(0.0, priority(s))));
        check("lexicographic tolerance 0 == sort by priority tuple", lexicographic, c ->
        {
            final List<String> priority = keys(c).priority();
            for (final ReferenceResult r : List.of(kernel(c, 11L), reference(c, 11L).result()))
            {
                if (r.outcome() != Outcome.SCORED)
                {
                    continue;
                }
                final List<ReferenceCandidate> survivors = new ArrayList<>();
                for (final ReferenceCandidate candidate : r.candidates())
                {
                    if (candidate.survived())
                    {
                        survivors.add(candidate);
                    }
                }
                Comparator<ReferenceCandidate> byTuple = null;
                for (final String factor : priority)
                {
                    final Comparator<ReferenceCandidate> next =
                        Comparator.comparing((Function<ReferenceCandidate, Double>)x -> x.normalized().get(factor))
                            .reversed();
                    byTuple = byTuple == null ? next : byTuple.thenComparing(next);
                }
                final List<ReferenceCandidate> sorted = new ArrayList<>(survivors);
                sorted.sort(byTuple); // stable: equal tuples keep modelRefs order
                final ReferenceCandidate top = sorted.get(0);
                final Set<String> finalists = new HashSet<>();
                for (final ReferenceCandidate candidate : sorted)
                {
                    if (byTuple.compare(candidate, top) == 0)
                    {
                        finalists.add(candidate.model());
                    }
                    assertThat(candidate.eliminatedBy() == null)
                        .as("finalist flag of " + candidate.model()).isEqualTo(byTuple.compare(candidate, top) == 0);
                }
                if ("first".equals(keys(c).tieBreak()))
                {
                    assertThat(r.selectedModel()).isEqualTo(top.model());
                }
                assertThat(finalists).contains(r.selectedModel());
            }
        });
    }

    @Test
    void shouldNeverLoseAFinalistOfASingleFactorPriorityWhenToleranceRises()
    {
        final Gen<ReferenceCase> lexicographic = ScoringGenerators.extendedCases().zip(integers().between(0, 3),
            doubles().between(0.0, 1.0), doubles().between(0.0, 1.0), (c, f, t1, t2) -> c.with(keys(c)
                .withLexicographic(Math.min(t1, t2), List.of(Factor.label(f)))));
        check("raising tolerance never removes a finalist (one factor)", lexicographic, c ->
        {
            final double lower = keys(c).tolerance();
            final double higher = Math.min(1.0, lower + 0.25);
            final ReferenceCase raised = c.with(keys(c).withLexicographic(higher, keys(c).priority()));
            assertThat(finalists(kernel(raised, 3L))).containsAll(finalists(kernel(c, 3L)));
            assertThat(finalists(reference(raised, 3L).result())).containsAll(finalists(reference(c, 3L).result()));
        });
    }

    @Test
    void shouldNeverLoseACandidateKeptByTheFirstPriorityFactorWhenToleranceRises()
    {
        final Gen<ReferenceCase> lexicographic = ScoringGenerators.extendedCases().zip(longs().all(),
            doubles().between(0.0, 1.0), (c, s, t) -> c.with(keys(c).withLexicographic(t, priority(s))));
        check("raising tolerance never removes a candidate kept by the first factor", lexicographic, c ->
        {
            final double higher = Math.min(1.0, keys(c).tolerance() + 0.25);
            final ReferenceCase raised = c.with(keys(c).withLexicographic(higher, keys(c).priority()));
            final String first = keys(c).priority().get(0);
            assertThat(keptBy(kernel(raised, 3L), first)).containsAll(keptBy(kernel(c, 3L), first));
        });
    }

    @Test
    void shouldDrawTheRandomTieBreakOnlyAmongTiedCandidates()
    {
        final Gen<ReferenceCase> random = ScoringGenerators.extendedCases().map(c -> c.with(keys(c).withTies(
            keys(c).tieBand(), "random")));
        check("random tie-break picks only tied candidates", random.zip(longs().all(), (c, s) -> new Object[] { c, s }),
            pair ->
            {
                final ReferenceCase c = (ReferenceCase)pair[0];
                final long seed = (Long)pair[1];
                final ReferenceResult k = kernel(c, seed);
                if (k.outcome() != Outcome.SCORED)
                {
                    return;
                }
                // Tied by the kernel's own numbers: finalists, or scores within the band of the best.
                final Set<String> tied = new HashSet<>();
                double best = Double.NEGATIVE_INFINITY;
                for (final ReferenceCandidate candidate : k.candidates())
                {
                    if (candidate.survived())
                    {
                        best = Math.max(best, candidate.score());
                    }
                }
                for (final ReferenceCandidate candidate : k.candidates())
                {
                    final boolean isTied = keys(c).lexicographic() ?
                        candidate.survived() && candidate.eliminatedBy() == null :
                        candidate.survived() && candidate.score() >= best - keys(c).tieBand();
                    if (isTied)
                    {
                        tied.add(candidate.model());
                    }
                }
                assertThat(tied).contains(k.selectedModel());
                final ReferenceRanking r = reference(c, seed);
                if (r.boundaryMargin() > TOLERANCE)
                {
                    final Set<String> referenceTied = new HashSet<>();
                    r.result().candidates().stream().filter(ReferenceCandidate::tied)
                        .forEach(x -> referenceTied.add(x.model()));
                    assertThat(referenceTied).contains(k.selectedModel());
                }
            });
    }

    @Test
    void shouldPriceByThePromptAloneWithTheDefaultMix()
    {
        check("cost mix {1, 0} == prompt price", ScoringGenerators.extendedCases(), c ->
        {
            final ReferenceCase promptOnly = c.with(keys(c).withCostMix(1.0, 0.0))
                .with(c.request().withTokens(null, null));
            final ReferenceResult k = kernel(promptOnly, 5L);
            final ReferenceResult r = reference(promptOnly, 5L).result();
            for (int i = 0; i < c.decision().candidates().size(); i++)
            {
                final Double prompt = c.decision().candidates().get(i).promptPer1M();
                assertThat(k.candidates().get(i).costPer1M()).isEqualTo(prompt);
                assertThat(r.candidates().get(i).costPer1M()).isEqualTo(prompt);
            }
            final ReferenceCase withoutMix = promptOnly.with(keys(promptOnly).withCostMix(1.0, 0.0));
            assertThat(kernel(withoutMix, 5L)).isEqualTo(k);
        });
    }

    @Test
    void shouldLetRequestTokensOverrideTheMix()
    {
        final Gen<ReferenceCase> withTokens = ScoringGenerators.extendedCases().zip(longs().between(0, 10_000),
            longs().between(0, 10_000), (c, p, m) -> c.with(c.request().withTokens(p, p + m == 0 ? 1L : m)));
        check("request tokens override the mix", withTokens, c ->
        {
            final long p = c.request().promptTokens();
            final long m = c.request().maxOutputTokens();
            final ReferenceCase asMix = c.with(keys(c).withCostMix(p, m)).with(c.request().withTokens(null, null));
            final ReferenceResult byTokens = kernel(c, 9L);
            final ReferenceResult byMix = kernel(asMix, 9L);
            assertThat(byTokens.selectedModel()).isEqualTo(byMix.selectedModel());
            for (int i = 0; i < byTokens.candidates().size(); i++)
            {
                assertThat(close(byTokens.candidates().get(i).costPer1M(), byMix.candidates().get(i).costPer1M()))
                    .as("cost of " + byTokens.candidates().get(i).model()).isTrue();
            }
            assertThat(reference(c, 9L).result()).isEqualTo(reference(asMix, 9L).result());
        });
    }

    @Test
    void shouldAgreeWithThePlainReference()
    {
        check("kernel agrees with the plain reference", ScoringGenerators.extendedCases().zip(longs().all(),
            (c, s) -> new Object[] { c, s }), pair ->
        {
            final ReferenceCase c = (ReferenceCase)pair[0];
            final long seed = (Long)pair[1];
            final ReferenceRanking expected = reference(c, seed);
            final ReferenceResult actual = kernel(c, seed);
            assertAgree(actual, expected.result(), expected.boundaryMargin());
            if (expected.boundaryMargin() > TOLERANCE && actual.outcome() == Outcome.SCORED)
            {
                for (int i = 0; i < actual.candidates().size(); i++)
                {
                    assertThat(actual.candidates().get(i).eliminatedBy()).as("eliminated_by of m" + i)
                        .isEqualTo(expected.result().candidates().get(i).eliminatedBy());
                }
                final ReferenceCandidate chosen = expected.result().candidate(actual.selectedModel());
                assertThat(chosen.tied()).as("kernel's choice is tied in the reference").isTrue();
            }
        });
    }

    @Test
    void shouldAgreeWithTheOracleWithEveryKeyAtOnce()
    {
        // The keys of 4.2 with the load signals of 4.3 and 4.4 (token load, queue and KV-cache factors and ceilings,
        // stale), a priority over every factor of the table and pick: p2c: one oracle for all of them.
        final long[] seen = new long[6];
        check("kernel agrees with the oracle, every key at once", ScoringGenerators.everyKey(), c ->
        {
            final ReferenceRanking expected = ReferenceScorer.rank(c);
            final ReferenceResult actual = KernelAdapter.select(c);
            assertAgree(actual, expected.result(), expected.boundaryMargin());
            final ReferenceExtensions keys = keys(c);
            if (expected.boundaryMargin() > TOLERANCE && actual.outcome() == Outcome.SCORED)
            {
                for (int i = 0; i < actual.candidates().size(); i++)
                {
                    final ReferenceCandidate e = expected.result().candidates().get(i);
                    final ReferenceCandidate a = actual.candidates().get(i);
                    assertThat(a.eliminatedBy()).as("eliminated_by of m" + i).isEqualTo(e.eliminatedBy());
                    for (final Map.Entry<String, Double> factor : e.normalized().entrySet())
                    {
                        final Double value = a.normalized().get(factor.getKey());
                        assertThat(close(value, factor.getValue()))
                            .as(factor.getKey() + " of m" + i + ": " + value + " vs " + factor.getValue()).isTrue();
                    }
                }
                final ReferenceCandidate chosen = expected.result().candidate(actual.selectedModel());
                assertThat(chosen.tied()).as("kernel's choice can win in the oracle").isTrue();
            }
            seen[0] += keys.p2c() && actual.outcome() == Outcome.SCORED ? 1 : 0;
            seen[1] += keys.lexicographic() && Factor.parse(keys.priority().get(0)) >= Factor.SEED_COUNT ? 1 : 0;
            seen[2] += keys.tokenLoad() && actual.outcome() == Outcome.SCORED ? 1 : 0;
            for (final ReferenceCandidate candidate : expected.result().candidates())
            {
                seen[3] += candidate.dropReason() >= DropReason.INFLIGHT_TOKENS ? 1 : 0;
                seen[4] += candidate.dropReason() == DropReason.EJECTED ? 1 : 0;
                final ReferenceObservation o = c.request().observation(candidate.model());
                seen[5] += o.ejectedMs() != null && candidate.dropReason() != DropReason.EJECTED &&
                    candidate.dropReason() != DropReason.EXCLUDED ? 1 : 0;
            }
        });
        System.out.println("ExtensionPropertiesTest: every key at once: " + seen[0] + " scored with p2c, " + seen[1] +
            " ranked first by queue or kv_cache, " + seen[2] + " scored with token load, " + seen[3] +
            " candidates dropped by inflight_tokens, queue, kv_cache or stale, " + seen[4] + " by ejection, " + seen[5] +
            " ejected ones kept by the ejection cap");
        assertThat(seen).doesNotContain(0L);
    }

    /** Outcome, drops, costs and scores agree; the choice agrees unless it is a tie within rounding. */
    static void assertAgree(final ReferenceResult actual, final ReferenceResult expected, final double margin)
    {
        assertThat(actual.outcome()).isEqualTo(expected.outcome());
        for (int i = 0; i < expected.candidates().size(); i++)
        {
            final ReferenceCandidate e = expected.candidates().get(i);
            final ReferenceCandidate a = actual.candidates().get(i);
            assertThat(a.dropReason()).as("drop of " + e.model()).isEqualTo(e.dropReason());
            assertThat(close(a.costPer1M(), e.costPer1M())).as("cost of " + e.model() + ": " + a.costPer1M() + " vs " +
                e.costPer1M()).isTrue();
            assertThat(close(a.score(), e.score())).as("score of " + e.model() + ": " + a.score() + " vs " + e.score())
                .isTrue();
        }
        if (actual.selectedIndex() == expected.selectedIndex() || expected.selectedIndex() < 0 ||
            actual.selectedIndex() < 0 || margin <= TOLERANCE)
        {
            assertThat(actual.selectedIndex() < 0).isEqualTo(expected.selectedIndex() < 0);
            return;
        }
        // Two different choices are acceptable only between candidates that tie within rounding.
        final ReferenceCandidate a = expected.candidates().get(actual.selectedIndex());
        final ReferenceCandidate e = expected.candidates().get(expected.selectedIndex());
        if (expected.outcome() == Outcome.FALLBACK_CHEAPEST)
        {
            assertThat(close(a.costPer1M(), e.costPer1M())).as("cheapest " + a.model() + " vs " + e.model()).isTrue();
        }
        else
        {
            assertThat(e.tied() || close(a.score(), e.score())).as("choice " + a.model() + " vs " + e.model()).isTrue();
            assertThat(a.tied() || close(a.score(), e.score())).as("choice " + a.model() + " vs " + e.model()).isTrue();
        }
    }

    private static Set<String> finalists(final ReferenceResult r)
    {
        final Set<String> finalists = new HashSet<>();
        for (final ReferenceCandidate candidate : r.candidates())
        {
            if (candidate.survived() && candidate.eliminatedBy() == null)
            {
                finalists.add(candidate.model());
            }
        }
        return finalists;
    }

    private static Set<String> keptBy(final ReferenceResult r, final String firstFactor)
    {
        final Set<String> kept = new HashSet<>();
        for (final ReferenceCandidate candidate : r.candidates())
        {
            if (candidate.survived() && !firstFactor.equals(candidate.eliminatedBy()))
            {
                kept.add(candidate.model());
            }
        }
        return kept;
    }

    private static List<String> priority(final long seed)
    {
        final List<String> factors = new ArrayList<>();
        for (int f = 0; f < Factor.SEED_COUNT; f++)
        {
            factors.add(Factor.label(f));
        }
        java.util.Collections.shuffle(factors, new Random(seed));
        return List.copyOf(factors.subList(0, 1 + (int)Math.floorMod(seed, 4L)));
    }
}
