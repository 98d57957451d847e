package io.multifactor.testkit.reliability;

import io.multifactor.kernel.clock.ManualClock;
import io.multifactor.kernel.reliability.EjectionPolicy;
import io.multifactor.kernel.reliability.EjectionTable;
import io.multifactor.kernel.reliability.EjectionWord;
import io.multifactor.kernel.reliability.ModelEjection;
import io.multifactor.kernel.reliability.RequestResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The table's count of words out of the healthy phase, which lets {@code select} read no word while it is 0, under
 * real threads: four threads drive two models through ejections, probes, results, expiries (the clock moves between
 * rounds) and direct state changes at once, several threads on one word so that compare-and-swaps fail and retry. After
 * each round, with every thread stopped at a barrier, the count must agree exactly with the words: a lost or doubled
 * change of the count would show there, and stay.
 */
class EjectionHealthCountThreadsTest
{
    private static final int WRITERS = 4;
    private static final int ROUNDS = 400;
    private static final int OPERATIONS_PER_ROUND = 500;

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldAgreeExactlyWithTheWordsAfterEveryRoundOfConcurrentTransitions() throws Exception
    {
        final ManualClock clock = new ManualClock(1_000_000_000L);
        final EjectionTable table = new EjectionTable(4, clock, clock.nanoTime());
        final ModelEjection[] models = {
            new ModelEjection(table, 1, new EjectionPolicy(2, 50, 400, 100)),
            new ModelEjection(table, 2, new EjectionPolicy(1, 20, 200, 100)),
        };
        final CyclicBarrier roundOver = new CyclicBarrier(WRITERS + 1);
        final CyclicBarrier roundStarts = new CyclicBarrier(WRITERS + 1);
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final Thread[] writers = new Thread[WRITERS];
        for (int t = 0; t < WRITERS; t++)
        {
            final long seed = 31L * t + 7;
            writers[t] = new Thread(() -> drive(table, models, seed, roundStarts, roundOver, failure),
                "ejection-writer-" + t);
            writers[t].start();
        }
        int unhealthyRounds = 0;
        int healthyRounds = 0;
        for (int round = 0; round < ROUNDS; round++)
        {
            roundStarts.await(30, TimeUnit.SECONDS);
            roundOver.await(30, TimeUnit.SECONDS);
            final boolean noneUnhealthy = EjectionWord.phase(table.word(1)) == EjectionWord.HEALTHY &&
                EjectionWord.phase(table.word(2)) == EjectionWord.HEALTHY;
            assertThat(table.allHealthy()).as("after round %d, words %x and %x", round, table.word(1), table.word(2))
                .isEqualTo(noneUnhealthy);
            if (noneUnhealthy)
            {
                healthyRounds++;
            }
            else
            {
                unhealthyRounds++;
            }
            // Between rounds: ejections run out, so that half-open models get probed in the next one.
            clock.advanceNs(TimeUnit.MILLISECONDS.toNanos(round % 7 == 0 ? 500 : 5));
        }
        for (final Thread writer : writers)
        {
            writer.join();
        }
        assertThat(failure.get()).isNull();
        System.out.println("EjectionHealthCountThreadsTest: " + WRITERS + " writers, " + ROUNDS + " rounds of " +
            OPERATIONS_PER_ROUND + " operations each; rounds ending with a word out of the healthy phase: " +
            unhealthyRounds + ", all healthy: " + healthyRounds);
        assertThat(unhealthyRounds).as("rounds that left a model ejected").isPositive();
        table.state(1, 250.0);
        table.state(2, 0.0);
        assertThat(table.allHealthy()).isFalse();
        table.state(1, Double.NaN);
        assertThat(table.allHealthy()).isFalse();
        table.state(2, Double.NaN);
        assertThat(table.allHealthy()).as("both words set healthy: the count is back to 0").isTrue();
    }

    // Random transitions on both models: failures and successes (ejections, decay), Retry-After, explicit ejections,
    // probes claimed, settled and given back, words set directly.
    private static void drive(
        final EjectionTable table,
        final ModelEjection[] models,
        final long seed,
        final CyclicBarrier roundStarts,
        final CyclicBarrier roundOver,
        final AtomicReference<Throwable> failure)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        long lease = seed << 32;
        try
        {
            for (int round = 0; round < ROUNDS; round++)
            {
                roundStarts.await(30, TimeUnit.SECONDS);
                for (int i = 0; i < OPERATIONS_PER_ROUND; i++)
                {
                    lease = step(table, models[random.nextInt(models.length)], random, lease);
                }
                roundOver.await(30, TimeUnit.SECONDS);
            }
        }
        catch (final Throwable ex)
        {
            failure.compareAndSet(null, ex);
        }
    }

    private static long step(
        final EjectionTable table, final ModelEjection model, final SplittableRandom random, final long lastLease)
    {
        long lease = lastLease + 1;
        switch (random.nextInt(9))
        {
            case 0, 1 -> model.onEnd(lease, RequestResult.FAILURE, 0);
            case 2, 3 -> model.onEnd(lease, RequestResult.SUCCESS, 0);
            case 4 -> model.onEnd(lease, RequestResult.RETRY_AFTER, 1 + random.nextInt(30));
            case 5 -> model.ejectForMillis(1 + random.nextInt(40));
            case 6 ->
            {
                if (model.admit() == ModelEjection.PROBE_CLAIMED)
                {
                    if (random.nextBoolean())
                    {
                        model.probe(lease);
                        model.onEnd(lease, random.nextBoolean() ? RequestResult.SUCCESS : RequestResult.FAILURE, 0);
                    }
                    else
                    {
                        model.unclaim();
                    }
                }
            }
            case 7 -> table.state(model.slot(), random.nextInt(4) == 0 ? Double.NaN : random.nextInt(3) * 10.0);
            default -> model.onProbeLost(lease - 1 - random.nextInt(4));
        }
        return lease;
    }
}
