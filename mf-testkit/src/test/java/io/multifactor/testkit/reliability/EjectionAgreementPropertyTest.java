package io.multifactor.testkit.reliability;

import io.multifactor.kernel.clock.ManualClock;
import io.multifactor.kernel.reliability.EjectionPolicy;
import io.multifactor.kernel.reliability.EjectionTable;
import io.multifactor.kernel.reliability.EjectionWord;
import io.multifactor.kernel.reliability.ModelEjection;
import io.multifactor.kernel.reliability.RequestResult;
import io.multifactor.testkit.reference.ReferenceEjection;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

/**
 * The engine's ejection state machine ({@link ModelEjection} on an {@link EjectionTable} with a manual clock) against
 * the plain {@link ReferenceEjection} on random sequences of begins, results (statuses, Retry-After delays, no
 * status), reclaimed leases, explicit ejections and clock steps: after every step both agree on whether the model is
 * ejected, the time left, k and the ejections by cause, and the table says all its words are healthy exactly when the
 * model's is (what lets {@code select} skip reading them). A fixed seed makes every run the same
 * ({@code -Dmf.properties.seed=N} overrides it); the number of cases and steps is printed.
 */
class EjectionAgreementPropertyTest
{
    private static final int CASES = 3_000;
    private static final long SEED = Long.getLong("mf.properties.seed", 20261201L);
    private static final int[] STATUSES = { 0, 200, 201, 204, 301, 400, 404, 408, 429, 500, 502, 503, 504, 599, 600, -1 };
    private static final AtomicLong STEPS = new AtomicLong();
    private static final AtomicLong EJECTIONS = new AtomicLong();
    private static final AtomicLong PROBES = new AtomicLong();
    private static final AtomicLong RAN = new AtomicLong();

    /** One step: {@code kind} says what, the other fields are its arguments, whatever the kind needs. */
    record Step(int kind, int pick, int status, long retryAfterMs, long advanceMs)
    {
        static final int ADVANCE = 0;
        static final int BEGIN = 1;
        static final int RESERVE = 2;
        static final int END = 3;
        static final int END_NO_STATUS = 4;
        static final int RECLAIM = 5;
        static final int EJECT_FOR = 6;
        static final int KINDS = 7;
    }

    record Case(boolean configured, int consecutive, long baseMs, long maxMs, List<Step> steps)
    {
    }

    @AfterAll
    static void report()
    {
        System.out.println("EjectionAgreementPropertyTest: " + RAN.get() + " generated cases, " + STEPS.get() +
            " steps, " + EJECTIONS.get() + " ejections, " + PROBES.get() + " probes (seed " + SEED + ')');
    }

    private static Gen<Step> steps()
    {
        return integers().between(0, Step.KINDS * 3 - 1).zip(
            integers().between(0, 63),
            integers().between(0, STATUSES.length - 1),
            integers().between(0, 9),
            integers().between(0, 10_000),
            (kind, pick, status, retryAfter, advance) -> new Step(
                // Results and clock steps are the most frequent steps.
                kind < Step.KINDS ? kind : kind < Step.KINDS * 2 ? Step.END : Step.ADVANCE,
                pick, STATUSES[status], retryAfter < 6 ? 0 : retryAfter * 2_500L - 10_000L, advance));
    }

    private static Gen<Case> cases()
    {
        return integers().between(0, 9).zip(
            integers().between(1, 4),
            integers().between(1, 5_000),
            integers().between(1, 12),
            lists().of(steps()).ofSizeBetween(1, 120),
            (configured, n, base, factor, steps) -> new Case(configured > 0, n, base, (long)base * factor, steps));
    }

    @Test
    void shouldAgreeWithTheReferenceOnRandomSequencesOfResultsAndClockSteps()
    {
        qt().withFixedSeed(SEED).withExamples(CASES).withShrinkCycles(100).forAll(cases()).checkAssert(c ->
        {
            RAN.incrementAndGet();
            run(c);
        });
        // QuickTheories may skip a duplicate draw: all but a handful of the cases asked for run.
        assertThat(RAN.get()).isGreaterThanOrEqualTo(CASES - CASES / 100);
        assertThat(EJECTIONS.get()).as("the generated cases eject models").isGreaterThan(CASES / 10);
        assertThat(PROBES.get()).as("the generated cases probe half-open models").isGreaterThan(CASES / 10);
    }

