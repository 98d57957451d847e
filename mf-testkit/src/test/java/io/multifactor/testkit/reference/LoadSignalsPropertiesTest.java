package io.multifactor.testkit.reference;

import io.multifactor.api.DropReason;
import io.multifactor.api.Outcome;
import io.multifactor.api.Selection;
import io.multifactor.testkit.generators.ScoringGenerators;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Properties of the load signals (token load: {@code load_metric: tokens} and {@code max_inflight_tokens}; the
 * model-server signals: queue and KV-cache factors, {@code max_queue}, {@code max_kv_cache}, {@code when_stale}),
 * checked on generated problems ({@link ScoringGenerators#loadSignalCases()}) against the kernel, with {@link ReferenceScorer}
 * (written from the documented formulas) as the oracle. Fixed seed ({@code -Dmf.properties.seed=N} overrides); the
 * cases run are printed.
 */
class LoadSignalsPropertiesTest
{
    static final int AGREEMENT_CASES = 3_000;
    static final int CASES_PER_PROPERTY = 1_000;

    private static final long SEED = Long.getLong("mf.properties.seed", 20261201L);
    private static final AtomicLong TOTAL = new AtomicLong();
    private static final AtomicLong DROPPED = new AtomicLong();
    private static final AtomicLong TOKEN_DROPS = new AtomicLong();
    private static final AtomicLong TOKEN_LOAD_CASES = new AtomicLong();

    @AfterAll
    static void reportTotal()
    {
        System.out.println("LoadSignalsPropertiesTest: " + TOTAL.get() + " generated cases (seed " + SEED + "); in the " +
            "agreement cases " + TOKEN_LOAD_CASES.get() + " scored with load_metric tokens, " + TOKEN_DROPS.get() +
            " candidates dropped by inflight_tokens, " + DROPPED.get() + " by queue, kv_cache or stale");
    }

    private static <T> void check(final String property, final int cases, final Gen<T> gen, final Consumer<T> body)
    {
        TOTAL.addAndGet(CountedProperty.check(SEED, property, cases, gen, body));
    }

    @Test
    void theKernelShouldAgreeWithTheReferenceOnDropsWeightsNormalizedFactorsAndScores()
    {
        check("agreement", AGREEMENT_CASES, ScoringGenerators.loadSignalCases(), c ->
        {
            final ReferenceResult expected = ReferenceScorer.select(c);
            ScoreTolerance.assertAgree(KernelAdapter.select(c), expected);
            if (c.decision().extensions().tokenLoad() && expected.outcome() == Outcome.SCORED)
            {
                TOKEN_LOAD_CASES.incrementAndGet();
            }
            for (final ReferenceCandidate candidate : expected.candidates())
            {
                final int reason = candidate.dropReason();
                if (reason == DropReason.INFLIGHT_TOKENS)
                {
                    TOKEN_DROPS.incrementAndGet();
                }
                if (reason == DropReason.QUEUE || reason == DropReason.KV_CACHE || reason == DropReason.STALE)
                {
                    DROPPED.incrementAndGet();
                }
            }
        });
        // The generator reaches every new drop reason, and scores with token load.
        assertThat(DROPPED.get()).isPositive();
        assertThat(TOKEN_DROPS.get()).isPositive();
        assertThat(TOKEN_LOAD_CASES.get()).isPositive();
    }

    @Test
    void withoutTheirWeightsAndCeilingsTheServerSignalsShouldChangeNothing()
    {
        // The defaults reproduce the seed's algorithm exactly: whatever the servers say (queues, KV-cache, stale,
        // when_stale: saturated) and whatever tokens are in flight, a decision without queue/kv_cache weights and
        // ceilings, with load_metric: requests and no max_inflight_tokens, selects bit for bit as the same kernel with
        // none of these signals, and agrees with the seed's reference.
        check("defaults", CASES_PER_PROPERTY, ScoringGenerators.loadSignalCases(), generated ->
        {
            final ReferenceCase c = generated.unweighted();
            final ReferenceCase seedCase = c.withoutLoadSignals();
            final Selection with = KernelAdapter.selection(c, false);
            final Selection without = KernelAdapter.selection(seedCase, false);
            assertSameBitForBit(with, without);
            final ReferenceResult seed = ReferenceScorer.select(seedCase);
            final ReferenceResult kernel = KernelAdapter.select(seedCase);
            ScoreTolerance.assertAgree(kernel, seed);
            assertThat(with.selectedIndex()).isEqualTo(kernel.selectedIndex());
        });
    }

    @Test
    void tokenLoadWithTokensEqualToTheRequestCountsShouldSelectAsRequestLoad()
    {
        // N(m) is the in-flight tokens with load_metric: tokens; when every candidate has as many tokens as requests
        // in flight, the two metrics are the same numbers and the kernel must select the same, bit for bit.
        check("tokens as requests", CASES_PER_PROPERTY, ScoringGenerators.loadSignalCases(), generated ->
        {
            ReferenceRequest request = generated.request();
            for (final ReferenceModel model : generated.decision().candidates())
            {
                final ReferenceObservation o = request.observation(model.name());
                request = request.withObservation(model.name(), o.withInflightTokens(o.inflight()));
            }
            final ReferenceCase requests =
                generated.with(request).with(generated.decision().extensions().withTokenLoad(false, 0L));
            final ReferenceCase tokens = requests.with(requests.decision().extensions().withTokenLoad(true, 0L));
            final Selection byRequests = KernelAdapter.selection(requests, false);
            final Selection byTokens = KernelAdapter.selection(tokens, false);
            assertSameBitForBit(byTokens, byRequests);
        });
    }

    @Test
    void aTokenRiseShouldNeverRaiseTheCandidatesScore()
    {
        // With load_metric: tokens, more tokens in flight on one candidate never raise its score; past
        // max_inflight_tokens it is dropped with reason inflight_tokens.
        checkRise("token rise", DropReason.INFLIGHT_TOKENS,
            c -> c.with(c.decision().extensions().withTokenLoad(true, c.decision().extensions().maxInflightTokens())),
            (c, model, i) ->
            {
                final ReferenceObservation o = c.request().observation(model);
                return c.with(c.request().withObservation(model,
                    o.withInflightTokens(o.inflightTokens() + 1 + 997L * (i % 7))));
            });
    }

    @Test
    void aQueueRiseShouldNeverRaiseTheCandidatesScore()
    {
        // Dropped by max_queue, or a score no higher.
        checkRise("queue rise", DropReason.QUEUE, c -> c, (c, model, i) ->
        {
            final ReferenceObservation o = c.request().observation(model);
            if (o.queue() == null)
            {
                return null;
            }
            return c.with(c.request().withObservation(model,
                o.withServerLoad(o.queue() + 1 + (i % 5), o.kvCache(), o.stale())));
        });
    }

    @Test
    void aKvCacheRiseShouldNeverRaiseTheCandidatesScore()
    {
        checkRise("kv_cache rise", DropReason.KV_CACHE, c -> c, (c, model, i) ->
        {
            final ReferenceObservation o = c.request().observation(model);
            if (o.kvCache() == null || o.kvCache() >= 1.0)
            {
                return null;
            }
            return c.with(c.request().withObservation(model,
                o.withServerLoad(o.queue(), Math.min(1.0, o.kvCache() + 0.1), o.stale())));
        });
    }

    private static void assertSameBitForBit(final Selection actual, final Selection expected)
    {
        assertThat(actual.outcome()).isEqualTo(expected.outcome());
        assertThat(actual.selectedIndex()).isEqualTo(expected.selectedIndex());
        for (int i = 0; i < actual.candidateCount(); i++)
        {
            assertThat(actual.dropReason(i)).as("drop reason of " + i).isEqualTo(expected.dropReason(i));
            assertThat(Double.doubleToLongBits(actual.score(i))).as("score of " + i)
                .isEqualTo(Double.doubleToLongBits(expected.score(i)));
        }
    }

    /** One candidate's signal raised. */
    @FunctionalInterface
    private interface Rise
    {
        /**
         * @param c the problem before.
         * @param model a candidate.
         * @param index its position.
         * @return the problem after the candidate's signal rose, or {@code null} when it has none to raise.
         */
        ReferenceCase raise(ReferenceCase c, String model, int index);
    }

    /**
     * For every candidate the kernel scored in {@code setup}'s problem: after its signal rose, it is dropped with
     * {@code dropReason}, or its score is no higher (within the agreement tolerance).
     */
    private static void checkRise(final String property, final int dropReason,
        final UnaryOperator<ReferenceCase> setup, final Rise rise)
    {
        check(property, CASES_PER_PROPERTY, ScoringGenerators.loadSignalCases(), generated ->
        {
            final ReferenceCase c = setup.apply(generated);
            final ReferenceResult before = KernelAdapter.select(c);
            for (int i = 0; i < before.candidates().size(); i++)
            {
                final ReferenceCandidate candidate = before.candidates().get(i);
                final ReferenceCase raised = candidate.score() == null ? null : rise.raise(c, candidate.model(), i);
                if (raised == null)
                {
                    continue;
                }
                final ReferenceCandidate after = KernelAdapter.select(raised).candidates().get(i);
                if (after.score() != null)
                {
                    assertThat(after.score()).as(property + " of " + candidate.model())
                        .isLessThanOrEqualTo(candidate.score() + ScoreTolerance.TOLERANCE);
                }
                else
                {
                    assertThat(after.dropReason()).as(property + " of " + candidate.model()).isEqualTo(dropReason);
                }
            }
        });
    }
}
