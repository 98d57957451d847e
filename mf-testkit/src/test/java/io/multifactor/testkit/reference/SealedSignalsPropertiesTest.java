package io.multifactor.testkit.reference;

import io.multifactor.api.DropReason;
import io.multifactor.api.Factor;
import io.multifactor.api.Objective;
import io.multifactor.api.Selection;
import io.multifactor.testkit.generators.ScoringGenerators;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.generators.SourceDSL.longs;

/**
 * Sealed signals ({@code CandidateSignals.seal}: the terms of configuration and published values worked out once per
 * publication) select exactly as the full loops do: every field of the selection, to the bit, on generated problems
 * with the extensions of the seed's keys (exclusions and requests' token counts among them), with the servers' signals,
 * and with in-flight counts and tokens that moved after the seal (so that a live drop can move a bound); and they agree with {@link ReferenceScorer}, written
 * from the documented formulas. Fixed seed ({@code -Dmf.properties.seed=N} overrides); the cases run, and how many of
 * them a seal can serve (every one not ranked lexicographically: with exclusions and with requests that price the
 * candidates by their token counts too), are printed.
 */
class SealedSignalsPropertiesTest
{
    static final int CASES = 2_000;

    private static final long SEED = Long.getLong("mf.properties.seed", 20261202L);
    private static final AtomicLong TOTAL = new AtomicLong();
    private static final AtomicLong SEALABLE = new AtomicLong();
    private static final AtomicLong LIVE_DROPS = new AtomicLong();
    private static final AtomicLong TOKEN_DROPS = new AtomicLong();
    private static final AtomicLong EXCLUDING = new AtomicLong();
    private static final AtomicLong PRICED = new AtomicLong();
    private static final AtomicLong PREFIX_SCORED = new AtomicLong();
    private static final AtomicLong CACHE_PRICED = new AtomicLong();
    private static final AtomicLong REQUEST_CEILING_DROPS = new AtomicLong();
    private static final AtomicLong INELIGIBLE_LEFT_OUT = new AtomicLong();

    @AfterAll
    static void reportTotal()
    {
        System.out.println("SealedSignalsPropertiesTest: " + TOTAL.get() + " generated cases (seed " + SEED + "), " +
            SEALABLE.get() + " of them selectable from the seal (" + EXCLUDING.get() + " with exclusions, " + PRICED.get() +
            " priced by the request's tokens); " + LIVE_DROPS.get() + " in-flight and " + TOKEN_DROPS.get() +
            " token drops after a seal; " + PREFIX_SCORED.get() + " weighing the request's cached shares, " +
            CACHE_PRICED.get() + " pricing with them; " + REQUEST_CEILING_DROPS.get() +
            " dropping by the request's own latency ceiling, " + INELIGIBLE_LEFT_OUT.get() +
            " leaving ineligible candidates out");
    }

    private static <T> void check(final String property, final Gen<T> gen, final Consumer<T> body)
    {
        TOTAL.addAndGet(CountedProperty.check(SEED, property, CASES, gen, body));
    }

    @Test
    void sealedSignalsShouldSelectAsTheFullLoopsWithTheSeedsExtensions()
    {
        final long before = SEALABLE.get();
        check("extensions", ScoringGenerators.extendedCases().zip(longs().all(), (c, seed) -> new Object[] { c, seed }), in ->
        {
            final ReferenceCase generated = (ReferenceCase)in[0];
            final ReferenceCase c = generated.with(generated.request().withSeed((Long)in[1]));
            final Selection full = KernelAdapter.selection(c, false);
            final Selection sealed = KernelAdapter.selection(c, true);
            assertIdentical(sealed, full);
            if (full.objective() != Objective.LEXICOGRAPHIC)
            {
                SEALABLE.incrementAndGet();
                if (!c.request().excluded().isEmpty())
                {
                    EXCLUDING.incrementAndGet();
                }
                if (c.request().promptTokens() != null || c.request().maxOutputTokens() != null)
                {
                    PRICED.incrementAndGet();
                }
            }
        });
        assertThat(SEALABLE.get() - before).as("cases a seal serves").isGreaterThan(CASES / 2);
        assertThat(EXCLUDING.get()).as("of them with exclusions").isGreaterThan(CASES / 20);
        assertThat(PRICED.get()).as("of them priced by the request's tokens").isGreaterThan(CASES / 20);
    }

