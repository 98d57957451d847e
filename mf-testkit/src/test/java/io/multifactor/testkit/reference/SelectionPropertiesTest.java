package io.multifactor.testkit.reference;

import io.multifactor.api.DropReason;
import io.multifactor.api.Factor;
import io.multifactor.api.Outcome;
import io.multifactor.testkit.generators.ScoringGenerators;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.quicktheories.generators.SourceDSL.doubles;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

/**
 * Properties of a selection, checked on generated problems ({@link ScoringGenerators}) against the kernel, with the
 * reference implementation as the oracle. Every property runs a fixed number of cases with a fixed seed (override with
 * {@code -Dmf.properties.seed=N}); the total is printed and must reach {@link #MIN_TOTAL_CASES}.
 */
class SelectionPropertiesTest
{
    /** The issue asks for at least this many generated cases per {@code mvn verify}. */
    static final int MIN_TOTAL_CASES = 10_000;

    static final int AGREEMENT_CASES = 4_000;
    static final int CASES_PER_PROPERTY = 1_000;
    static final int PROPERTIES = 12;

    /** Score tolerance of the agreement contract. */
    static final double SCORE_TOLERANCE = ScoreTolerance.TOLERANCE;

    /** Two priced, observed candidates whose scores differ (0.75 against 0.25). */
    private static final ReferenceCase TWO = new ReferenceCase(
        new ReferenceDecision("two", List.of(new ReferenceModel("a", 0.9, 1.0), new ReferenceModel("b", 0.1, 3.0)),
            0.5, 0.0, 0.5, 0.0, 0.0, 0.0, 0.0, 0L, 95, ReferenceDecision.CHEAPEST),
        new ReferenceRequest(Map.of(), java.util.Set.of()));

    private static final long SEED = Long.getLong("mf.properties.seed", 20261129L);
    private static final AtomicLong TOTAL_CASES = new AtomicLong();
    private static final AtomicInteger PROPERTIES_RUN = new AtomicInteger();

    @AfterAll
    static void reportTotal()
    {
        System.out.println("SelectionPropertiesTest: " + TOTAL_CASES.get() + " generated cases over " +
            PROPERTIES_RUN.get() + " properties (seed " + SEED + ")");
        if (PROPERTIES_RUN.get() == PROPERTIES)
        {
            assertThat(TOTAL_CASES.get()).isGreaterThanOrEqualTo(MIN_TOTAL_CASES);
        }
    }

    private static <T> void check(final String property, final int cases, final Gen<T> gen, final Consumer<T> body)
    {
        TOTAL_CASES.addAndGet(CountedProperty.check(SEED, property, cases, gen, body));
        PROPERTIES_RUN.incrementAndGet();
    }

    private static ReferenceResult withFirstScore(final ReferenceResult r, final double score)
    {
        final List<ReferenceCandidate> candidates = new ArrayList<>(r.candidates());
        final ReferenceCandidate c = candidates.get(0);
        candidates.set(0, new ReferenceCandidate(c.model(), c.dropReason(), c.quality(), c.tpotMs(), c.ttftMs(),
            c.costPer1M(), c.inflight(), c.normalized(), score));
        return new ReferenceResult(r.decision(), r.outcome(), r.selectedIndex(), r.selectedModel(), r.weights(), candidates);
    }

    private static ReferenceResult kernel(final ReferenceCase c)
    {
        return KernelAdapter.select(c);
    }

    @Test
    void shouldAgreeWithReferenceOnOutcomeChoiceDropsAndScores()
    {
        final AtomicLong nearTies = new AtomicLong();
        check("agreement", AGREEMENT_CASES, ScoringGenerators.cases(), c ->
        {
            final ReferenceResult expected = ReferenceScorer.select(c);
            final ReferenceResult actual = kernel(c);
            ScoreTolerance.assertAgree(actual, expected);
            if (actual.selectedIndex() != expected.selectedIndex())
            {
                nearTies.incrementAndGet();
            }
        });
        System.out.println("SelectionPropertiesTest: " + nearTies.get() + " of " + AGREEMENT_CASES +
            " agreement cases chose the other candidate of a near tie (within " + SCORE_TOLERANCE + ")");
    }

