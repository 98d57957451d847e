package io.multifactor.sim.load;

import io.multifactor.fakes.BackendsProfile;
import io.multifactor.fakes.FakeBackends;
import io.multifactor.fakes.FakeModelProfile;
import io.multifactor.fakes.TimeWindow;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The load generator against fake servers on loopback: it sends exactly the seeded arrivals, measures TTFT and TPOT no
 * lower than the server's configured floor, counts 429s as errors, cuts what is left after the drain so a run is
 * bounded in time, and its percentiles agree with a plain sort-based reference.
 */
@Timeout(120)
class LoadGeneratorTest
{
    private static LoadProfile profile(final double rate, final double durationS, final int maxRequests,
        final double drainS, final String model)
    {
        return new LoadProfile(3, rate, durationS, maxRequests, drainS, null, model, true, true, 20, 8, 0.0, 0.0, 1.0);
    }

    @Test
    void shouldDrawTheSameArrivalsForTheSameSeedAtTheConfiguredRate()
    {
        final LoadProfile p = profile(100.0, 50.0, 100_000, 1.0, "m");
        final long[] a = LoadGenerator.arrivalsNs(p);
        assertThat(LoadGenerator.arrivalsNs(p)).containsExactly(a);
        assertThat(LoadGenerator.arrivalsNs(p.withSeed(4))).isNotEqualTo(a);
        // 50 s at 100/s: about 5000 arrivals (Poisson, standard deviation about 71).
        assertThat(a.length).isBetween(4700, 5300);
        for (int i = 1; i < a.length; i++)
        {
            assertThat(a[i]).isGreaterThanOrEqualTo(a[i - 1]);
        }
        assertThat(a[a.length - 1]).isLessThan(50_000_000_000L);
        assertThat(LoadGenerator.arrivalsNs(profile(1000.0, 50.0, 25, 1.0, "m"))).hasSize(25);
    }

    @Test
    void shouldSendEveryArrivalAndMeasureTtftAndTpotAboveTheServersFloor()
    {
        // sigma 0: every request takes exactly 60 ms to its first chunk and 5 ms per chunk, far inside the batch.
        try (FakeBackends backends = FakeBackends.start(new BackendsProfile(1,
            List.of(FakeModelProfile.steady("m", 60, 5, 64, 8)))))
        {
            final List<String> lines = new ArrayList<>();
            final LoadResults results = LoadGenerator.run("http://127.0.0.1:" + backends.port("m"),
                profile(200.0, 10.0, 40, 20.0, "m"), lines::add);
            assertThat(results.count()).isEqualTo(40);
            assertThat(backends.server("m").requests()).isEqualTo(40);
            final LoadSummary summary = LoadSummary.of(results, 0.0, 0.0);
            final LoadSummary.Row row = summary.row("m");
            assertThat(row.requests()).isEqualTo(40);
            assertThat(row.errors()).isZero();
            assertThat(summary.overall().attainment()).isEqualTo(1.0);
            for (int i = 0; i < results.count(); i++)
            {
                assertThat(results.model(i)).isEqualTo("m");
                assertThat(results.chunks(i)).isEqualTo(8);
                // Lower bounds only: the server never answers earlier; a loaded machine can be much later. A late
                // first chunk shortens the span TPOT is measured over, so the bound on one request is on the last
                // chunk (TTFT + 7 x TPOT: 60 ms + 7 x 5 ms at the server), not on its TPOT alone.
                assertThat(results.ttftMicros(i)).isGreaterThanOrEqualTo(59_000L);
                assertThat(results.tpotMicros(i)).isPositive();
                assertThat(results.ttftMicros(i) + 7 * results.tpotMicros(i)).isGreaterThanOrEqualTo(94_000L);
            }
            assertThat(row.ttftP50Ms()).isBetween(59.0, 5_000.0);
            assertThat(row.tpotP50Ms()).isBetween(3.0, 1_000.0);
            assertThat(lines).isNotEmpty();
            assertThat(lines.get(lines.size() - 1)).contains("sent 40/40 done 40 in flight 0 errors 0");
            assertThat(summary.table()).contains("m ").contains("(all)").contains("100.0%");
        }
    }

    @Test
    void shouldCountRateLimitedRequestsAsErrorsAndMissTheSlo()
    {
        final FakeModelProfile limited = FakeModelProfile.steady("m", 5, 1, 64, 2)
            .withRateLimited(List.of(new TimeWindow(0.0, 600.0, 1.0, 1.0, 1L, 1.0)));
        try (FakeBackends backends = FakeBackends.start(new BackendsProfile(1, List.of(limited))))
        {
            final LoadResults results = LoadGenerator.run("http://127.0.0.1:" + backends.port("m") + "/v1",
                profile(100.0, 10.0, 10, 10.0, "m"), null);
            final LoadSummary summary = LoadSummary.of(results, 500.0, 0.0);
            assertThat(summary.overall().requests()).isEqualTo(10);
            assertThat(summary.overall().errors()).isEqualTo(10);
            assertThat(summary.overall().attainment()).isEqualTo(0.0);
            for (int i = 0; i < results.count(); i++)
            {
                assertThat(results.status(i)).isEqualTo(429);
            }
            assertThat(summary.row(LoadSummary.NONE).requests()).isEqualTo(10);
        }
    }

