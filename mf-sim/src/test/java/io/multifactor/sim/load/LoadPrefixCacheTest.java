package io.multifactor.sim.load;

import com.sun.net.httpserver.HttpServer;
import io.multifactor.fakes.BackendsProfile;
import io.multifactor.fakes.FakeBackends;
import io.multifactor.fakes.FakeModelProfile;
import io.multifactor.fakes.PrefixCaching;
import io.multifactor.sim.prompt.PromptTurn;
import io.multifactor.sim.prompt.PromptWorkload;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The load generator with prompts that share prefixes, over real loopback sockets: the sessions' turns reach the
 * servers with their history and their session key, and the fake servers' own prefix counters, read before and after
 * through mf-servers' parser, give the run's hit rate.
 */
@Timeout(120)
class LoadPrefixCacheTest
{
    private static LoadProfile profile(final PromptWorkload prompts, final String model)
    {
        return new LoadProfile(5, 20.0, 3.0, 10_000, 20.0, null, model, true, true, 20, 4, 0.0, 0.0, 1.0, 0, prompts);
    }

    @Test
    void shouldReportTheServersHitRateForSessionsThatResendTheirHistory()
    {
        final PromptWorkload chat = new PromptWorkload(1, 512, 0.0, 4, 0.25, 64, 64);
        final BackendsProfile servers = new BackendsProfile(1, List.of(FakeModelProfile.steady("m", 5, 1, 64, 4)
            .withPrefixCaching(new PrefixCaching(16, 100_000, 1e6))));
        try (FakeBackends backends = FakeBackends.start(servers))
        {
            final List<URI> metrics = List.of(URI.create("http://127.0.0.1:" + backends.port("m")));
            final PrefixCacheCounters before = PrefixCacheCounters.read(metrics);
            assertThat(before.serversReporting()).isEqualTo(1);
            assertThat(before.queriedTokens()).isZero();
            final LoadResults results = LoadGenerator.run("http://127.0.0.1:" + backends.port("m"),
                profile(chat, "m"), null);
            final PrefixCacheCounters run = PrefixCacheCounters.read(metrics).since(before);
            long promptTokens = 0;
            for (int i = 0; i < results.count(); i++)
            {
                assertThat(results.ok(i)).isTrue();
                promptTokens += results.promptTokens(i);
            }
            assertThat(results.count()).isGreaterThan(30);
            // The server reads role and content of each message (plus separators): a little more than the content.
            assertThat(run.queriedTokens()).isBetween((double)promptTokens, promptTokens * 1.05);
            assertThat(run.queriedTokens()).isEqualTo((double)backends.server("m").prefixQueriedTokens());
            assertThat(run.hitTokens()).isEqualTo((double)backends.server("m").prefixHitTokens());
            // One server: every turn finds its history, every session the shared system prompt.
            assertThat(run.hitRate()).isGreaterThan(0.7).isLessThan(1.0);
            assertThat(run.line()).startsWith("prefix cache hit rate: ").endsWith("1 server)");
            assertThat(results.inputTokensPerS()).isGreaterThan(0.0);
        }
    }

    @Test
    void shouldSayWhenTheServersReportNoPrefixCounters()
    {
        try (FakeBackends backends = FakeBackends.start(new BackendsProfile(1, List.of(
            FakeModelProfile.steady("m", 5, 1, 4, 4)))))
        {
            final PrefixCacheCounters none = PrefixCacheCounters.read(List.of(
                URI.create("http://127.0.0.1:" + backends.port("m") + "/v1"), URI.create("http://127.0.0.1:1")));
            assertThat(none.serversReporting()).isZero();
            assertThat(none.hitRate()).isNaN();
            assertThat(none.line()).contains("report no vllm:prefix_cache_queries_total");
        }
    }

    @Test
    void shouldSendEachTurnWithItsSessionKeyAndHistory() throws Exception
    {
        final Map<String, List<String>> bodiesBySession = new ConcurrentHashMap<>();
        final HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/v1/chat/completions", exchange ->
        {
            final String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            final String session = exchange.getRequestHeaders().getFirst("x-session-id");
            bodiesBySession.computeIfAbsent(session == null ? "(none)" : session,
                k -> java.util.Collections.synchronizedList(new java.util.ArrayList<>())).add(body);
            final byte[] answer = ("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\n" +
                "data: [DONE]\n\n").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("content-type", "text/event-stream");
            exchange.sendResponseHeaders(200, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        server.start();
        try
        {
            final PromptWorkload chat = new PromptWorkload(0, 1, 0.0, 3, 0.5, 8, 8);
            final LoadProfile load = profile(chat, "m");
            final List<PromptTurn> turns = LoadGenerator.turns(load);
            final LoadResults results = LoadGenerator.run("http://127.0.0.1:" + server.getAddress().getPort(), load,
                null);
            assertThat(results.count()).isEqualTo(turns.size());
            assertThat(bodiesBySession).doesNotContainKey("(none)");
            final Map<String, Integer> expected = new HashMap<>();
            for (final PromptTurn turn : turns)
            {
                expected.merge(Long.toHexString(turn.sessionId()), 1, Integer::sum);
            }
            assertThat(bodiesBySession.keySet()).isEqualTo(expected.keySet());
            int complete = 0;
            for (final Map.Entry<String, List<String>> session : bodiesBySession.entrySet())
            {
                final List<String> bodies = session.getValue();
                assertThat(bodies).hasSize(expected.get(session.getKey()));
                bodies.sort((a, b) -> Integer.compare(a.length(), b.length()));
                for (int k = 1; k < bodies.size(); k++)
                {
                    // Turn k + 1 resends turn k's messages (the array without its closing bracket) and adds two.
                    final String earlier = bodies.get(k - 1);
                    final String messages = earlier.substring(earlier.indexOf("\"messages\":["), earlier.lastIndexOf(']'));
                    assertThat(bodies.get(k)).contains(messages + ",{\"role\":\"assistant\"");
                }
                complete += bodies.size() == 3 ? 1 : 0;
            }
            assertThat(complete).isGreaterThan(5);
        }
        finally
        {
            server.stop(0);
        }
    }
}