    @Test
    void sealedSignalsShouldSelectAsTheFullLoopsAndTheReferenceWithServerSignals()
    {
        check("server signals", ScoringGenerators.loadSignalCases(), c ->
        {
            final Selection full = KernelAdapter.selection(c, false);
            final Selection sealed = KernelAdapter.selection(c, true);
            assertIdentical(sealed, full);
            SEALABLE.incrementAndGet();
            ScoreTolerance.assertAgree(KernelAdapter.sealedResult(c), ReferenceScorer.select(c));
        });
    }

    @Test
    void countsThatMovedAfterTheSealShouldSelectAsTheFullLoops()
    {
        // The seal reads no in-flight count: counts set after it, some of them past max_inflight (dropping candidates
        // that may hold a bound of the sealed terms), select as the full loops on the same counts.
        check("counts after the seal", ScoringGenerators.loadSignalCases().zip(longs().all(), (c, salt) -> new Object[] {
            c, salt }), in ->
        {
            final ReferenceCase c = (ReferenceCase)in[0];
            final long salt = (Long)in[1];
            final int n = c.decision().candidates().size();
            final long max = c.decision().maxInflight();
            final long maxTokens = c.decision().extensions().maxInflightTokens();
            final long[] counts = new long[n];
            final long[] tokens = new long[n];
            for (int i = 0; i < n; i++)
            {
                final long bits = Long.rotateLeft(salt * 0x9E3779B97F4A7C15L, 7 * i) >>> 1;
                // Around the ceilings when they are set, else small counts.
                counts[i] = max > 0 ? bits % (2 * max + 2) : bits % 50;
                tokens[i] = maxTokens > 0 ? (bits >>> 20) % (2 * maxTokens + 2) : (bits >>> 20) % 20_000;
            }
            final Selection full = KernelAdapter.selection(c, false, counts, tokens);
            final Selection sealed = KernelAdapter.selection(c, true, counts, tokens);
            assertIdentical(sealed, full);
            for (int i = 0; i < n; i++)
            {
                if (sealed.dropReason(i) == DropReason.INFLIGHT)
                {
                    LIVE_DROPS.incrementAndGet();
                }
                if (sealed.dropReason(i) == DropReason.INFLIGHT_TOKENS)
                {
                    TOKEN_DROPS.incrementAndGet();
                }
            }
        });
        assertThat(LIVE_DROPS.get()).as("in-flight drops after a seal").isGreaterThan(CASES / 10);
        assertThat(TOKEN_DROPS.get()).as("token drops after a seal").isGreaterThan(CASES / 20);
    }

    @Test
    void sealedSignalsShouldSelectAsTheFullLoopsAndTheReferenceWithCachedPromptShares()
    {
        // The request's cached shares are read live beside the seal (the prefix factor's value, bounds and term, and the
        // cache-aware prompt price, which makes the cost the request's own).
        check("prefix", ScoringGenerators.prefixCases(), c ->
        {
            final Selection full = KernelAdapter.selection(c, false);
            final Selection sealed = KernelAdapter.selection(c, true);
            assertIdentical(sealed, full);
            final ReferenceRanking expected = ReferenceScorer.rank(c);
            ExtensionPropertiesTest.assertAgree(KernelAdapter.sealedResult(c), expected.result(),
                expected.boundaryMargin());
            if (full.objective() != Objective.LEXICOGRAPHIC && !Double.isNaN(full.boundMin(Factor.PREFIX)) &&
                full.boundMin(Factor.PREFIX) != Double.POSITIVE_INFINITY)
            {
                PREFIX_SCORED.addAndGet(c.decision().weight(Factor.PREFIX) > 0.0 ? 1 : 0);
                CACHE_PRICED.addAndGet(cachePriced(c) ? 1 : 0);
            }
        });
        assertThat(PREFIX_SCORED.get()).as("sealable cases weighing the shares").isGreaterThan(CASES / 10);
        assertThat(CACHE_PRICED.get()).as("sealable cases priced by the shares").isGreaterThan(CASES / 10);
    }

