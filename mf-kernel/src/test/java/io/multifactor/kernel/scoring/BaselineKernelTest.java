package io.multifactor.kernel.scoring;

import io.multifactor.api.DropReason;
import io.multifactor.api.Exclusions;
import io.multifactor.api.Outcome;
import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.kernel.clock.ManualClock;
import io.multifactor.kernel.plan.AlgorithmType;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.PeerParameters;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The baseline policies: each one's choice over live signals, that they ignore ceilings and weights, leave out only
 * excluded models, and fail when every candidate is excluded; and the peers' policies on their sources' hand cases.
 */
class BaselineKernelTest
{
    private static Plans plans(final int type)
    {
        return new PlansBuilder()
            .model("a", 0.9, 10.0)
            .model("b", 0.5, 1.0)
            .model("c", 0.1, 0.1)
            .decision("d").candidates("a", "b", "c").algorithmType(type)
            .slo(100.0, 100.0, 0.5, 1).minQuality(0.8).add()
            .build();
    }

    private static final class Run
    {
        final DecisionPlan plan;
        final CandidateSignals signals;
        final Selection out = new Selection();

        Run(final int type)
        {
            this(plans(type).decision(0));
        }

        Run(final DecisionPlan plan)
        {
            this.plan = plan;
            signals = CandidateSignals.standalone(plan.candidateCount());
        }

        Run observe(final int index, final double tpotMs, final double ttftMs, final long inflight)
        {
            signals.publishLatencyMs(index, tpotMs, ttftMs);
            signals.inflight(index, inflight);
            return this;
        }

        int select(final Exclusions exclusions, final Request request)
        {
            BaselineKernel.select(plan, signals, exclusions, request, out);
            return out.selectedIndex();
        }

        int select()
        {
            return select(null, null);
        }
    }

    @Test
    void shouldCompileABaselineWithoutItsCeilings()
    {
        final DecisionPlan plan = plans(AlgorithmType.ROUND_ROBIN).decision(0);
        assertThat(plan.algorithmType()).isEqualTo(AlgorithmType.ROUND_ROBIN);
        assertThat(plan.maxInflight()).isZero();
        assertThat(plan.maxTtftMs()).isZero();
        assertThat(plan.hasQualityFloor()).isFalse();
        assertThat(plans(AlgorithmType.MULTI_FACTOR).decision(0).maxInflight()).isEqualTo(1);
    }

    @Test
    void shouldRefuseAPlanOfABaselineWithACeiling()
    {
        final PlansBuilder.DecisionSpec spec =
            new PlansBuilder().decision("d").slo(0, 0, 0, 5).algorithmType(AlgorithmType.RANDOM);
        assertThatThrownBy(() -> new DecisionPlan(spec, 0, 0, new int[] { 0 }, new double[] { 1 }, new double[] { 1 },
            new double[] { 1 }))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("random decision takes no floor");
    }

    @Test
    void shouldTakeTurnsInModelRefsOrderWhateverTheSignals()
    {
        final Run run = new Run(AlgorithmType.ROUND_ROBIN).observe(0, 900.0, 900.0, 50).observe(2, 1.0, 1.0, 0);
        final int[] picks = new int[7];
        for (int i = 0; i < picks.length; i++)
        {
            picks[i] = run.select();
            assertThat(run.out.outcome()).isEqualTo(Outcome.SCORED);
            assertThat(run.out.droppedCount()).isZero();
        }
        assertThat(picks).containsExactly(0, 1, 2, 0, 1, 2, 0);
    }

    @Test
    void shouldTakeTurnsAmongTheCandidatesNotExcluded()
    {
        final Run run = new Run(AlgorithmType.ROUND_ROBIN);
        final Exclusions exclusions = new Exclusions();
        exclusions.add(run.plan.candidateModelId(1));
        final Set<Integer> picked = new HashSet<>();
        for (int i = 0; i < 6; i++)
        {
            picked.add(run.select(exclusions, null));
            assertThat(run.out.dropReason(1)).isEqualTo(DropReason.EXCLUDED);
        }
        assertThat(picked).containsExactlyInAnyOrder(0, 2);
    }

    @Test
    void shouldFailWhenEveryCandidateIsExcluded()
    {
        for (final int type : new int[] {
            AlgorithmType.ROUND_ROBIN, AlgorithmType.RANDOM, AlgorithmType.LEAST_INFLIGHT, AlgorithmType.LOWEST_LATENCY })
        {
            final Run run = new Run(type);
            final Exclusions all = new Exclusions();
            for (int i = 0; i < 3; i++)
            {
                all.add(run.plan.candidateModelId(i));
            }
            assertThat(run.select(all, null)).isEqualTo(-1);
            assertThat(run.out.outcome()).isEqualTo(Outcome.FAILED);
        }
    }

