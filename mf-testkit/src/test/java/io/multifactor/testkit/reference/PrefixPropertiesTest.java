package io.multifactor.testkit.reference;

import io.multifactor.api.DropReason;
import io.multifactor.api.Factor;
import io.multifactor.api.Outcome;
import io.multifactor.testkit.generators.ScoringGenerators;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

import java.util.HashMap;
import java.util.Map;

import static io.multifactor.testkit.reference.ExtensionPropertiesTest.TOLERANCE;
import static io.multifactor.testkit.reference.ExtensionPropertiesTest.assertAgree;
import static io.multifactor.testkit.reference.ExtensionPropertiesTest.check;
import static io.multifactor.testkit.reference.ExtensionPropertiesTest.close;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The prefix factor and the cache-aware prompt price (section "Prefix-cache affinity" of docs/semantics.md), each
 * property over {@link ExtensionPropertiesTest#CASES} generated problems ({@link ScoringGenerators#prefixCases()}): the
 * kernel against the oracle (weighted and lexicographic, the cached price in the cost, the cost ceiling and the
 * {@code cheapest} fallback), and a decision that neither weighs {@code prefix} nor has a cached price selecting
 * exactly as without the request's shares.
 */
class PrefixPropertiesTest
{
    @Test
    void shouldAgreeWithTheOracleOnThePrefixFactorAndTheCachedPrice()
    {
        final long[] seen = new long[4];
        check("prefix: kernel agrees with the oracle", ScoringGenerators.prefixCases(), c ->
        {
            final ReferenceRanking expected = ReferenceScorer.rank(c);
            final ReferenceResult actual = KernelAdapter.select(c);
            assertAgree(actual, expected.result(), expected.boundaryMargin());
            if (expected.boundaryMargin() > TOLERANCE && actual.outcome() == Outcome.SCORED)
            {
                for (int i = 0; i < actual.candidates().size(); i++)
                {
                    final ReferenceCandidate e = expected.result().candidates().get(i);
                    final ReferenceCandidate a = actual.candidates().get(i);
                    assertThat(a.eliminatedBy()).as("eliminated_by of m" + i).isEqualTo(e.eliminatedBy());
                    final Double prefix = a.normalized().get(Factor.label(Factor.PREFIX));
                    final Double oracle = e.normalized().get(Factor.label(Factor.PREFIX));
                    assertThat(close(prefix, oracle)).as("normalized prefix of m" + i + ": " + prefix + " vs " + oracle)
                        .isTrue();
                }
                assertThat(expected.result().candidate(actual.selectedModel()).tied())
                    .as("kernel's choice can win in the oracle").isTrue();
            }
            final ReferenceExtensions keys = c.decision().extensions();
            seen[0] += !keys.lexicographic() && c.decision().weight(Factor.PREFIX) > 0 &&
                actual.outcome() == Outcome.SCORED ? 1 : 0;
            seen[1] += keys.lexicographic() && keys.priority().contains(Factor.label(Factor.PREFIX)) &&
                actual.outcome() == Outcome.SCORED ? 1 : 0;
            for (final ReferenceModel model : c.decision().candidates())
            {
                final ReferenceObservation o = c.request().observation(model.name());
                final ReferenceCandidate e = expected.result().candidate(model.name());
                final boolean cachedPriced = o.prefix() != null && model.cachedPromptPer1M() != null &&
                    model.promptPer1M() != null && o.prefix() > 0 &&
                    !model.cachedPromptPer1M().equals(model.promptPer1M());
                seen[2] += cachedPriced ? 1 : 0;
                seen[3] += cachedPriced && e.dropReason() == DropReason.COST ? 1 : 0;
            }
        });
        System.out.println("PrefixPropertiesTest: " + seen[0] + " weighted scorings with prefix, " + seen[1] +
            " lexicographic rankings with prefix in the priority, " + seen[2] + " candidates at a cache-aware price, " +
            seen[3] + " of them dropped by max_cost_per_1m");
        assertThat(seen).doesNotContain(0L);
    }

    @Test
    void shouldFallBackToTheCheapestCacheAwarePrice()
    {
        // Every candidate not excluded above the in-flight ceiling: the policy decides, cheapest by the cached price.
        final Gen<ReferenceCase> noSurvivor = ScoringGenerators.prefixCases().map(c ->
        {
            ReferenceRequest request = c.request();
            for (final ReferenceModel model : c.decision().candidates())
            {
                final ReferenceObservation o = request.observation(model.name());
                request = request.withObservation(model.name(), new ReferenceObservation(o.tpotMs(), o.ttftMs(),
                    o.inflight() + 2, o.inflightTokens(), o.queue(), o.kvCache(), o.stale(), o.ejectedMs(), o.prefix()));
            }
            final ReferenceDecision d = c.decision();
            return new ReferenceCase(
                d.withCeilings(d.maxTpotMs(), d.maxTtftMs(), d.maxCostPer1M(), 1).withPolicy(ReferenceDecision.CHEAPEST),
                request);
        });
        final long[] cheapestByCachedPrice = new long[1];
        check("prefix: cheapest fallback by the cache-aware price", noSurvivor, c ->
        {
            final ReferenceRanking expected = ReferenceScorer.rank(c);
            final ReferenceResult actual = KernelAdapter.select(c);
            assertAgree(actual, expected.result(), expected.boundaryMargin());
            if (actual.outcome() == Outcome.FALLBACK_CHEAPEST)
            {
                final ReferenceModel chosen = c.decision().candidates().get(actual.selectedIndex());
                final ReferenceObservation o = c.request().observation(chosen.name());
                cheapestByCachedPrice[0] += o.prefix() != null && o.prefix() > 0 && chosen.cachedPromptPer1M() != null &&
                    chosen.promptPer1M() != null ? 1 : 0;
            }
        });
        System.out.println("PrefixPropertiesTest: " + cheapestByCachedPrice[0] + " fallbacks to a cache-aware cheapest");
        assertThat(cheapestByCachedPrice[0]).isPositive();
    }

    @Test
    void shouldSelectAsBeforeWhenTheDecisionNeitherWeighsPrefixNorHasACachedPrice()
    {
        check("prefix: shares change nothing without weight or cached price", ScoringGenerators.prefixCases(), c ->
        {
            final ReferenceDecision d = c.decision();
            final java.util.List<ReferenceModel> uncached = new java.util.ArrayList<>();
            for (final ReferenceModel model : d.candidates())
            {
                uncached.add(model.withCachedPromptPer1M(null));
            }
            final ReferenceDecision plain = d.withCandidates(uncached).withWeight(Factor.PREFIX, 0.0)
                .withExtensions(d.extensions().lexicographic() ? d.extensions().withLexicographic(
                    d.extensions().tolerance(), withoutPrefix(d.extensions().priority())) : d.extensions());
            final Map<String, ReferenceObservation> withoutShares = new HashMap<>();
            for (final Map.Entry<String, ReferenceObservation> e : c.request().observations().entrySet())
            {
                withoutShares.put(e.getKey(), e.getValue().withPrefix(null));
            }
            final ReferenceResult withShares = KernelAdapter.select(new ReferenceCase(plain, c.request()));
            final ReferenceResult without = KernelAdapter.select(new ReferenceCase(plain,
                new ReferenceRequest(withoutShares, c.request().excluded(), c.request().promptTokens(),
                    c.request().maxOutputTokens(), c.request().seed())));
            assertThat(withShares.outcome()).isEqualTo(without.outcome());
            assertThat(withShares.selectedIndex()).isEqualTo(without.selectedIndex());
            for (int i = 0; i < without.candidates().size(); i++)
            {
                final ReferenceCandidate a = withShares.candidates().get(i);
                final ReferenceCandidate b = without.candidates().get(i);
                assertThat(a.dropReason()).isEqualTo(b.dropReason());
                assertThat(a.costPer1M()).isEqualTo(b.costPer1M());
                assertThat(a.score()).isEqualTo(b.score());
            }
        });
    }

    @Test
    void shouldSelectOnSealedSignalsAsTheFullLoops()
    {
        // A request with shares skips the seal; one without (a problem whose shares are all missing) on a decision with
        // cached prices keeps it: either way the same selection as the full loops, to the bit.
        check("prefix: sealed == full loops", ScoringGenerators.prefixCases(), c ->
            assertThat(KernelAdapter.sealedResult(c)).isEqualTo(KernelAdapter.select(c)));
    }

    private static java.util.List<String> withoutPrefix(final java.util.List<String> priority)
    {
        final java.util.List<String> kept = new java.util.ArrayList<>(priority);
        kept.remove(Factor.label(Factor.PREFIX));
        return kept.isEmpty() ? java.util.List.of(Factor.label(Factor.QUALITY)) : java.util.List.copyOf(kept);
    }
}