    @Test
    void sealedSignalsShouldSelectAsTheFullLoopsWithEligibilityAndTheRequestsOwnCeilings()
    {
        // The request's own TPOT and TTFT ceilings are checked live beside the seal's, and the candidates it cannot use
        // are left out as exclusions are, their reasons written back.
        check("eligibility", ScoringGenerators.eligibilityCases(), c ->
        {
            final Selection full = KernelAdapter.selection(c, false);
            final Selection sealed = KernelAdapter.selection(c, true);
            assertIdentical(sealed, full);
            if (full.objective() == Objective.LEXICOGRAPHIC)
            {
                return;
            }
            boolean ceilingDrop = false;
            boolean ineligible = false;
            for (int i = 0; i < full.candidateCount(); i++)
            {
                final int reason = full.dropReason(i);
                ceilingDrop |= reason == DropReason.TTFT && c.eligibility().maxTtftMs() > 0.0 ||
                    reason == DropReason.TPOT && c.eligibility().maxTpotMs() > 0.0;
                ineligible |= reason == DropReason.CONTEXT || reason == DropReason.CAPABILITY;
            }
            REQUEST_CEILING_DROPS.addAndGet(ceilingDrop ? 1 : 0);
            INELIGIBLE_LEFT_OUT.addAndGet(ineligible && full.hasSelection() ? 1 : 0);
        });
        assertThat(REQUEST_CEILING_DROPS.get()).as("cases dropping by the request's ceiling").isGreaterThan(CASES / 20);
        assertThat(INELIGIBLE_LEFT_OUT.get()).as("cases selecting among the eligible").isGreaterThan(CASES / 20);
    }

    // Whether a candidate has a share above 0 and a cached prompt price other than its prompt price.
    private static boolean cachePriced(final ReferenceCase c)
    {
        for (final ReferenceModel model : c.decision().candidates())
        {
            final Double share = c.request().observation(model.name()).prefix();
            if (share != null && share > 0.0 && model.cachedPromptPer1M() != null && model.promptPer1M() != null &&
                !model.cachedPromptPer1M().equals(model.promptPer1M()))
            {
                return true;
            }
        }
        return false;
    }

    /** Every field a reader of a selection sees, to the bit. */
    static void assertIdentical(final Selection actual, final Selection expected)
    {
        assertThat(actual.outcome()).as("outcome").isEqualTo(expected.outcome());
        assertThat(actual.selectedIndex()).as("selected").isEqualTo(expected.selectedIndex());
        assertThat(actual.runnerUp()).as("runner-up").isEqualTo(expected.runnerUp());
        assertThat(actual.candidateCount()).as("candidates").isEqualTo(expected.candidateCount());
        assertThat(actual.objective()).as("objective").isEqualTo(expected.objective());
        assertThat(actual.latencyMetric()).as("latency metric").isEqualTo(expected.latencyMetric());
        for (int f = 0; f < Factor.COUNT; f++)
        {
            assertThat(bits(actual.boundMin(f))).as("min of factor " + f).isEqualTo(bits(expected.boundMin(f)));
            assertThat(bits(actual.boundMax(f))).as("max of factor " + f).isEqualTo(bits(expected.boundMax(f)));
        }
        for (int i = 0; i < actual.candidateCount(); i++)
        {
            final String at = " of candidate " + i;
            assertThat(actual.dropReason(i)).as("drop reason" + at).isEqualTo(expected.dropReason(i));
            assertThat(bits(actual.score(i))).as("score" + at).isEqualTo(bits(expected.score(i)));
            assertThat(bits(actual.tpotMs(i))).as("TPOT" + at).isEqualTo(bits(expected.tpotMs(i)));
            assertThat(bits(actual.ttftMs(i))).as("TTFT" + at).isEqualTo(bits(expected.ttftMs(i)));
            assertThat(actual.inflight(i)).as("in-flight" + at).isEqualTo(expected.inflight(i));
            assertThat(actual.inflightTokens(i)).as("in-flight tokens" + at).isEqualTo(expected.inflightTokens(i));
            assertThat(bits(actual.ejectedMillisLeft(i))).as("ejection" + at)
                .isEqualTo(bits(expected.ejectedMillisLeft(i)));
            assertThat(actual.eliminatedBy(i)).as("eliminated by" + at).isEqualTo(expected.eliminatedBy(i));
            for (int f = 0; f < Factor.COUNT; f++)
            {
                assertThat(bits(actual.value(i, f))).as("factor " + f + at).isEqualTo(bits(expected.value(i, f)));
                assertThat(bits(actual.normalized(i, f))).as("normalized factor " + f + at)
                    .isEqualTo(bits(expected.normalized(i, f)));
            }
        }
    }

    private static long bits(final double value)
    {
        return Double.doubleToLongBits(value);
    }
}
