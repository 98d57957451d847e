package io.multifactor.serving;

import io.multifactor.api.Request;
import io.multifactor.config.LoadedConfig;
import io.multifactor.kernel.clock.ManualClock;
import io.multifactor.kernel.engine.MultiFactorEngine;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A model's {@code backend_choice: T}: the rule of each type among the model's three backends (weights 60, 20, 20), on
 * the hand cases of its source, with the in-flight counts and TTFT samples its attempts' tickets feed.
 */
class BackendRulesTest
{
    private final ManualClock clock = new ManualClock(1_000_000_000L);
    private MultiFactorEngine engine;

    @AfterEach
    void close()
    {
        if (engine != null)
        {
            engine.close();
        }
    }

    private static String config(final String backendChoice)
    {
        return String.join("\n",
            "models:",
            "  - name: m",
            "    backend_refs:",
            "      - {name: m1, endpoint: 127.0.0.1:9401, weight: 60}",
            "      - {name: m2, endpoint: 127.0.0.1:9402, weight: 20}",
            "      - {name: m3, endpoint: 127.0.0.1:9403, weight: 20}",
            "    backend_choice: " + backendChoice,
            "decisions:",
            "  - name: d",
            "    modelRefs: [{model: m}]",
            "");
    }

    private BackendChooser chooser(final String backendChoice)
    {
        final LoadedConfig loaded = Engines.load(config(backendChoice));
        engine = MultiFactorEngine.builder(loaded.plans()).clock(clock).build();
        return BackendChooser.following(loaded, engine);
    }

    private int model()
    {
        return engine.modelId("m");
    }

    private static int index(final Backend backend)
    {
        return Integer.parseInt(backend.name().substring(1)) - 1;
    }

    // An attempt as the gateway makes it: started, its backend chosen with its ticket.
    private RequestLifecycle attempt(final BackendChooser chooser, final Request sessionOrNull)
    {
        final RequestLifecycle lifecycle = new RequestLifecycle(engine);
        lifecycle.session(sessionOrNull != null && sessionOrNull.hasSession(),
            sessionOrNull == null ? 0L : sessionOrNull.sessionKey());
        lifecycle.start(engine.decisionId("d"), null, Request.NO_TOKENS, Request.NO_TOKENS);
        return lifecycle;
    }

    private static Backend choose(final BackendChooser chooser, final RequestLifecycle lifecycle)
    {
        return chooser.choose(lifecycle.modelId(), new PromptBlocks(), 0L, lifecycle.prefixTicket());
    }

    @Test
    void roundRobinShouldTakeTheBackendsInTurnWhateverTheirWeights()
    {
        final BackendChooser chooser = chooser("round_robin");
        for (int i = 0; i < 9; i++)
        {
            assertThat(index(chooser.choose(model()))).isEqualTo(i % 3);
        }
    }

    @Test
    void randomShouldDrawUniformlyAndSimpleShuffleByWeight()
    {
        final BackendChooser uniform = chooser("random");
        final int[] drawn = new int[3];
        for (int i = 0; i < 600; i++)
        {
            drawn[index(uniform.choose(model()))]++;
        }
        for (final int count : drawn)
        {
            assertThat(count).isBetween(140, 260);
        }
        close();
        // LiteLLM litellm/router_strategy/simple_shuffle.py: with a weight on each deployment it draws
        // random.choices(healthy_deployments, weights=weights); 60/20/20 here.
        final BackendChooser shuffle = chooser("litellm_simple_shuffle");
        final int[] weighted = new int[3];
        for (int i = 0; i < 1000; i++)
        {
            weighted[index(shuffle.choose(model()))]++;
        }
        assertThat(weighted[0]).isBetween(540, 660);
        assertThat(weighted[1]).isBetween(140, 260);
        assertThat(weighted[2]).isBetween(140, 260);
    }

    @Test
    void leastBusyShouldSpreadOpenAttemptsAndRefillTheBackendWhoseAttemptEnded()
    {
        // LiteLLM tests/local_testing/test_least_busy_routing.py, test_router_completion_streaming: calls started one
        // after another, each still in flight, end with one on every deployment; the first of a tie wins.
        for (final String type : new String[] { "litellm_least_busy", "least_inflight" })
        {
            final BackendChooser chooser = chooser(type);
            final RequestLifecycle[] open = new RequestLifecycle[3];
            for (int i = 0; i < 3; i++)
            {
                open[i] = attempt(chooser, null);
                assertThat(index(choose(chooser, open[i]))).as(type).isEqualTo(i);
            }
            assertThat(chooser.backendSignals(model())).extracting(BackendSignals::inflight).containsExactly(1L, 1L, 1L);
            // The second ends (a failure counts out too): the next attempt goes there.
            open[1].fail(503, 0);
            assertThat(index(choose(chooser, attempt(chooser, null)))).as(type).isEqualTo(1);
            open[0].cancel();
            open[0].cancel();
            assertThat(chooser.backendSignals(model())).extracting(BackendSignals::inflight).containsExactly(0L, 1L, 1L);
            close();
        }
    }

