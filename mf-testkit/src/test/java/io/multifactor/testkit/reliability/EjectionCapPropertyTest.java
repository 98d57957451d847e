package io.multifactor.testkit.reliability;

import io.multifactor.api.DropReason;
import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.kernel.clock.ManualClock;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import io.multifactor.kernel.plan.RequestRules;
import io.multifactor.kernel.reliability.EjectionPolicy;
import io.multifactor.testkit.reference.ReferenceEjectionCap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

/**
 * The engine's ejection cap with per-model {@code max_ejection_percent} against the plain
 * {@link ReferenceEjectionCap}: decisions of 1 to 12 candidates, each with or without {@code reliability} (percents
 * 0 to 100), ejected or not for a time drawn from a few values (so that ties in the time left occur), excluded by the
 * request or ineligible (its context window too small) or neither. After one {@code select}, the candidates dropped
 * as {@code ejected} are exactly the reference's, and every other candidate the request leaves in is not dropped
 * (quality only, no ceiling). A fixed seed makes every run the same ({@code -Dmf.properties.seed=N} overrides it).
 */
class EjectionCapPropertyTest
{
    private static final int CASES = 2_000;
    private static final long SEED = Long.getLong("mf.properties.seed", 20261203L);
    /** The request's prompt tokens; an ineligible candidate's context window is below them. */
    private static final long PROMPT_TOKENS = 1_000;
    private static final AtomicLong RAN = new AtomicLong();
    private static final AtomicLong CAPPED = new AtomicLong();
    private static final AtomicLong PER_MODEL_PERCENT = new AtomicLong();

    /**
     * One candidate.
     *
     * @param percent its {@code max_ejection_percent}, or {@link ReferenceEjectionCap#NO_RELIABILITY}.
     * @param ejectedMs how long it is ejected for, 0 when healthy.
     * @param role 0: left in, 1: excluded by the request, 2: ineligible (context window).
     */
    record Candidate(int percent, long ejectedMs, int role)
    {
    }

    @AfterAll
    static void report()
    {
        System.out.println("EjectionCapPropertyTest: " + RAN.get() + " generated cases, " + CAPPED.get() +
            " where the cap kept an ejected candidate in, " + PER_MODEL_PERCENT.get() +
            " with a percent other than 10 deciding (seed " + SEED + ')');
    }

    private static Gen<Candidate> candidates()
    {
        return integers().between(0, 3).zip(
            integers().between(0, 100),
            integers().between(0, 5),
            integers().between(0, 9),
            (reliable, percent, ejected, role) -> new Candidate(
                reliable == 0 ? ReferenceEjectionCap.NO_RELIABILITY : percent,
                ejected < 2 ? 0L : ejected * 1_000L,
                role == 0 ? 1 : role == 1 ? 2 : 0));
    }

    @Test
    void shouldDropAsEjectedExactlyTheCandidatesTheReferenceDoes()
    {
        qt().withFixedSeed(SEED).withExamples(CASES).withShrinkCycles(100)
            .forAll(lists().of(candidates()).ofSizeBetween(1, 12)).checkAssert(c ->
            {
                RAN.incrementAndGet();
                run(c);
            });
        assertThat(RAN.get()).isGreaterThanOrEqualTo(CASES - CASES / 100);
        assertThat(CAPPED.get()).as("cases where the cap decides").isGreaterThan(CASES / 10);
        assertThat(PER_MODEL_PERCENT.get()).as("cases where a model's own percent decides").isGreaterThan(CASES / 20);
    }

    private static void run(final List<Candidate> c)
    {
        final int n = c.size();
        final String[] names = new String[n];
        final PlansBuilder builder = new PlansBuilder();
        for (int i = 0; i < n; i++)
        {
            names[i] = "m" + i;
            builder.model(names[i], 0.1 + 0.05 * i, 1.0);
            final Candidate candidate = c.get(i);
            if (candidate.percent() != ReferenceEjectionCap.NO_RELIABILITY)
            {
                builder.reliability(names[i], new EjectionPolicy(3, 30_000, 300_000, candidate.percent()));
            }
            builder.eligibility(names[i], candidate.role() == 2 ? PROMPT_TOKENS / 2 : RequestRules.NO_CONTEXT_WINDOW,
                io.multifactor.api.Capability.ALL);
        }
        final Plans plans = builder.defaultOutputTokens(0).decision("d").candidates(names).weights(1.0, 0.0, 0.0, 0.0)
            .add().build();
        final ManualClock clock = new ManualClock(1_000_000_000_000L);
        try (MultiFactorEngine engine = MultiFactorEngine.builder(plans).clock(clock).counterCapacity(1_024).build())
        {
            final Request request = new Request().decision(engine.decisionId("d")).contextPromptTokens(PROMPT_TOKENS);
            final boolean[] leftIn = new boolean[n];
            final int[] percents = new int[n];
            final long[] left = new long[n];
            for (int i = 0; i < n; i++)
            {
                final Candidate candidate = c.get(i);
                final int model = engine.modelId(names[i]);
                if (candidate.ejectedMs() > 0)
                {
                    assertThat(engine.ejectForMillis(model, candidate.ejectedMs())).isTrue();
                }
                if (candidate.role() == 1)
                {
                    request.exclude(model);
                }
                leftIn[i] = candidate.role() == 0;
                percents[i] = candidate.percent();
                left[i] = candidate.ejectedMs() > 0 ? candidate.ejectedMs() : -1;
            }
            final Selection out = new Selection(n);
            engine.select(request, out);
            final boolean[] expected = ReferenceEjectionCap.stillEjected(leftIn, percents, left);
            final boolean[] actual = new boolean[n];
            boolean capped = false;
            for (int i = 0; i < n; i++)
            {
                actual[i] = out.dropReason(i) == DropReason.EJECTED;
                capped |= leftIn[i] && left[i] >= 0 && !expected[i];
                if (leftIn[i] && !expected[i])
                {
                    assertThat(out.dropReason(i)).as("candidate %d of %s", i, c).isEqualTo(DropReason.NONE);
                }
            }
            assertThat(actual).as("dropped as ejected, %s", c).containsExactly(expected);
            if (capped)
            {
                CAPPED.incrementAndGet();
                if (!Arrays.equals(expected, ReferenceEjectionCap.stillEjected(leftIn, withoutReliability(n), left)))
                {
                    PER_MODEL_PERCENT.incrementAndGet();
                }
            }
        }
    }

    private static int[] withoutReliability(final int n)
    {
        final int[] percents = new int[n];
        Arrays.fill(percents, ReferenceEjectionCap.NO_RELIABILITY);
        return percents;
    }
}