    @Test
    void shouldDrawUniformlyAndReproduciblyFromTheRequestsGenerator()
    {
        final Run run = new Run(AlgorithmType.RANDOM);
        final Request request = new Request().seed(42);
        final int[] counts = new int[3];
        final int[] firstDraws = new int[20];
        for (int i = 0; i < 3000; i++)
        {
            final int pick = run.select(null, request);
            counts[pick]++;
            if (i < firstDraws.length)
            {
                firstDraws[i] = pick;
            }
        }
        // 3000 uniform draws over 3: each about 1000 (the standard deviation is about 26).
        for (final int count : counts)
        {
            assertThat(count).isBetween(850, 1150);
        }
        final Request again = new Request().seed(42);
        for (final int expected : firstDraws)
        {
            assertThat(run.select(null, again)).isEqualTo(expected);
        }
    }

    @Test
    void shouldDrawWithoutARequestToo()
    {
        final Run run = new Run(AlgorithmType.RANDOM);
        final Set<Integer> picked = new HashSet<>();
        for (int i = 0; i < 200; i++)
        {
            picked.add(run.select());
        }
        assertThat(picked).containsExactlyInAnyOrder(0, 1, 2);
    }

    @Test
    void shouldPickTheFewestInflightTiesToTheEarlier()
    {
        final Run run = new Run(AlgorithmType.LEAST_INFLIGHT).observe(0, 1.0, 1.0, 5).observe(1, 900.0, 900.0, 2)
            .observe(2, 1.0, 1.0, 3);
        assertThat(run.select()).isEqualTo(1);
        run.observe(2, 1.0, 1.0, 2);
        assertThat(run.select()).isEqualTo(1);
        run.observe(0, 1.0, 1.0, 0);
        assertThat(run.select()).isZero();
        assertThat(run.out.score(0)).isEqualTo(1.0);
        assertThat(run.out.score(1)).isEqualTo(0.0);
    }

    @Test
    void shouldPickTheLowestLatencyAndAnUnobservedCandidateFirst()
    {
        final Run run = new Run(AlgorithmType.LOWEST_LATENCY).observe(0, 40.0, 300.0, 0).observe(1, 20.0, 900.0, 9)
            .observe(2, 30.0, 100.0, 0);
        // auto: TPOT when observed; b's 20 ms wins although it breaks the configured TTFT ceiling and is busiest.
        assertThat(run.select()).isEqualTo(1);
        run.observe(1, 40.0, 900.0, 9);
        assertThat(run.select()).isEqualTo(2);
        run.observe(2, 40.0, 100.0, 0);
        assertThat(run.select()).as("ties go to the earlier").isZero();
        run.observe(2, Double.NaN, Double.NaN, 0);
        assertThat(run.select()).as("unobserved first").isEqualTo(2);
        run.observe(1, Double.NaN, 50.0, 0);
        assertThat(run.select()).as("TTFT when no TPOT is observed; unobserved still first").isEqualTo(2);
        run.observe(2, Double.NaN, 60.0, 0);
        assertThat(run.select()).isEqualTo(0);
        assertThat(run.out.latencyMs(1)).isEqualTo(50.0);
    }

