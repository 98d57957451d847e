package io.multifactor.testkit.reference;

import io.multifactor.api.DropReason;
import io.multifactor.api.Outcome;
import io.multifactor.api.Selection;
import io.multifactor.testkit.generators.LoadSignalsGenerators;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Properties of the load signals (token load: {@code load_metric: tokens} and {@code max_inflight_tokens}; the
 * model-server signals: queue and KV-cache factors, {@code max_queue}, {@code max_kv_cache}, {@code when_stale}),
 * checked on generated problems ({@link LoadSignalsGenerators}) against the kernel, with {@link ReferenceScorer}
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
        check("agreement", AGREEMENT_CASES, LoadSignalsGenerators.cases(), c ->
        {
            final ReferenceResult expected = ReferenceScorer.select(c);
            ScoreTolerance.assertAgree(LoadSignalsKernelAdapter.select(c), expected);
            if (c.tokenLoad() && expected.outcome() == Outcome.SCORED)
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
        check("defaults", CASES_PER_PROPERTY, LoadSignalsGenerators.cases(), generated ->
        {
            final LoadSignalsCase c = generated.unweighted();
            final Selection with = LoadSignalsKernelAdapter.selection(c, true);
            final Selection without = LoadSignalsKernelAdapter.selection(c, false);
            assertSameBitForBit(with, without);
            final ReferenceResult seed = ReferenceScorer.select(c.decision(), c.request());
            final ReferenceResult kernel = KernelAdapter.select(c.decision(), c.request());
            ScoreTolerance.assertAgree(kernel, seed);
            assertThat(with.selectedIndex()).isEqualTo(kernel.selectedIndex());
        });
    }

    @Test
    void tokenLoadWithTokensEqualToTheRequestCountsShouldSelectAsRequestLoad()
    {
        // N(m) is the in-flight tokens with load_metric: tokens; when every candidate has as many tokens as requests
        // in flight, the two metrics are the same numbers and the kernel must select the same, bit for bit.
        check("tokens as requests", CASES_PER_PROPERTY, LoadSignalsGenerators.cases(), generated ->
        {
            final Map<String, ReferenceObservation> observations = new HashMap<>();
            for (final ReferenceModel model : generated.decision().candidates())
            {
                final ReferenceObservation o = generated.request().observation(model.name());
                observations.put(model.name(), o.withInflightTokens(o.inflight()));
            }
            final ReferenceRequest request = new ReferenceRequest(observations, generated.request().excluded());
            final LoadSignalsCase requests = generated.withRequest(request).withTokenLoad(false, 0L);
            final LoadSignalsCase tokens = requests.withTokenLoad(true, 0L);
            final Selection byRequests = LoadSignalsKernelAdapter.selection(requests, true);
            final Selection byTokens = LoadSignalsKernelAdapter.selection(tokens, true);
            assertSameBitForBit(byTokens, byRequests);
        });
    }

    @Test
    void aTokenRiseShouldNeverRaiseTheCandidatesScore()
    {
        // With load_metric: tokens, more tokens in flight on one candidate never raise its score; past
        // max_inflight_tokens it is dropped with reason inflight_tokens.
        checkRise("token rise", DropReason.INFLIGHT_TOKENS, c -> c.withTokenLoad(true, c.maxInflightTokens()),
            (c, model, i) ->
            {
                final Map<String, ReferenceObservation> observations = new HashMap<>(c.request().observations());
                final ReferenceObservation o = c.request().observation(model);
                observations.put(model, o.withInflightTokens(o.inflightTokens() + 1 + 997L * (i % 7)));
                return c.withRequest(new ReferenceRequest(observations, c.request().excluded()));
            });
    }

    @Test
    void aQueueRiseShouldNeverRaiseTheCandidatesScore()
    {
        // Dropped by max_queue, or a score no higher.
        checkRise("queue rise", DropReason.QUEUE, c -> c, (c, model, i) ->
        {
            final Double queue = c.queue().get(model);
            if (queue == null)
            {
                return null;
            }
            final Map<String, Double> higher = new HashMap<>(c.queue());
            higher.put(model, queue + 1 + (i % 5));
            return c.withQueue(higher);
        });
    }

    @Test
    void aKvCacheRiseShouldNeverRaiseTheCandidatesScore()
    {
        checkRise("kv_cache rise", DropReason.KV_CACHE, c -> c, (c, model, i) ->
        {
            final Double kv = c.kvCache().get(model);
            if (kv == null || kv >= 1.0)
            {
                return null;
            }
            final Map<String, Double> higher = new HashMap<>(c.kvCache());
            higher.put(model, Math.min(1.0, kv + 0.1));
            return c.withKvCache(higher);
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
        LoadSignalsCase raise(LoadSignalsCase c, String model, int index);
    }

    /**
     * For every candidate the kernel scored in {@code setup}'s problem: after its signal rose, it is dropped with
     * {@code dropReason}, or its score is no higher (within the agreement tolerance).
     */
    private static void checkRise(final String property, final int dropReason,
        final UnaryOperator<LoadSignalsCase> setup, final Rise rise)
    {
        check(property, CASES_PER_PROPERTY, LoadSignalsGenerators.cases(), generated ->
        {
            final LoadSignalsCase c = setup.apply(generated);
            final ReferenceResult before = LoadSignalsKernelAdapter.select(c);
            for (int i = 0; i < before.candidates().size(); i++)
            {
                final ReferenceCandidate candidate = before.candidates().get(i);
                final LoadSignalsCase raised = candidate.score() == null ? null : rise.raise(c, candidate.model(), i);
                if (raised == null)
                {
                    continue;
                }
                final ReferenceCandidate after = LoadSignalsKernelAdapter.select(raised).candidates().get(i);
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