    private static void run(final Case c)
    {
        final ManualClock clock = new ManualClock(5_000_000_000L);
        final EjectionTable table = new EjectionTable(4, clock, clock.nanoTime());
        final UnsafeBuffer counters = new UnsafeBuffer(BufferUtil.allocateDirectAligned(64, 64));
        final ModelEjection model = new ModelEjection(
            table, 1, c.configured() ? new EjectionPolicy(c.consecutive(), c.baseMs(), c.maxMs(), 10) : null);
        model.counters(counters, 0, 8);
        final ReferenceEjection reference = c.configured() ?
            new ReferenceEjection(c.consecutive(), c.baseMs(), c.maxMs()) : new ReferenceEjection();
        final List<Long> open = new ArrayList<>();
        long nextLease = 1;
        long nowMs = 0;
        int index = 0;
        for (final Step step : c.steps())
        {
            STEPS.incrementAndGet();
            index++;
            switch (step.kind())
            {
                case Step.ADVANCE ->
                {
                    clock.advanceMs(step.advanceMs());
                    nowMs += step.advanceMs();
                }
                case Step.BEGIN, Step.RESERVE ->
                {
                    final long lease = nextLease++;
                    final boolean reservable = reference.reservable(nowMs);
                    final int admitted = model.admit();
                    if (step.kind() == Step.RESERVE)
                    {
                        if ((admitted != ModelEjection.PROBE_TAKEN) != reservable)
                        {
                            throw new AssertionError("reservable " + reservable + " at step " + index + ": " + c);
                        }
                        if (!reservable)
                        {
                            break;
                        }
                    }
                    final boolean probe = reference.begin(lease, nowMs);
                    if ((admitted == ModelEjection.PROBE_CLAIMED) != probe)
                    {
                        throw new AssertionError("probe " + probe + " at step " + index + ": " + c);
                    }
                    if (admitted == ModelEjection.PROBE_CLAIMED)
                    {
                        PROBES.incrementAndGet();
                        model.probe(lease);
                    }
                    open.add(lease);
                }
                case Step.END, Step.END_NO_STATUS, Step.RECLAIM ->
                {
                    if (open.isEmpty())
                    {
                        break;
                    }
                    final long lease = open.remove(step.pick() % open.size());
                    if (step.kind() == Step.END)
                    {
                        reference.end(lease, step.status(), step.retryAfterMs(), nowMs);
                        model.onEnd(lease, RequestResult.classify(step.status(), step.retryAfterMs()),
                            step.retryAfterMs());
                    }
                    else if (step.kind() == Step.END_NO_STATUS)
                    {
                        reference.endWithoutStatus(lease, nowMs);
                        model.onEnd(lease, RequestResult.NOTHING, 0);
                    }
                    else
                    {
                        reference.reclaimed(lease, nowMs);
                        model.onProbeLost(lease);
                    }
                }
                case Step.EJECT_FOR ->
                {
                    final long millis = 1 + step.advanceMs();
                    reference.ejectFor(millis, nowMs);
                    model.ejectForMillis(millis);
                }
                default -> throw new IllegalStateException("kind " + step.kind());
            }
            final double left = table.ejectedMillisLeft(1);
            final double expectedLeft = reference.millisLeft(nowMs);
            if (table.ejected(1) != reference.ejected(nowMs) ||
                Double.doubleToLongBits(left) != Double.doubleToLongBits(expectedLeft) ||
                EjectionWord.ejections(model.word()) != reference.k() ||
                counters.getLong(0) != reference.ejectionsFor5xx() ||
                counters.getLong(8) != reference.ejectionsForRetryAfter())
            {
                throw new AssertionError("disagreement after step " + index + ' ' + step + ": engine ejected=" +
                    table.ejected(1) + " left=" + left + " k=" + EjectionWord.ejections(model.word()) + " 5xx=" +
                    counters.getLong(0) + " retry_after=" + counters.getLong(8) + "; reference ejected=" +
                    reference.ejected(nowMs) + " left=" + expectedLeft + " k=" + reference.k() + " 5xx=" +
                    reference.ejectionsFor5xx() + " retry_after=" + reference.ejectionsForRetryAfter() + "; " + c);
            }
            // select reads no word while the table says all are healthy: it must never say so of an ejected model, or
            // keep saying otherwise once the model is healthy again.
            final boolean healthy = EjectionWord.phase(model.word()) == EjectionWord.HEALTHY;
            if (table.allHealthy() != healthy || reference.ejected(nowMs) && table.allHealthy())
            {
                throw new AssertionError("table allHealthy=" + table.allHealthy() + " after step " + index + ' ' + step +
                    " with the model's phase " + EjectionWord.phase(model.word()) + "; " + c);
            }
        }
        EJECTIONS.addAndGet(reference.ejectionsFor5xx() + reference.ejectionsForRetryAfter());
    }
}