    @Test
    void leastRequestShouldDrawAmongTheTiedAtRandom()
    {
        // AIBrix pkg/plugins/gateway/algorithms/least_request_test.go, "multiple pods with same least requests":
        // running {p1: 1, p2: 5, p3: 1} routes to p1 or p3, drawn at random.
        final BackendChooser chooser = chooser("aibrix_least_request");
        final RequestLifecycle[] open = new RequestLifecycle[7];
        final List<BackendSignals> signals = chooser.backendSignals(model());
        // Open 1, 5 and 1 attempts on m1, m2, m3 by hand: each ticket counts its backend in.
        final int[] wanted = { 0, 1, 1, 1, 1, 1, 2 };
        for (int i = 0; i < wanted.length; i++)
        {
            open[i] = attempt(chooser, null);
            open[i].prefixTicket().openRule(signals.get(wanted[i]));
        }
        assertThat(signals).extracting(BackendSignals::inflight).containsExactly(1L, 5L, 1L);
        final Set<Integer> chosen = new HashSet<>();
        for (int i = 0; i < 200; i++)
        {
            chosen.add(index(chooser.choose(model())));
        }
        assertThat(chosen).containsExactlyInAnyOrder(0, 2);
    }

    @Test
    void latencyRulesShouldFollowTheTtftTheAttemptsRecorded()
    {
        // LiteLLM tests/local_testing/test_lowest_latency_routing.py, test_get_available_deployments: 3 s against 2 s
        // picks the 2 s deployment; an unused deployment (latency [0]) is tried first.
        final BackendChooser chooser = chooser("litellm_latency");
        final List<BackendSignals> signals = chooser.backendSignals(model());
        signals.get(0).ttft().record(clock.nanoTime(), 3_000_000);
        signals.get(1).ttft().record(clock.nanoTime(), 2_000_000);
        assertThat(index(chooser.choose(model()))).isEqualTo(2);
        // An attempt's first content chunk feeds its backend's TTFT: 5 s on m3 leaves m2 the fastest.
        final RequestLifecycle lifecycle = attempt(chooser, null);
        assertThat(index(choose(chooser, lifecycle))).isEqualTo(2);
        lifecycle.onRequestSent(clock.nanoTime());
        lifecycle.onResponseStatus(200, true);
        final byte[] chunk = "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n"
            .getBytes(java.nio.charset.StandardCharsets.UTF_8);
        lifecycle.onResponseBytes(chunk, 0, chunk.length, clock.nanoTime() + 5_000_000_000L);
        lifecycle.complete(200);
        assertThat(signals.get(2).ttft().meanMs(clock.nanoTime(), Long.MAX_VALUE)).isEqualTo(5000.0);
        for (int i = 0; i < 20; i++)
        {
            assertThat(index(chooser.choose(model()))).isEqualTo(1);
        }
        close();
        // test_lowest_latency_routing_buffer: with lowest_latency_buffer 1, 3 s (<= 2 s x 2) shares the picks.
        final BackendChooser buffered = chooser("{type: litellm_latency, litellm_latency: {lowest_latency_buffer: 1}}");
        buffered.backendSignals(model()).get(0).ttft().record(clock.nanoTime(), 3_000_000);
        buffered.backendSignals(model()).get(1).ttft().record(clock.nanoTime(), 2_000_000);
        buffered.backendSignals(model()).get(2).ttft().record(clock.nanoTime(), 5_000_000);
        final Set<Integer> chosen = new HashSet<>();
        for (int i = 0; i < 100; i++)
        {
            chosen.add(index(buffered.choose(model())));
        }
        assertThat(chosen).containsExactlyInAnyOrder(0, 1);
        close();
        // lowest_latency (ours): the lowest mean, an unobserved backend first, ties to the earlier.
        final BackendChooser lowest = chooser("lowest_latency");
        lowest.backendSignals(model()).get(0).ttft().record(clock.nanoTime(), 3_000_000);
        assertThat(index(lowest.choose(model()))).isEqualTo(1);
        lowest.backendSignals(model()).get(1).ttft().record(clock.nanoTime(), 4_000_000);
        lowest.backendSignals(model()).get(2).ttft().record(clock.nanoTime(), 1_000_000);
        assertThat(index(lowest.choose(model()))).isEqualTo(2);
    }

    @Test
    void prodstackSessionShouldHashTheAttemptsSessionKeyAndSendKeylessOnesToTheLowestRate()
    {
        // production-stack src/tests/test_session_router.py: the same session id always maps to the same endpoint
        // (test_route_request_with_session_id); without one, the lowest QPS (test_route_request_without_session_id).
        final BackendChooser chooser = chooser("{type: prodstack_session, prodstack_session: {request_stats_window: 10s}}");
        final int[] homes = new int[3];
        for (long key = 1; key <= 60; key++)
        {
            final RequestLifecycle first = attempt(chooser, new Request().session(key));
            final int home = index(choose(chooser, first));
            first.complete(200);
            homes[home]++;
            for (int turn = 0; turn < 3; turn++)
            {
                final RequestLifecycle again = attempt(chooser, new Request().session(key));
                assertThat(index(choose(chooser, again))).isEqualTo(home);
                again.complete(200);
            }
        }
        for (final int count : homes)
        {
            assertThat(count).isBetween(8, 35);
        }
        close();
        final BackendChooser keyless = chooser("prodstack_session");
        // Never sent a request: m1, m2, m3 in turn; then the lowest rate over the window, the earlier of a tie.
        assertThat(index(keyless.choose(model()))).isZero();
        assertThat(index(keyless.choose(model()))).isEqualTo(1);
        assertThat(index(keyless.choose(model()))).isEqualTo(2);
        keyless.choose(model());
        // 60 s window: two requests on m1 are 2/60 per second, one on m2 and on m3 1/60.
        assertThat(keyless.backendSignals(model())).extracting(b -> Math.round(b.routed().qps(clock.nanoTime()) * 60))
            .containsExactly(2L, 1L, 1L);
        assertThat(index(keyless.choose(model()))).isEqualTo(1);
        assertThat(index(keyless.choose(model()))).isEqualTo(2);
        clock.advance(61, TimeUnit.SECONDS);
        assertThat(index(keyless.choose(model()))).isZero();
    }
}