    @Test
    void shouldRefuseAKernelThatIsOffByMoreThanTheTolerance()
    {
        final ReferenceResult reference = ReferenceScorer.select(TWO);
        assertThat(ScoreTolerance.difference(reference, reference)).isNull();
        final ReferenceCandidate first = reference.candidates().get(0);
        final ReferenceResult nudged = withFirstScore(reference, first.score() + 0.5 * SCORE_TOLERANCE);
        assertThat(ScoreTolerance.difference(nudged, reference)).isNull();
        final ReferenceResult off = withFirstScore(reference, first.score() + 3 * SCORE_TOLERANCE);
        assertThat(ScoreTolerance.difference(off, reference)).contains("score");
        final ReferenceResult otherWinner = new ReferenceResult(reference.decision(), reference.outcome(),
            1 - reference.selectedIndex(), reference.candidates().get(1 - reference.selectedIndex()).model(),
            reference.weights(), reference.candidates());
        assertThat(ScoreTolerance.difference(otherWinner, reference)).contains("selected");
    }

    @Test
    void shouldKeepScoresAndNormalizedFactorsWithinZeroAndOne()
    {
        check("unit interval", CASES_PER_PROPERTY, ScoringGenerators.cases(), c ->
        {
            final ReferenceResult r = kernel(c);
            double best = Double.NEGATIVE_INFINITY;
            for (final ReferenceCandidate candidate : r.candidates())
            {
                if (candidate.score() != null)
                {
                    assertThat(candidate.score()).isBetween(0.0, 1.0);
                    assertThat(candidate.normalized().values()).allSatisfy(v -> assertThat(v).isBetween(0.0, 1.0));
                    best = Math.max(best, candidate.score());
                }
            }
            if (r.outcome() == Outcome.SCORED)
            {
                assertThat(r.selectedScore()).isEqualTo(best);
            }
        });
    }

    @Test
    void shouldChooseSameModelWhenCandidatesAreReorderedUnlessScoresTie()
    {
        check("permutation", CASES_PER_PROPERTY, pairs(ScoringGenerators.cases(), longs().all()), p ->
        {
            final ReferenceCase c = p.first();
            final List<ReferenceModel> shuffled = new ArrayList<>(c.decision().candidates());
            Collections.shuffle(shuffled, new Random(p.second()));
            final ReferenceResult original = kernel(c);
            final ReferenceResult reordered = kernel(new ReferenceCase(c.decision().withCandidates(shuffled), c.request()));

            assertThat(reordered.outcome()).isEqualTo(original.outcome());
            for (final ReferenceCandidate before : original.candidates())
            {
                final ReferenceCandidate after = reordered.candidate(before.model());
                assertThat(after.dropReason()).isEqualTo(before.dropReason());
                assertThat(after.score()).isEqualTo(before.score());
                assertThat(after.normalized()).isEqualTo(before.normalized());
            }
            if (original.outcome() == Outcome.SCORED && uniqueBestScore(original))
            {
                assertThat(reordered.selectedModel()).isEqualTo(original.selectedModel());
            }
            if (original.outcome() == Outcome.FALLBACK_CHEAPEST && uniqueLowestPrice(original))
            {
                assertThat(reordered.selectedModel()).isEqualTo(original.selectedModel());
            }
        });
    }

    @Test
    void shouldChangeNothingWhenEveryWeightIsScaledByAPowerOfTwo()
    {
        check("weights x 2^e", CASES_PER_PROPERTY, pairs(ScoringGenerators.cases(), integers().between(-20, 20)), p ->
        {
            final ReferenceCase c = p.first();
            final double k = Math.scalb(1.0, p.second());
            assertThat(kernel(scaled(c, k))).isEqualTo(kernel(c));
        });
    }

    @Test
    void shouldChangeNothingButRoundingWhenEveryWeightIsScaledByAnyPositiveK()
    {
        check("weights x k", CASES_PER_PROPERTY, pairs(ScoringGenerators.cases(), doubles().between(1e-3, 1e3)), p ->
        {
            final ReferenceCase c = p.first();
            final ReferenceResult original = kernel(c);
            final ReferenceResult scaled = kernel(scaled(c, p.second()));
            assertThat(scaled.outcome()).isEqualTo(original.outcome());
            original.weights().forEach((f, w) -> assertThat(scaled.weights().get(f)).isCloseTo(w, within(1e-15)));
            for (int i = 0; i < c.candidateCount(); i++)
            {
                final ReferenceCandidate before = original.candidates().get(i);
                final ReferenceCandidate after = scaled.candidates().get(i);
                assertThat(after.dropReason()).isEqualTo(before.dropReason());
                assertThat(after.normalized()).isEqualTo(before.normalized());
                if (before.score() != null)
                {
                    assertThat(after.score()).isCloseTo(before.score(), within(1e-12));
                }
            }
            // k rounds the weights by an ulp, which can only flip a choice between scores that (nearly) tie.
            if (original.outcome() != Outcome.SCORED || bestMargin(original) > SCORE_TOLERANCE)
            {
                assertThat(scaled.selectedModel()).isEqualTo(original.selectedModel());
            }
        });
    }

