package io.multifactor.testkit.reference;

import io.multifactor.api.DropReason;
import io.multifactor.api.Selection;
import io.multifactor.testkit.generators.ServerSignalsGenerators;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;

/**
 * Properties of the model-server signals (queue and KV-cache factors, {@code max_queue}, {@code max_kv_cache},
 * {@code when_stale}), checked on generated problems ({@link ServerSignalsGenerators}) against the kernel, with
 * {@link ServerSignalsReference} (written from the documented formulas) and the seed's {@link ReferenceScorer} as
 * oracles. Fixed seed ({@code -Dmf.properties.seed=N} overrides); the cases run are printed.
 */
class ServerSignalsPropertiesTest
{
    static final int AGREEMENT_CASES = 3_000;
    static final int CASES_PER_PROPERTY = 1_000;

    private static final long SEED = Long.getLong("mf.properties.seed", 20261201L);
    private static final AtomicLong TOTAL = new AtomicLong();
    private static final AtomicLong DROPPED = new AtomicLong();

    @AfterAll
    static void reportTotal()
    {
        System.out.println("ServerSignalsPropertiesTest: " + TOTAL.get() + " generated cases (seed " + SEED + "), " +
            DROPPED.get() + " candidates dropped by queue, kv_cache or stale in the agreement cases");
    }

    private static <T> void check(final String property, final int cases, final Gen<T> gen, final Consumer<T> body)
    {
        final AtomicLong ran = new AtomicLong();
        qt().withFixedSeed(SEED).withExamples(cases).forAll(gen).checkAssert(value ->
        {
            ran.incrementAndGet();
            body.accept(value);
        });
        assertThat(ran.get()).as("cases run for " + property).isGreaterThanOrEqualTo(cases);
        TOTAL.addAndGet(ran.get());
    }

    @Test
    void theKernelShouldAgreeWithTheReferenceOnDropsWeightsNormalizedFactorsAndScores()
    {
        check("agreement", AGREEMENT_CASES, ServerSignalsGenerators.cases(), c ->
        {
            final ReferenceResult expected = ServerSignalsReference.select(c);
            ScoreTolerance.assertAgree(ServerSignalsKernelAdapter.select(c), expected);
            for (final ReferenceCandidate candidate : expected.candidates())
            {
                final int reason = candidate.dropReason();
                if (reason == DropReason.QUEUE || reason == DropReason.KV_CACHE || reason == DropReason.STALE)
                {
                    DROPPED.incrementAndGet();
                }
            }
        });
        // The generator reaches every new drop reason.
        assertThat(DROPPED.get()).isPositive();
    }

    @Test
    void withoutTheirWeightsAndCeilingsTheServerSignalsShouldChangeNothing()
    {
        // The defaults reproduce the seed's algorithm exactly: whatever the servers say (queues, KV-cache, stale,
        // when_stale: saturated), a decision without queue/kv_cache weights and ceilings selects bit for bit as the
        // same kernel with no server signal, and agrees with the seed's reference.
        check("defaults", CASES_PER_PROPERTY, ServerSignalsGenerators.cases(), generated ->
        {
            final ServerSignalsCase c = generated.unweighted();
            final Selection with = ServerSignalsKernelAdapter.selection(c, true);
            final Selection without = ServerSignalsKernelAdapter.selection(c, false);
            assertThat(with.outcome()).isEqualTo(without.outcome());
            assertThat(with.selectedIndex()).isEqualTo(without.selectedIndex());
            for (int i = 0; i < with.candidateCount(); i++)
            {
                assertThat(with.dropReason(i)).isEqualTo(without.dropReason(i));
                assertThat(Double.doubleToLongBits(with.score(i))).as("score of " + i)
                    .isEqualTo(Double.doubleToLongBits(without.score(i)));
            }
            final ReferenceResult seed = ReferenceScorer.select(c.decision(), c.request());
            final ReferenceResult kernel = KernelAdapter.select(c.decision(), c.request());
            ScoreTolerance.assertAgree(kernel, seed);
            assertThat(with.selectedIndex()).isEqualTo(kernel.selectedIndex());
        });
    }

    @Test
    void aQueueRiseShouldNeverRaiseTheCandidatesScore()
    {
        check("queue rise", CASES_PER_PROPERTY, ServerSignalsGenerators.cases(), c ->
        {
            final ReferenceResult before = ServerSignalsKernelAdapter.select(c);
            for (int i = 0; i < before.candidates().size(); i++)
            {
                final ReferenceCandidate candidate = before.candidates().get(i);
                final Double queue = c.queue().get(candidate.model());
                if (candidate.score() == null || queue == null)
                {
                    continue;
                }
                final Map<String, Double> higher = new HashMap<>(c.queue());
                higher.put(candidate.model(), queue + 1 + (i % 5));
                final ReferenceCandidate after = ServerSignalsKernelAdapter.select(c.withQueue(higher)).candidates().get(i);
                // Dropped by max_queue, or a score no higher (within the agreement tolerance).
                if (after.score() != null)
                {
                    assertThat(after.score()).as(candidate.model() + " queue " + queue + " -> " + higher.get(
                        candidate.model())).isLessThanOrEqualTo(candidate.score() + ScoreTolerance.TOLERANCE);
                }
                else
                {
                    assertThat(after.dropReason()).isEqualTo(DropReason.QUEUE);
                }
            }
        });
    }

    @Test
    void aKvCacheRiseShouldNeverRaiseTheCandidatesScore()
    {
        check("kv_cache rise", CASES_PER_PROPERTY, ServerSignalsGenerators.cases(), c ->
        {
            final ReferenceResult before = ServerSignalsKernelAdapter.select(c);
            for (int i = 0; i < before.candidates().size(); i++)
            {
                final ReferenceCandidate candidate = before.candidates().get(i);
                final Double kv = c.kvCache().get(candidate.model());
                if (candidate.score() == null || kv == null || kv >= 1.0)
                {
                    continue;
                }
                final Map<String, Double> higher = new HashMap<>(c.kvCache());
                higher.put(candidate.model(), Math.min(1.0, kv + 0.1));
                final ReferenceCandidate after =
                    ServerSignalsKernelAdapter.select(c.withKvCache(higher)).candidates().get(i);
                if (after.score() != null)
                {
                    assertThat(after.score()).isLessThanOrEqualTo(candidate.score() + ScoreTolerance.TOLERANCE);
                }
                else
                {
                    assertThat(after.dropReason()).isEqualTo(DropReason.KV_CACHE);
                }
            }
        });
    }
}
