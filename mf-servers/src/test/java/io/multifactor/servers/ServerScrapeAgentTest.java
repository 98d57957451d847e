package io.multifactor.servers;

import io.multifactor.config.ConfigLoader;
import io.multifactor.config.LoadedConfig;
import io.multifactor.kernel.signal.ServerBackend;
import io.multifactor.kernel.signal.ServerKind;
import io.multifactor.kernel.signal.ServerLoadTable;
import io.multifactor.kernel.signal.ServerMetricsSettings;
import io.multifactor.kernel.signal.WhenStale;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

@Timeout(60)
class ServerScrapeAgentTest
{
    private static final long MS = 1_000_000L;
    private static final byte[] VLLM = Fixtures.bytes("vllm-v1.metrics");
    private static final byte[] SGLANG = Fixtures.bytes("sglang.metrics");

    private final List<AutoCloseable> open = new ArrayList<>();
    private final List<ServerScrapeAgent> agents = new ArrayList<>();
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void closeAll() throws Exception
    {
        release.countDown();
        for (int i = open.size() - 1; i >= 0; i--)
        {
            open.get(i).close();
        }
        for (final ServerScrapeAgent agent : agents)
        {
            assertThat(agent.agentErrors()).as("cycles ended by an exception").isZero();
        }
    }

    private MetricsServer server(final MetricsServer.Answer answer) throws IOException
    {
        final MetricsServer server = new MetricsServer(answer);
        open.add(server);
        return server;
    }

    private ServerScrapeAgent agent(final ServerMetricsSettings settings, final List<ServerBackend> backends)
    {
        final ServerScrapeAgent agent = new ServerScrapeAgent(settings, backends, System::nanoTime);
        open.add(agent);
        agents.add(agent);
        return agent.start();
    }

    private static ServerBackend backend(final String model, final MetricsServer server, final ServerKind kind)
    {
        return new ServerBackend(model, false, "127.0.0.1", server.port(), kind);
    }

    private static ServerMetricsSettings settings(final long everyMs, final long timeoutMs, final long staleMs)
    {
        return new ServerMetricsSettings(everyMs * MS, "/metrics", timeoutMs * MS, staleMs * MS, WhenStale.IGNORE);
    }