    @Test
    void shouldJudgeAttainmentAgainstTheCeilings()
    {
        try (FakeBackends backends = FakeBackends.start(new BackendsProfile(1,
            List.of(FakeModelProfile.steady("m", 80, 2, 64, 3)))))
        {
            final LoadResults results = LoadGenerator.run("http://127.0.0.1:" + backends.port("m"),
                profile(100.0, 10.0, 10, 10.0, "m"), null);
            // Every TTFT is at least 80 ms: a 50 ms ceiling is missed by all, an hour-long one met by all.
            assertThat(LoadSummary.of(results, 50.0, 0.0).overall().attained()).isZero();
            assertThat(LoadSummary.of(results, 3_600_000.0, 0.0).overall().attained()).isEqualTo(10);
        }
    }

    @Test
    void shouldCutWhatIsLeftAfterTheDrainSoTheRunIsBounded()
    {
        // Streams of 1000 chunks 100 ms apart would take 100 s; the run must stop about 1 s after the last arrival.
        try (FakeBackends backends = FakeBackends.start(new BackendsProfile(1,
            List.of(FakeModelProfile.steady("m", 10, 100, 64, 1000)))))
        {
            final long startNs = System.nanoTime();
            final LoadProfile longStreams = new LoadProfile(3, 50.0, 0.5, 5, 1.0, null, "m", true, true, 20, 1000, 0.0,
                0.0, 1.0);
            final LoadResults results = LoadGenerator.run("http://127.0.0.1:" + backends.port("m"), longStreams, null);
            final double tookS = (System.nanoTime() - startNs) / 1e9;
            assertThat(results.count()).isEqualTo(5);
            assertThat(tookS).isLessThan(30.0);
            assertThat(results.elapsedS()).isGreaterThanOrEqualTo(1.0);
            for (int i = 0; i < results.count(); i++)
            {
                assertThat(results.ok(i)).isFalse();
                assertThat(results.complete(i)).isFalse();
            }
            final long deadline = System.nanoTime() + 20_000_000_000L;
            while (backends.server("m").cancelled() < 5 && System.nanoTime() < deadline)
            {
                Thread.onSpinWait();
            }
            assertThat(backends.server("m").cancelled()).as("the cut streams reached the server").isEqualTo(5);
        }
    }

    @Test
    void aClosedLoopShouldKeepItsConcurrencyOpenAndReplaceEachRequestThatEnds()
    {
        // 20 ms streams, 4 kept open for 1 s: far more than 4 requests, never more than 4 running on the server.
        try (FakeBackends backends = FakeBackends.start(new BackendsProfile(1,
            List.of(FakeModelProfile.steady("m", 10, 2, 64, 5)))))
        {
            final LoadProfile closed = new LoadProfile(3, 1.0, 1.0, 10_000, 5.0, null, "m", true, true, 20, 5, 0.0, 0.0,
                1.0, 4);
            final int[] mostRunning = new int[1];
            final Thread watch = new Thread(() ->
            {
                while (!Thread.currentThread().isInterrupted())
                {
                    mostRunning[0] = Math.max(mostRunning[0], backends.server("m").running());
                    Thread.onSpinWait();
                }
            });
            watch.setDaemon(true);
            watch.start();
            final LoadResults results;
            try
            {
                results = LoadGenerator.run("http://127.0.0.1:" + backends.port("m"), closed, null);
            }
            finally
            {
                watch.interrupt();
            }
            final LoadSummary summary = LoadSummary.of(results, 0, 0);
            System.out.printf("closed loop of 4 for 1 s: %d requests, %.1f requests/s without error%n", results.count(),
                summary.throughputPerS());
            assertThat(results.count()).isGreaterThan(8);
            assertThat(summary.overall().errors()).isZero();
            assertThat(mostRunning[0]).isBetween(1, 4);
            assertThat(summary.throughputPerS()).isCloseTo(results.count() / results.elapsedS(),
                org.assertj.core.data.Offset.offset(1e-9));
            assertThat(summary.table()).contains("requests/s without error");
        }
    }

    @Test
    void shouldReportAConnectFailureAsStatusZero()
    {
        final LoadResults results = LoadGenerator.run("http://127.0.0.1:1", profile(100.0, 10.0, 3, 5.0, "m"), null);
        assertThat(results.count()).isEqualTo(3);
        for (int i = 0; i < 3; i++)
        {
            assertThat(results.status(i)).isZero();
        }
        assertThat(LoadSummary.of(results, 0, 0).overall().errors()).isEqualTo(3);
    }

    @Test
    void shouldAgreeWithASortBasedNearestRankReference()
    {
        final Random random = new Random(11);
        for (int trial = 0; trial < 200; trial++)
        {
            final int n = 1 + random.nextInt(300);
            final long[] samples = new long[n];
            for (int i = 0; i < n; i++)
            {
                samples[i] = random.nextInt(1_000_000);
            }
            final long[] sorted = samples.clone();
            Arrays.sort(sorted);
            for (final int p : new int[] { 1, 50, 99, 100 })
            {
                // Reference: the smallest sample with at least p% of the samples at or below it.
                long expected = -1;
                for (final long candidate : sorted)
                {
                    int atOrBelow = 0;
                    for (final long s : samples)
                    {
                        atOrBelow += s <= candidate ? 1 : 0;
                    }
                    if (atOrBelow * 100L >= (long)p * n)
                    {
                        expected = candidate;
                        break;
                    }
                }
                assertThat(LoadSummary.percentileMs(sorted, p)).isEqualTo(expected / 1000.0);
            }
        }
        assertThat(LoadSummary.percentileMs(new long[0], 50)).isNaN();
    }
}