    @Test
    void shouldNeverRaiseScoreWhenPriceRises()
    {
        check("price up", CASES_PER_PROPERTY, raises(), r ->
        {
            final ReferenceModel model = r.c().decision().candidates().get(r.index());
            if (model.promptPer1M() == null)
            {
                return;
            }
            final double raised = raise(model.promptPer1M(), r.how(), r.amount());
            final ReferenceCase after = withModel(r.c(), r.index(),
                new ReferenceModel(model.name(), model.quality(), raised));
            assertNotBetter(r, after, DropReason.COST);
        });
    }

    @Test
    void shouldNeverRaiseScoreWhenLatencyRises()
    {
        check("latency up", CASES_PER_PROPERTY, raises(), r ->
        {
            final String name = r.c().decision().candidates().get(r.index()).name();
            final ReferenceObservation o = r.c().request().observation(name);
            final ReferenceObservation raised;
            if (o.tpotMs() != null)
            {
                raised = new ReferenceObservation(raise(o.tpotMs(), r.how(), r.amount()), o.ttftMs(), o.inflight());
            }
            else if (o.ttftMs() != null)
            {
                raised = new ReferenceObservation(null, raise(o.ttftMs(), r.how(), r.amount()), o.inflight());
            }
            else
            {
                return;
            }
            assertNotBetter(r, withObservation(r.c(), name, raised), o.tpotMs() != null ? DropReason.TPOT : DropReason.TTFT);
        });
    }

    @Test
    void shouldNeverRaiseScoreWhenLoadRises()
    {
        check("load up", CASES_PER_PROPERTY, raises(), r ->
        {
            final String name = r.c().decision().candidates().get(r.index()).name();
            final ReferenceObservation o = r.c().request().observation(name);
            final long more = r.how() == 0 ? 1 : r.how() == 1 ? 1 + (long)(r.amount() * 100) : o.inflight() + 1;
            final ReferenceObservation raised = new ReferenceObservation(o.tpotMs(), o.ttftMs(), o.inflight() + more);
            assertNotBetter(r, withObservation(r.c(), name, raised), DropReason.INFLIGHT);
        });
    }

    @Test
    void shouldNeverLowerScoreWhenQualityRises()
    {
        check("quality up", CASES_PER_PROPERTY, raises(), r ->
        {
            final ReferenceModel model = r.c().decision().candidates().get(r.index());
            if (model.quality() == null)
            {
                return;
            }
            final double raised = raise(model.quality(), r.how(), r.amount());
            final ReferenceCase after = withModel(r.c(), r.index(),
                new ReferenceModel(model.name(), raised, model.promptPer1M()));
            final ReferenceCandidate before = kernel(r.c()).candidates().get(r.index());
            final ReferenceCandidate now = kernel(after).candidates().get(r.index());
            assertThat(now.dropReason()).isEqualTo(before.dropReason());
            if (before.score() != null)
            {
                assertThat(now.score()).isGreaterThanOrEqualTo(before.score() - MONOTONE_SLACK);
            }
        });
    }

