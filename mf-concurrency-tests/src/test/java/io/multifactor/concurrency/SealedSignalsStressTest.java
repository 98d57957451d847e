package io.multifactor.concurrency;

import io.multifactor.api.DropReason;
import io.multifactor.api.Factor;
import io.multifactor.api.Selection;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.NoCandidatesPolicy;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import io.multifactor.kernel.scoring.CandidateSignals;
import io.multifactor.kernel.scoring.ScoringKernel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Sealed signals on real threads: one publisher republishes two very different sets of latencies and seals each
 * ({@code CandidateSignals.seal}, which writes the one of its two terms it did not write last), as fast as it can,
 * while two selecting threads (more threads than this machine's cores, so a selection is often paused midway, long
 * enough for both terms to be written again) select and check each result against itself: every survivor's score is
 * the weighted sum of its normalized factors under the selection's own bounds, each bound is the min or max of the
 * survivors' values, and the selected candidate is the first of the highest score. A selection that mixed two
 * publications' terms would break that; one that read terms being written must have noticed and taken the full loops.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SealedSignalsStressTest
{
    private static final int CANDIDATES = 24;
    private static final long RUN_NS = TimeUnit.MILLISECONDS.toNanos(1_500);
    private static final double TOLERANCE = 1e-9;

    @Test
    void shouldNeverSelectFromTermsOfTwoPublications() throws Exception
    {
        final PlansBuilder builder = new PlansBuilder();
        final String[] names = new String[CANDIDATES];
        for (int i = 0; i < CANDIDATES; i++)
        {
            names[i] = "m" + i;
            builder.model(names[i], 0.3 + 0.02 * i, 1.0 + 0.5 * ((i * 7) % CANDIDATES));
        }
        builder.decision("d").candidates(names).weights(0.3, 0.4, 0.2, 0.1).slo(0.0, 0.0, 0.0, 40)
            .policy(NoCandidatesPolicy.CHEAPEST).add();
        final Plans plans = builder.build();
        final DecisionPlan plan = plans.decision(plans.decisionId("d"));
        final CandidateSignals signals = CandidateSignals.standalone(CANDIDATES);
        // Two publications whose latencies order the candidates in opposite ways, on scales 30 times apart.
        final double[][] tpot = new double[2][CANDIDATES];
        final double[][] ttft = new double[2][CANDIDATES];
        for (int i = 0; i < CANDIDATES; i++)
        {
            tpot[0][i] = 10.0 + 3.0 * i;
            ttft[0][i] = 100.0 + 20.0 * i;
            tpot[1][i] = 3000.0 - 90.0 * i;
            ttft[1][i] = 30000.0 - 600.0 * i;
            signals.inflight(i, (i * 5) % 37);
        }
        publish(signals, plan, tpot[0], ttft[0]);

        final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        final AtomicBoolean running = new AtomicBoolean(true);
        final AtomicLong selections = new AtomicLong();
        final AtomicLong seals = new AtomicLong();
        final List<Thread> threads = new ArrayList<>();
        threads.add(start(errors, () ->
        {
            for (int k = 1; running.get(); k++)
            {
                publish(signals, plan, tpot[k & 1], ttft[k & 1]);
                seals.incrementAndGet();
            }
        }));
        for (int t = 0; t < 2; t++)
        {
            threads.add(start(errors, () ->
            {
                final Selection selection = new Selection(CANDIDATES);
                while (running.get())
                {
                    ScoringKernel.select(plan, signals, null, selection);
                    final String violation = violation(selection);
                    if (violation != null)
                    {
                        violations.add(violation);
                    }
                    selections.incrementAndGet();
                }
            }));
        }
        final long deadline = System.nanoTime() + RUN_NS;
        // At least RUN_NS, and on until the counts the assertions below ask for are reached (a loaded machine runs
        // fewer selections per second; the class's timeout bounds the wait).
        while ((System.nanoTime() - deadline < 0 || selections.get() <= 10_000 || seals.get() <= 1_000) &&
            errors.isEmpty() && violations.isEmpty())
        {
            Thread.sleep(10);
        }
        running.set(false);
        for (final Thread thread : threads)
        {
            thread.join();
        }
        System.out.println("SealedSignalsStressTest: " + selections.get() + " selections checked during " +
            seals.get() + " publications and seals");
        assertThat(errors).isEmpty();
        assertThat(violations).as("selections inconsistent with themselves").isEmpty();
        assertThat(selections.get()).isGreaterThan(10_000);
        assertThat(seals.get()).isGreaterThan(1_000);
    }

    private static void publish(
        final CandidateSignals signals, final DecisionPlan plan, final double[] tpot, final double[] ttft)
    {
        for (int i = 0; i < CANDIDATES; i++)
        {
            signals.publishLatencyMs(i, tpot[i], ttft[i]);
        }
        signals.seal(plan);
    }

    /** @return what is inconsistent in the selection, or null. */
    private static String violation(final Selection s)
    {
        for (int f = 0; f < Factor.SEED_COUNT; f++)
        {
            double min = Double.POSITIVE_INFINITY;
            double max = Double.NEGATIVE_INFINITY;
            for (int i = 0; i < s.candidateCount(); i++)
            {
                if (s.dropReason(i) == DropReason.NONE)
                {
                    min = Math.min(min, s.value(i, f));
                    max = Math.max(max, s.value(i, f));
                }
            }
            if (min != s.boundMin(f) || max != s.boundMax(f))
            {
                return "factor " + f + ": bounds " + s.boundMin(f) + ".." + s.boundMax(f) + ", survivors' " + min +
                    ".." + max;
            }
        }
        int best = -1;
        for (int i = 0; i < s.candidateCount(); i++)
        {
            if (s.dropReason(i) != DropReason.NONE)
            {
                continue;
            }
            double sum = 0.0;
            for (int f = 0; f < Factor.SEED_COUNT; f++)
            {
                sum += s.weight(f) * s.normalized(i, f);
            }
            final double expected = Math.max(0.0, Math.min(1.0, sum));
            if (Math.abs(s.score(i) - expected) > TOLERANCE)
            {
                return "candidate " + i + ": score " + s.score(i) + ", its factors give " + expected;
            }
            best = best < 0 || s.score(i) > s.score(best) ? i : best;
        }
        return best == s.selectedIndex() ? null : "selected " + s.selectedIndex() + ", highest " + best;
    }

    private static Thread start(final ConcurrentLinkedQueue<Throwable> errors, final Runnable body)
    {
        final Thread thread = new Thread(() ->
        {
            try
            {
                body.run();
            }
            catch (final Throwable t)
            {
                errors.add(t);
            }
        });
        thread.start();
        return thread;
    }
}