    private static void await(final String what, final long timeoutMs, final BooleanSupplier condition)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + timeoutMs * MS;
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(5);
        }
    }

    @Test
    void shouldScrapeVllmAndSglangServersIntoTheTable() throws Exception
    {
        final MetricsServer vllm = server(MetricsServer.body(VLLM));
        final MetricsServer sglang = server(MetricsServer.body(SGLANG));
        final ServerScrapeAgent agent = agent(settings(50, 1000, 2000),
            List.of(backend("v", vllm, ServerKind.VLLM), backend("s", sglang, ServerKind.SGLANG)));
        final ServerLoadTable table = agent.table();
        final int v = table.modelIndex("v");
        final int s = table.modelIndex("s");
        await("both fresh", 10_000, () -> table.anyFresh(v, System.nanoTime()) && table.anyFresh(s, System.nanoTime()));
        final long now = System.nanoTime();
        assertThat(table.queue(v, now)).isEqualTo(5.0);
        assertThat(table.kvCache(v, now)).isEqualTo(0.5);
        assertThat(table.running(0)).isEqualTo(5.0);
        assertThat(table.queue(s, now)).isEqualTo(7.0);
        assertThat(table.kvCache(s, now)).isEqualTo(0.28);
        await("a few scrapes", 10_000, () -> agent.counts("v", "http://127.0.0.1:" + vllm.port()).ok() >= 3);
        assertThat(vllm.paths()).allMatch("/metrics"::equals);
        final ScrapeCounts counts = agent.counts("s", "http://127.0.0.1:" + sglang.port());
        assertThat(counts.ok()).isPositive();
        assertThat(counts.failed() + counts.refused() + counts.linesMalformed() + counts.samplesRefused()).isZero();
        System.out.println("ServerScrapeAgentTest: vLLM W=5 K=0.5, SGLang W=7 K=0.28 after " + vllm.requests() + " and " +
            sglang.requests() + " scrapes");
    }

    @Test
    void aBackendThatGoesSilentShouldGoStaleAfterStaleAfter() throws Exception
    {
        final MetricsServer server = server(MetricsServer.body(VLLM));
        final ServerScrapeAgent agent = agent(settings(50, 100, 400), List.of(backend("v", server, ServerKind.VLLM)));
        final ServerLoadTable table = agent.table();
        await("fresh", 10_000, () -> table.isFresh(0, System.nanoTime()));
        server.answer((exchange, n) -> release.await(10, TimeUnit.SECONDS)); // answers nothing any more
        final long silentAt = System.nanoTime();
        await("stale", 10_000, () -> !table.isFresh(0, System.nanoTime()));
        final long staleAt = System.nanoTime();
        final long lastNs = table.lastResponseNs(0);
        assertThat(staleAt - lastNs).isGreaterThanOrEqualTo(400 * MS);
        assertThat(lastNs).isLessThanOrEqualTo(silentAt + 100 * MS); // no good scrape after the silence (one may be in flight)
        assertThat(table.queue(0, staleAt)).isNaN();
        assertThat(table.waiting(0)).isEqualTo(5.0); // kept, but stale
        await("a timeout counted", 10_000, () -> agent.counts("v", "http://127.0.0.1:" + server.port()).failed() >= 1);
        System.out.println("ServerScrapeAgentTest: stale " + (staleAt - lastNs) / MS + " ms after the last good response " +
            "(stale_after 400 ms)");
    }

    @Test
    void aServerThatAnswersInTenSecondsShouldNotDelayTheOthers() throws Exception
    {
        final MetricsServer slow = server((exchange, n) ->
        {
            release.await(10, TimeUnit.SECONDS);
            MetricsServer.body(VLLM).answer(exchange, n);
        });
        final MetricsServer fast = server(MetricsServer.body(VLLM));
        final ServerScrapeAgent agent =
            agent(settings(50, 200, 1000), List.of(backend("a", slow, ServerKind.VLLM), backend("a", fast, ServerKind.VLLM)));
        final long start = System.nanoTime();
        await("ten good scrapes of the fast server", 20_000,
            () -> agent.counts("a", "http://127.0.0.1:" + fast.port()).ok() >= 10);
        final long elapsedMs = (System.nanoTime() - start) / MS;
        await("the slow one timed out", 10_000, () -> agent.counts("a", "http://127.0.0.1:" + slow.port()).failed() >= 1);
        assertThat(agent.counts("a", "http://127.0.0.1:" + slow.port()).ok()).isZero();
        // Were scrapes serial, each of the slow server's would hold the others for its 200 ms timeout (or 10 s).
        assertThat(elapsedMs).isLessThan(10_000);
        assertThat(agent.table().queue(0, System.nanoTime())).isEqualTo(5.0);
        System.out.println("ServerScrapeAgentTest: 10 scrapes of the fast server in " + elapsedMs + " ms beside one " +
            "that answers in 10 s (every 50 ms, timeout 200 ms)");
    }

    @Test
    void aBodyOverFourMebibytesShouldBeRefusedAndOneAtTheLimitRead() throws Exception
    {
        final byte[] atLimit = padded(ServerScrapeAgent.MAX_BODY_BYTES);
        final byte[] overLimit = padded(ServerScrapeAgent.MAX_BODY_BYTES + 1);
        final MetricsServer server = server(MetricsServer.body(overLimit));
        final ServerScrapeAgent agent = agent(settings(50, 2000, 5000), List.of(backend("v", server, ServerKind.VLLM)));
        final String key = "http://127.0.0.1:" + server.port();
        await("refused", 10_000, () -> agent.counts("v", key).refused() >= 1);
        assertThat(agent.table().lastResponseNs(0)).isEqualTo(ServerLoadTable.NEVER);
        server.answer(MetricsServer.body(atLimit));
        await("read", 10_000, () -> agent.counts("v", key).ok() >= 1);
        assertThat(agent.table().queue(0, System.nanoTime())).isEqualTo(5.0);
    }

    /** The vLLM fixture, then comment lines up to exactly {@code size} bytes. */
    private static byte[] padded(final int size)
    {
        final byte[] body = new byte[size];
        System.arraycopy(VLLM, 0, body, 0, VLLM.length);
        int at = VLLM.length;
        while (at < size)
        {
            final int line = Math.min(100, size - at);
            body[at] = '#';
            for (int i = 1; i < line - 1; i++)
            {
                body[at + i] = 'x';
            }
            body[at + line - 1] = '\n';
            at += line;
        }
        return body;
    }

    @Test
    void hostileBodiesShouldBeCountedAndNeverStored() throws Exception
    {
        final MetricsServer server = server(MetricsServer.status(200));
        final byte[] garbage = new byte[50_000];
        new java.util.Random(1).nextBytes(garbage);
        final List<MetricsServer.Answer> hostile = List.of(
            MetricsServer.body(garbage),
            MetricsServer.body(text("vllm:num_requests_waiting NaN\nvllm:kv_cache_usage_perc 0.5\n")),
            MetricsServer.body(text("vllm:num_requests_waiting -3\nvllm:kv_cache_usage_perc 0.5\n")),
            MetricsServer.body(text("vllm:num_requests_waiting 3\nvllm:kv_cache_usage_perc 1.5\n")),
            MetricsServer.body(text("vllm:num_requests_waiting +Inf\nvllm:kv_cache_usage_perc 0.5\n")),
            MetricsServer.body(text("# only comments\n")),
            // a million series (37 MB) and a 100 MB body: cut off at the limit
            server.streamed(text("vllm:num_requests_waiting{id=\"123456\"} 1\n"), 1_000_000L * 37),
            server.streamed(text("# padding padding padding padding padding padding padding padding\n"), 100L << 20));
        final ServerScrapeAgent agent = agent(settings(50, 3000, 5000), List.of(backend("v", server, ServerKind.VLLM)));
        final String key = "http://127.0.0.1:" + server.port();
        for (int i = 0; i < hostile.size(); i++)
        {
            final long before = agent.counts("v", key).refused();
            server.answer(hostile.get(i));
            final int answer = i;
            await("hostile body " + i + " refused", 15_000, () -> agent.counts("v", key).refused() > before);
            assertThat(agent.table().lastResponseNs(0)).as("body %d", answer).isEqualTo(ServerLoadTable.NEVER);
        }
        final ScrapeCounts counts = agent.counts("v", key);
        assertThat(counts.ok()).isZero();
        assertThat(counts.samplesRefused()).isGreaterThanOrEqualTo(4);
        assertThat(counts.linesMalformed()).isPositive();
        // The agent stopped reading each body at 4 MiB and closed: of the 137 MB offered, the server got out less than
        // the first body alone (what it wrote past 4 MiB went into the loopback socket buffers before the close, which
        // takes longer on a busy machine: 19 MB was seen at load 6).
        assertThat(server.bytesWritten()).isLessThan(1_000_000L * 37);
        server.answer(MetricsServer.body(VLLM));
        await("a good body after them", 15_000, () -> agent.counts("v", key).ok() >= 1);
        assertThat(agent.table().kvCache(0, System.nanoTime())).isEqualTo(0.5);
        System.out.println("ServerScrapeAgentTest: hostile bodies " + counts + ", " + server.bytesWritten() / (1 << 20) +
            " MiB written by the server for 137 MB offered");
    }

    private static byte[] text(final String text)
    {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void aReloadShouldKeepTheSignalsOfTheBackendsThatStay() throws Exception
    {
        final MetricsServer s1 = server(MetricsServer.body(VLLM));
        final MetricsServer s2 = server(MetricsServer.body(VLLM));
        final MetricsServer s3 = server(MetricsServer.body(SGLANG));
        final LoadedConfig first = ConfigLoader.load("first.yaml", String.join("\n",
            "models:",
            "  - name: a",
            "    server: vllm",
            "    backend_refs: [{endpoint: '127.0.0.1:" + s1.port() + "'}, {endpoint: '127.0.0.1:" + s2.port() + "'}]",
            "  - name: b",
            "    server: sglang",
            "    backend_refs: [{base_url: 'http://127.0.0.1:" + s3.port() + "/v1'}]",
            "decisions:",
            "  - {name: d, modelRefs: [{model: a}, {model: b}]}",
            "signals:",
            "  server_metrics: {every: 50ms, timeout: 500ms, stale_after: 60s}",
            ""), null);
        final ServerScrapeAgent agent = agent(first.serverMetrics(), first.serverBackends());
        final ServerLoadTable before = agent.table();
        await("all fresh", 10_000, () -> before.anyFresh(0, System.nanoTime()) && before.isFresh(1, System.nanoTime()) &&
            before.anyFresh(1, System.nanoTime()));
        final String k1 = "http://127.0.0.1:" + s1.port();
        // s1 stops answering well: from now on only a carried value can be in the new table (fresh for 60 s after its
        // last good answer, so that the awaits of a busy machine never make it stale: 10 s was once seen to).
        s1.answer(MetricsServer.status(503));
        await("s1 failing", 10_000, () -> agent.counts("a", k1).failed() >= 1);
        final long s1Last = before.lastResponseNs(before.backendIndex("a", k1));
        final long s1Ok = agent.counts("a", k1).ok();
        final LoadedConfig second = ConfigLoader.load("second.yaml", String.join("\n",
            "models:",
            "  - name: a",
            "    server: vllm",
            "    backend_refs: [{name: renamed, endpoint: '127.0.0.1:" + s1.port() + "'}]",
            "  - name: c",
            "    server: sglang",
            "    backend_refs: [{endpoint: '127.0.0.1:" + s3.port() + "'}]",
            "decisions:",
            "  - {name: d, modelRefs: [{model: a}, {model: c}]}",
            "signals:",
            "  server_metrics: {every: 50ms, timeout: 500ms, stale_after: 60s}",
            ""), first.plans());
        agent.replace(second.serverMetrics(), second.serverBackends());
        // The table is replaced at once; the agent follows it (its targets, their counts) at its next cycle.
        await("the new table", 10_000, () -> agent.table() != before &&
            agent.counts("a", "http://127.0.0.1:" + s2.port()) == null);
        final ServerLoadTable after = agent.table();
        final int s1Index = after.backendIndex("a", k1);
        assertThat(after.lastResponseNs(s1Index)).isEqualTo(s1Last);
        assertThat(after.queue(after.modelIndex("a"), System.nanoTime())).isEqualTo(5.0);
        assertThat(agent.counts("a", k1).ok()).isEqualTo(s1Ok);
        assertThat(after.backendIndex("a", "http://127.0.0.1:" + s2.port())).isEqualTo(ServerLoadTable.NOT_FOUND);
        assertThat(agent.counts("a", "http://127.0.0.1:" + s2.port())).isNull();
        assertThat(after.modelIndex("b")).isEqualTo(ServerLoadTable.NOT_FOUND);
        // the same server under a new model is a new entry: scraped afresh
        await("c fresh", 10_000, () -> after.anyFresh(after.modelIndex("c"), System.nanoTime()));
        assertThat(after.queue(after.modelIndex("c"), System.nanoTime())).isEqualTo(7.0);
    }
}