    @Test
    void shouldKeepNoSurvivorAboveACeilingAndDropForTheFirstBrokenOne()
    {
        check("ceilings", CASES_PER_PROPERTY, ScoringGenerators.cases(), c ->
        {
            final ReferenceDecision d = c.decision();
            final ReferenceResult r = kernel(c);
            for (final ReferenceCandidate candidate : r.candidates())
            {
                if (c.request().excluded().contains(candidate.model()))
                {
                    assertThat(candidate.dropReason()).isEqualTo(DropReason.EXCLUDED);
                    continue;
                }
                final List<Integer> broken = new ArrayList<>();
                if (d.maxTpotMs() != 0 && candidate.tpotMs() != null && candidate.tpotMs() > d.maxTpotMs())
                {
                    broken.add(DropReason.TPOT);
                }
                if (d.maxTtftMs() != 0 && candidate.ttftMs() != null && candidate.ttftMs() > d.maxTtftMs())
                {
                    broken.add(DropReason.TTFT);
                }
                if (d.maxCostPer1M() != 0 && candidate.costPer1M() != null && candidate.costPer1M() > d.maxCostPer1M())
                {
                    broken.add(DropReason.COST);
                }
                if (d.maxInflight() != 0 && candidate.inflight() > d.maxInflight())
                {
                    broken.add(DropReason.INFLIGHT);
                }
                assertThat(candidate.dropReason()).isEqualTo(broken.isEmpty() ? DropReason.NONE : broken.get(0));
            }
        });
    }

    @Test
    void shouldFollowThePolicyWhenNoCandidateSurvives()
    {
        check("policy", CASES_PER_PROPERTY, ScoringGenerators.casesWithoutSurvivor(), c ->
        {
            final ReferenceResult r = kernel(c);
            final List<ReferenceCandidate> eligible = new ArrayList<>();
            for (final ReferenceCandidate candidate : r.candidates())
            {
                assertThat(candidate.score()).isNull();
                if (candidate.dropReason() != DropReason.EXCLUDED)
                {
                    eligible.add(candidate);
                }
            }
            if (eligible.isEmpty())
            {
                assertThat(r.outcome()).isEqualTo(Outcome.FAILED);
                assertThat(r.selectedModel()).isNull();
                return;
            }
            switch (c.decision().policy())
            {
                case ReferenceDecision.FAIL:
                    assertThat(r.outcome()).isEqualTo(Outcome.FAILED);
                    assertThat(r.selectedIndex()).isEqualTo(-1);
                    break;
                case ReferenceDecision.FIRST:
                    assertThat(r.outcome()).isEqualTo(Outcome.FALLBACK_FIRST);
                    assertThat(r.selectedModel()).isEqualTo(eligible.get(0).model());
                    break;
                default:
                    assertThat(r.outcome()).isEqualTo(Outcome.FALLBACK_CHEAPEST);
                    assertThat(r.selectedModel()).isEqualTo(cheapest(eligible));
                    break;
            }
        });
    }

    @Test
    void shouldPickTheBestScoreAndTheEarliestOfEqualOnes()
    {
        check("best and earliest", CASES_PER_PROPERTY, ScoringGenerators.cases(), c ->
        {
            final ReferenceResult r = kernel(c);
            if (r.outcome() != Outcome.SCORED)
            {
                return;
            }
            for (int i = 0; i < r.candidates().size(); i++)
            {
                final Double score = r.candidates().get(i).score();
                if (score == null)
                {
                    continue;
                }
                if (i < r.selectedIndex())
                {
                    assertThat(score).isLessThan(r.selectedScore());
                }
                else
                {
                    assertThat(score).isLessThanOrEqualTo(r.selectedScore());
                }
            }
        });
    }

    // ---------------------------------------------------------------------------------------------------------------

    /**
     * How much a candidate's own score may move the "wrong" way when one of its values moves the right way: 0 would be
     * the real-valued claim, but when the candidate is the maximum of a factor its normalized value is
     * {@code (x - min) * (1 / (x - min))}, which rounds to 1 or to 1 - 2^-53 depending on x, so raising x can nudge the
     * score by about one ulp of 1. Nothing larger is allowed.
     */
    static final double MONOTONE_SLACK = 4 * Math.ulp(1.0);

    private static void assertNotBetter(final Raise r, final ReferenceCase after, final int dropReasonWhenDropped)
    {
        final ReferenceCandidate before = kernel(r.c()).candidates().get(r.index());
        final ReferenceCandidate now = kernel(after).candidates().get(r.index());
        if (before.score() == null)
        {
            assertThat(now.score()).as("a dropped or excluded candidate stays so").isNull();
        }
        else if (now.score() == null)
        {
            assertThat(now.dropReason()).as("only its own ceiling can drop it").isEqualTo(dropReasonWhenDropped);
        }
        else
        {
            assertThat(now.score()).isLessThanOrEqualTo(before.score() + MONOTONE_SLACK);
        }
    }

