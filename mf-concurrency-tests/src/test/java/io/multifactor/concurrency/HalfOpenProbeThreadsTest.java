package io.multifactor.concurrency;

import io.multifactor.api.InflightTracker;
import io.multifactor.api.Selection;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.plan.NoCandidatesPolicy;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import io.multifactor.kernel.reliability.EjectionPolicy;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Eight real threads select a half-open model at the same instant with {@code selectAndBegin}: exactly one of them
 * gets it (its probe, claimed by one CAS); the seven others see it ejected or lose the claim and take the next
 * candidate. Each round ends every lease without a status, which releases the probe (the model stays half-open), so
 * every round races for the probe again. Prints the rounds run and how often a thread lost the claim after selecting
 * the model.
 */
class HalfOpenProbeThreadsTest
{
    private static final int THREADS = 8;
    private static final int ROUNDS = 300;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldGiveAHalfOpenModelExactlyOneProbeWhenEightThreadsSelectItAtOnce() throws Exception
    {
        final Plans plans = new PlansBuilder()
            .model("fallback", 0.3, 0.5)
            .model("strong", 0.9, 9.0)
            .reliability("strong", new EjectionPolicy(1, 30_000, 300_000, 100))
            .decision("d").candidates("fallback", "strong").weights(1.0, 0.0, 0.0, 0.0)
            .policy(NoCandidatesPolicy.FIRST).add()
            .build();
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(1_000_000_000_000L);
        try (MultiFactorEngine engine = MultiFactorEngine.builder(plans).clock(clock).build())
        {
            final int d = engine.decisionId("d");
            final int strong = engine.modelId("strong");
            engine.ejectForMillis(strong, 1_000);
            clock.advance(TimeUnit.SECONDS.toNanos(2));
            final CyclicBarrier start = new CyclicBarrier(THREADS);
            final CyclicBarrier done = new CyclicBarrier(THREADS + 1);
            final AtomicInteger gotStrong = new AtomicInteger();
            final AtomicInteger lostClaim = new AtomicInteger();
            final AtomicInteger[] perRound = new AtomicInteger[ROUNDS];
            for (int r = 0; r < ROUNDS; r++)
            {
                perRound[r] = new AtomicInteger();
            }
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            final long[][] leases = new long[ROUNDS][THREADS];
            final Thread[] threads = new Thread[THREADS];
            for (int t = 0; t < THREADS; t++)
            {
                final int thread = t;
                threads[t] = new Thread(() ->
                {
                    final Selection out = new Selection();
                    try
                    {
                        for (int r = 0; r < ROUNDS; r++)
                        {
                            start.await(30, TimeUnit.SECONDS);
                            final long lease = engine.selectAndBegin(d, null, out);
                            leases[r][thread] = lease;
                            if (out.selectedModel() == strong)
                            {
                                perRound[r].incrementAndGet();
                                gotStrong.incrementAndGet();
                            }
                            else if (out.dropReason(1) == io.multifactor.api.DropReason.EJECTED &&
                                out.ejectedMillisLeft(1) != out.ejectedMillisLeft(1))
                            {
                                // Selected it as half-open, then lost the probe's CAS to another thread.
                                lostClaim.incrementAndGet();
                            }
                            done.await(30, TimeUnit.SECONDS);
                            done.await(30, TimeUnit.SECONDS);
                        }
                    }
                    catch (final Throwable ex)
                    {
                        failure.compareAndSet(null, ex);
                    }
                }, "selector-" + t);
                threads[t].start();
            }
            for (int r = 0; r < ROUNDS && failure.get() == null; r++)
            {
                done.await(60, TimeUnit.SECONDS);
                for (final long lease : leases[r])
                {
                    assertThat(lease).isNotEqualTo(InflightTracker.NO_LEASE);
                    // No status: a probe so ended is released and the model stays half-open.
                    engine.end(lease);
                }
                done.await(60, TimeUnit.SECONDS);
            }
            for (final Thread thread : threads)
            {
                thread.join(TimeUnit.SECONDS.toMillis(30));
            }
            assertThat(failure.get()).isNull();
            for (int r = 0; r < ROUNDS; r++)
            {
                assertThat(perRound[r].get()).as("threads that got the half-open model in round %d", r).isEqualTo(1);
            }
            System.out.println("HalfOpenProbeThreadsTest: " + ROUNDS + " rounds of " + THREADS + " threads, " +
                gotStrong.get() + " probes, " + lostClaim.get() + " selections that lost the probe's CAS");
        }
    }
}
