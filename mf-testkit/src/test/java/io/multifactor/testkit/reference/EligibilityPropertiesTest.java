package io.multifactor.testkit.reference;

import io.multifactor.api.DropReason;
import io.multifactor.api.Outcome;
import io.multifactor.testkit.generators.ScoringGenerators;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;

/**
 * Eligibility, the request's own ceilings and admission against the oracle: on generated problems with every key at
 * once plus context windows, capabilities, needs, request ceilings, priorities, admission and {@code on_no_candidates:
 * shed} ({@link ScoringGenerators#eligibilityCases()}), the kernel's outcome, drop reasons, costs, scores and choice
 * agree with {@link ReferenceScorer}, on sealed signals and not; and the generated problems reach every new outcome ({@code ineligible},
 * {@code shed} by admission and by the policy) and reason ({@code context}, {@code capability}), and a drop that only
 * the request's own ceiling causes.
 */
class EligibilityPropertiesTest
{
    private static final long SEED = Long.getLong("mf.properties.seed", 20261203L);

    @Test
    void shouldAgreeWithTheOracleAndReachEveryNewOutcomeAndReason()
    {
        final AtomicLong ran = new AtomicLong();
        final long[] seen = new long[6];
        qt().withFixedSeed(SEED).withExamples(ExtensionPropertiesTest.CASES).withShrinkCycles(200)
            .forAll(ScoringGenerators.eligibilityCases()).checkAssert(c ->
            {
                ran.incrementAndGet();
                final ReferenceRanking expected = ReferenceScorer.rank(c);
                final ReferenceResult actual = KernelAdapter.select(c);
                ExtensionPropertiesTest.assertAgree(actual, expected.result(), expected.boundaryMargin());
                // On sealed signals too: a request the screen leaves whole takes the sealed path.
                ExtensionPropertiesTest.assertAgree(KernelAdapter.sealedResult(c), expected.result(),
                    expected.boundaryMargin());
                seen[0] += actual.outcome() == Outcome.INELIGIBLE ? 1 : 0;
                seen[1] += actual.outcome() == Outcome.SHED && c.eligibility().sheddable() ? 1 : 0;
                seen[2] += actual.outcome() == Outcome.SHED && ReferenceDecision.SHED.equals(c.decision().policy()) &&
                    !c.eligibility().sheddable() ? 1 : 0;
                boolean requestCeiling = false;
                for (final ReferenceCandidate candidate : actual.candidates())
                {
                    seen[3] += candidate.dropReason() == DropReason.CONTEXT ? 1 : 0;
                    seen[4] += candidate.dropReason() == DropReason.CAPABILITY ? 1 : 0;
                    requestCeiling |= candidate.dropReason() == DropReason.TTFT &&
                        c.eligibility().maxTtftMs() > 0 &&
                        (c.decision().maxTtftMs() <= 0 || candidate.ttftMs() <= c.decision().maxTtftMs());
                }
                seen[5] += requestCeiling ? 1 : 0;
            });
        assertThat(ran.get()).isGreaterThanOrEqualTo(ExtensionPropertiesTest.CASES);
        assertThat(seen[0]).as("outcome ineligible reached").isPositive();
        assertThat(seen[1]).as("outcome shed by admission reached").isPositive();
        assertThat(seen[2]).as("outcome shed by on_no_candidates: shed reached").isPositive();
        assertThat(seen[3]).as("reason context reached").isPositive();
        assertThat(seen[4]).as("reason capability reached").isPositive();
        assertThat(seen[5]).as("a TTFT drop by the request's ceiling alone").isPositive();
    }
}