    /** A case, a candidate index in it, and how to raise one of its values. */
    record Raise(ReferenceCase c, int index, int how, double amount)
    {
    }

    private static Gen<Raise> raises()
    {
        final Gen<ReferenceCase> cases = ScoringGenerators.cases();
        final Gen<Integer> indices = integers().between(0, ScoringGenerators.MAX_CANDIDATES - 1);
        final Gen<Integer> hows = integers().between(0, 3);
        final Gen<Double> amounts = doubles().between(0.0, 1.0);
        return in ->
        {
            final ReferenceCase c = cases.generate(in);
            return new Raise(c, indices.generate(in) % c.candidateCount(), hows.generate(in), amounts.generate(in));
        };
    }

    /** A strictly larger finite value: the next double, a relative step, double plus one, or a jump. */
    private static double raise(final double x, final int how, final double amount)
    {
        final double candidate;
        switch (how)
        {
            case 0:
                candidate = Math.nextUp(x);
                break;
            case 1:
                candidate = x + amount * (x + 1.0);
                break;
            case 2:
                candidate = 2.0 * x + 1.0;
                break;
            default:
                candidate = x + 1e6 * amount;
                break;
        }
        final double raised = Math.max(Math.nextUp(x), candidate);
        // Double.MAX_VALUE cannot be raised and stay valid configuration: keep it (the property then holds trivially).
        return Double.isInfinite(raised) ? x : raised;
    }

    private static ReferenceCase withModel(final ReferenceCase c, final int index, final ReferenceModel model)
    {
        final List<ReferenceModel> models = new ArrayList<>(c.decision().candidates());
        models.set(index, model);
        return new ReferenceCase(c.decision().withCandidates(models), c.request());
    }

    private static ReferenceCase withObservation(final ReferenceCase c, final String model, final ReferenceObservation o)
    {
        final Map<String, ReferenceObservation> observations = new HashMap<>(c.request().observations());
        observations.put(model, o);
        return new ReferenceCase(c.decision(), new ReferenceRequest(observations, c.request().excluded()));
    }

    private static ReferenceCase scaled(final ReferenceCase c, final double k)
    {
        final ReferenceDecision d = c.decision();
        final List<Double> weights = new ArrayList<>();
        for (int f = 0; f < Factor.COUNT; f++)
        {
            weights.add(d.weight(f) * k);
        }
        return new ReferenceCase(d.withWeights(weights), c.request());
    }

    private static boolean uniqueBestScore(final ReferenceResult r)
    {
        int atBest = 0;
        for (final ReferenceCandidate candidate : r.candidates())
        {
            if (Objects.equals(candidate.score(), r.selectedScore()))
            {
                atBest++;
            }
        }
        return atBest == 1;
    }

    private static boolean uniqueLowestPrice(final ReferenceResult r)
    {
        final Double selected = r.candidates().get(r.selectedIndex()).costPer1M();
        if (selected == null)
        {
            return false;
        }
        int atLowest = 0;
        for (final ReferenceCandidate candidate : r.candidates())
        {
            if (candidate.dropReason() != DropReason.EXCLUDED && selected.equals(candidate.costPer1M()))
            {
                atLowest++;
            }
        }
        return atLowest == 1;
    }

    private static double bestMargin(final ReferenceResult r)
    {
        double margin = Double.POSITIVE_INFINITY;
        for (int i = 0; i < r.candidates().size(); i++)
        {
            final Double score = r.candidates().get(i).score();
            if (score != null && i != r.selectedIndex())
            {
                margin = Math.min(margin, r.selectedScore() - score);
            }
        }
        return margin;
    }

    private static String cheapest(final List<ReferenceCandidate> eligible)
    {
        ReferenceCandidate best = null;
        for (final ReferenceCandidate candidate : eligible)
        {
            if (candidate.costPer1M() != null && (best == null || candidate.costPer1M() < best.costPer1M()))
            {
                best = candidate;
            }
        }
        return best != null ? best.model() : eligible.get(0).model();
    }

    /** Two generated values. */
    record Pair2<A, B>(A first, B second)
    {
    }

    private static <A, B> Gen<Pair2<A, B>> pairs(final Gen<A> first, final Gen<B> second)
    {
        return first.zip(second, Pair2::new);
    }
}