    @Test
    void shouldNeverLoseATurnUnderConcurrentSelections() throws Exception
    {
        final Run shared = new Run(AlgorithmType.ROUND_ROBIN);
        final int threads = 2;
        final int perThread = 30_000;
        final AtomicIntegerArray counts = new AtomicIntegerArray(3);
        final Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++)
        {
            workers[t] = new Thread(() ->
            {
                final Selection own = new Selection();
                for (int i = 0; i < perThread; i++)
                {
                    BaselineKernel.select(shared.plan, shared.signals, null, null, own);
                    counts.incrementAndGet(own.selectedIndex());
                }
            });
            workers[t].start();
        }
        for (final Thread worker : workers)
        {
            worker.join(60_000);
        }
        assertThat(shared.signals.nextTurn()).isEqualTo((long)threads * perThread);
        for (int i = 0; i < 3; i++)
        {
            assertThat(counts.get(i)).isEqualTo(threads * perThread / 3);
        }
    }

    // The peers' policies, each pinned on a small hand case taken from its source's own tests or code (named in each).

    private static Run inflight(final Run run, final long a, final long b, final long c)
    {
        run.signals.inflight(0, a);
        run.signals.inflight(1, b);
        run.signals.inflight(2, c);
        return run;
    }

    @Test
    void leastBusyShouldPickTheFewestInFlightAndTheFirstOfATie()
    {
        // LiteLLM tests/local_testing/test_least_busy_routing.py, test_router_get_available_deployments: request
        // counts {1: 10, 2: 54, 3: 100} pick deployment 1.
        final Run run = inflight(new Run(AlgorithmType.LITELLM_LEAST_BUSY), 10, 54, 100);
        assertThat(run.select(null, null)).isZero();
        // Same file, test_router_completion_streaming: three calls started one after another, each still in flight,
        // end with one call on every deployment (an unused deployment counts 0; the first of equal counts wins, as
        // _get_available_deployments keeps the first strict minimum).
        inflight(run, 0, 0, 0);
        final int[] counts = new int[3];
        for (int call = 0; call < 3; call++)
        {
            final int chosen = run.select(null, new Request().seed(call));
            assertThat(chosen).isEqualTo(call);
            counts[chosen]++;
            inflight(run, counts[0], counts[1], counts[2]);
        }
        assertThat(counts).containsExactly(1, 1, 1);
        // Above its ceiling (max_inflight 1) a candidate stays in: a peer's policy reads no ceiling.
        inflight(run, 3, 5, 3);
        assertThat(run.select(null, null)).isZero();
        assertThat(run.out.score(0)).isEqualTo(1.0);
    }

    @Test
    void leastRequestShouldDrawAmongTheTiedAtRandom()
    {
        // AIBrix pkg/plugins/gateway/algorithms/least_request_test.go, TestLeastRequest: "successful routing with
        // least request", running {p1: 1, p2: 2, p3: 3, p4: 9} routes to p1 (here over three: {1, 2, 3}).
        final Run run = inflight(new Run(AlgorithmType.AIBRIX_LEAST_REQUEST), 1, 2, 3);
        assertThat(run.select(null, new Request().seed(7))).isZero();
        // Same test, "multiple pods with same least requests": {p1: 1, p2: 5, p3: 1} routes to p1 or p3; the source
        // draws targetPods[rand.Intn(len(targetPods))], so both come up.
        inflight(run, 1, 5, 1);
        final int[] chosen = new int[3];
        for (int i = 0; i < 400; i++)
        {
            chosen[run.select(null, new Request().seed(i))]++;
        }
        assertThat(chosen[1]).isZero();
        assertThat(chosen[0]).isBetween(140, 260);
        assertThat(chosen[2]).isBetween(140, 260);
        // An excluded candidate never comes up, and the same request seed draws the same among a tie.
        assertThat(run.select(new Exclusions().add(run.plan.candidateModelId(0)), new Request().seed(7))).isEqualTo(2);
        inflight(run, 0, 0, 0);
        assertThat(run.select(null, new Request().seed(5))).isEqualTo(run.select(null, new Request().seed(5)));
    }

    @Test
    void simpleShuffleShouldDrawUniformlyOverTheModels()
    {
        // LiteLLM litellm/router_strategy/simple_shuffle.py: with no weight, rpm or tpm on the deployments it returns
        // random.choice(healthy_deployments); its docs (routing.md, "Simple Shuffle") call it the default strategy.
        final Run run = inflight(new Run(AlgorithmType.LITELLM_SIMPLE_SHUFFLE), 50, 0, 0);
        final int[] chosen = new int[3];
        for (int i = 0; i < 600; i++)
        {
            chosen[run.select(null, new Request().seed(i))]++;
        }
        for (final int count : chosen)
        {
            assertThat(count).isBetween(140, 260);
        }
        assertThat(run.select(new Exclusions().add(run.plan.candidateModelId(0)).add(run.plan.candidateModelId(2)), null))
            .isEqualTo(1);
    }

    // A run of a peer's stateful policy: standalone signals with peer signals on a manual clock (models a, b, c).
    private static Run peerRun(final int type, final PeerParameters parameters, final ManualClock clock)
    {
        final Plans plans = new PlansBuilder()
            .model("a", 0.9, 10.0)
            .model("b", 0.5, 1.0)
            .model("c", 0.1, 0.1)
            .decision("d").candidates("a", "b", "c").algorithmType(type).peerParameters(parameters).add()
            .build();
        final Run run = new Run(plans.decision(plans.decisionId("d")));
        run.signals.peers(PeerSignals.standalone(clock, new String[]{"a", "b", "c"},
            parameters.requestStatsWindowNs()));
        return run;
    }

    @Test
    void litellmLatencyShouldPickTheLowestMeanAndShuffleWithinTheBuffer()
    {
        // LiteLLM tests/local_testing/test_lowest_latency_routing.py, test_get_available_deployments: deployment 1234
        // answered in 3 s, 5678 in 2 s: 5678 is picked. Here a (3 s) and b (2 s), c having answered 5 s.
        final ManualClock clock = new ManualClock(1_000_000_000L);
        final Run run = peerRun(AlgorithmType.LITELLM_LATENCY, PeerParameters.DEFAULTS, clock);
        run.signals.peersOrNull().ttft(0).record(clock.nanoTime(), 3_000_000);
        run.signals.peersOrNull().ttft(1).record(clock.nanoTime(), 2_000_000);
        run.signals.peersOrNull().ttft(2).record(clock.nanoTime(), 5_000_000);
        for (int seed = 0; seed < 50; seed++)
        {
            assertThat(run.select(null, new Request().seed(seed))).isEqualTo(1);
        }
        assertThat(run.out.latencyMs(1)).isEqualTo(2000.0);
        // Same file, test_lowest_latency_routing_buffer: with lowest_latency_buffer 1 both deployments (3 s <= 2 s x 2)
        // come up in 50 picks; with 0 only the fastest (above). c (5 s > 4 s) never does.
        final Run buffered = peerRun(AlgorithmType.LITELLM_LATENCY, new PeerParameters(
            PeerParameters.DEFAULT_TTL_NS, 1.0, PeerParameters.DEFAULT_REQUEST_STATS_WINDOW_NS), clock);
        buffered.signals.peersOrNull().ttft(0).record(clock.nanoTime(), 3_000_000);
        buffered.signals.peersOrNull().ttft(1).record(clock.nanoTime(), 2_000_000);
        buffered.signals.peersOrNull().ttft(2).record(clock.nanoTime(), 5_000_000);
        final int[] chosen = new int[3];
        for (int seed = 0; seed < 50; seed++)
        {
            chosen[buffered.select(null, new Request().seed(seed))]++;
        }
        assertThat(chosen[0]).isPositive();
        assertThat(chosen[1]).isPositive();
        assertThat(chosen[2]).isZero();
        // An excluded candidate never comes up: excluding b leaves a (3 s), the lowest of what is left.
        assertThat(run.select(new Exclusions().add(run.plan.candidateModelId(1)), new Request().seed(3))).isZero();
    }

    @Test
    void litellmLatencyShouldTryAnUnobservedCandidateFirstAndForgetSamplesPastTheTtl()
    {
        // LiteLLM gives a deployment it has no latency for "latency": [0] (_get_available_deployments), so it wins;
        // test_lowest_latency_routing_first_pick: when every latency is 0 the pick is random, not always the first.
        final ManualClock clock = new ManualClock();
        final PeerParameters ttl10s = new PeerParameters(10_000_000_000L, 0.0,
            PeerParameters.DEFAULT_REQUEST_STATS_WINDOW_NS);
        final Run run = peerRun(AlgorithmType.LITELLM_LATENCY, ttl10s, clock);
        final Set<Integer> firstPicks = new HashSet<>();
        for (int seed = 0; seed < 30; seed++)
        {
            firstPicks.add(run.select(null, new Request().seed(seed)));
        }
        assertThat(firstPicks).containsExactlyInAnyOrder(0, 1, 2);
        run.signals.peersOrNull().ttft(0).record(clock.nanoTime(), 100_000);
        run.signals.peersOrNull().ttft(1).record(clock.nanoTime(), 200_000);
        assertThat(run.select(null, new Request().seed(1))).isEqualTo(2);
        run.signals.peersOrNull().ttft(2).record(clock.nanoTime(), 900_000);
        assertThat(run.select(null, new Request().seed(1))).isZero();
        // The mean is over the last 10: eleven samples of 1 s after one of 0.1 s leave a at 1 s, b wins.
        for (int i = 0; i < 11; i++)
        {
            run.signals.peersOrNull().ttft(0).record(clock.nanoTime(), 1_000_000);
        }
        assertThat(run.select(null, new Request().seed(1))).isEqualTo(1);
        // ttl 10 s: at 10 s every sample still counts; past it, none does, and every candidate is unobserved again.
        clock.advance(10, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(run.select(null, new Request().seed(1))).isEqualTo(1);
        clock.advance(1, java.util.concurrent.TimeUnit.NANOSECONDS);
        run.signals.peersOrNull().ttft(2).record(clock.nanoTime(), 5_000_000);
        assertThat(run.select(null, new Request().seed(1))).isNotEqualTo(2);
        assertThat(run.out.latencyMs(0)).isZero();
    }

    @Test
    void litellmLatencyShouldAverageTpotWhenTheDecisionsMetricIsTpot()
    {
        // test_lowest_latency_routing_time_to_first_token: a stream goes by time to first token, a non-stream by the
        // latency per output token; here the decision's latency_metric names the ring (auto and ttft: TTFT).
        final ManualClock clock = new ManualClock();
        final Plans plans = new PlansBuilder().model("a", 0.9, 10.0).model("b", 0.5, 1.0)
            .decision("d").candidates("a", "b").algorithmType(AlgorithmType.LITELLM_LATENCY)
            .latencyMetric(io.multifactor.api.LatencyMetric.TPOT).add().build();
        final Run run = new Run(plans.decision(0));
        run.signals.peers(PeerSignals.standalone(clock, new String[]{"a", "b"},
            PeerParameters.DEFAULT_REQUEST_STATS_WINDOW_NS));
        // a: fast first token, slow tokens; b: the other way round.
        run.signals.peersOrNull().ttft(0).record(0, 1_000_000);
        run.signals.peersOrNull().tpot(0).record(0, 60_000);
        run.signals.peersOrNull().ttft(1).record(0, 3_000_000);
        run.signals.peersOrNull().tpot(1).record(0, 20_000);
        assertThat(run.select(null, new Request().seed(2))).isEqualTo(1);
    }

    @Test
    void prodstackSessionShouldKeepASessionOnOneCandidateAndMoveOnlyTheKeysOfOneLeftOut()
    {
        // production-stack src/tests/test_session_router.py, test_route_request_with_session_id: the same session id
        // always maps to the same endpoint; test_consistent_hashing_remove_node_multiple_sessions: removing one
        // endpoint remaps fewer than all sessions. Here over 200 keys: exactly the keys of the one left out move.
        final ManualClock clock = new ManualClock();
        final Run run = peerRun(AlgorithmType.PRODSTACK_SESSION, PeerParameters.DEFAULTS, clock);
        final int[] before = new int[200];
        final int[] perCandidate = new int[3];
        for (int key = 0; key < before.length; key++)
        {
            before[key] = run.select(null, new Request().session(key * 7919L + 1));
            assertThat(run.select(null, new Request().session(key * 7919L + 1))).isEqualTo(before[key]);
            perCandidate[before[key]]++;
        }
        for (final int count : perCandidate)
        {
            assertThat(count).isBetween(40, 95);
        }
        final Exclusions withoutB = new Exclusions().add(run.plan.candidateModelId(1));
        for (int key = 0; key < before.length; key++)
        {
            final int after = run.select(withoutB, new Request().session(key * 7919L + 1));
            assertThat(after).isNotEqualTo(1);
            if (before[key] != 1)
            {
                assertThat(after).isEqualTo(before[key]);
            }
        }
    }

    @Test
    void prodstackSessionShouldSendAKeylessRequestToTheLowestQps()
    {
        // test_route_request_without_session_id: QPS {engine1: 10, engine2: 5} routes to engine2, and _qps_routing
        // returns at once an endpoint it has no statistics for. Here: nothing routed yet, the first candidate.
        final ManualClock clock = new ManualClock();
        final PeerParameters window10s = new PeerParameters(PeerParameters.DEFAULT_TTL_NS, 0.0, 10_000_000_000L);
        final Run run = peerRun(AlgorithmType.PRODSTACK_SESSION, window10s, clock);
        assertThat(run.select()).isZero();
        assertThat(run.out.load(0)).isEqualTo(ProdstackSession.NEVER_ROUTED);
        final PeerSignals peers = run.signals.peersOrNull();
        for (int i = 0; i < 100; i++)
        {
            peers.countRouted(0);
        }
        // a has had requests, b none: b, then c.
        assertThat(run.select()).isEqualTo(1);
        for (int i = 0; i < 50; i++)
        {
            peers.countRouted(1);
        }
        assertThat(run.select()).isEqualTo(2);
        peers.countRouted(2);
        // QPS over the 10 s window: a 10, b 5, c 0.1: c; then c gets 200 and b (5/s) has the lowest.
        assertThat(run.select()).isEqualTo(2);
        assertThat(run.out.load(0)).isEqualTo(10.0);
        for (int i = 0; i < 200; i++)
        {
            peers.countRouted(2);
        }
        assertThat(run.select()).isEqualTo(1);
        // Past the window every count is 0: the tie goes to the earlier (the source's strict <).
        clock.advance(11, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(run.select()).isZero();
        assertThat(run.out.load(1)).isZero();
    }
}
