package io.multifactor.serving;

import com.sun.net.httpserver.HttpServer;
import io.multifactor.api.Selection;
import io.multifactor.kernel.engine.MultiFactorEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code bin/mf envoy}'s engine host starts the scrape agent when the file has {@code signals.server_metrics}. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EngineHostServerSignalsTest
{
    @TempDir
    Path dir;

    @Test
    void shouldScrapeTheServersOfTheFileAndSelectOnTheirQueue() throws Exception
    {
        final HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 4);
        server.createContext("/metrics", exchange ->
        {
            final byte[] body = ("vllm:num_requests_waiting{engine=\"0\",model_name=\"m\"} 7.0\n" +
                "vllm:kv_cache_usage_perc{engine=\"0\",model_name=\"m\"} 0.5\n").getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        try
        {
            final Path config = Files.writeString(dir.resolve("router.yaml"), String.join("\n",
                "models:",
                "  - {name: scraped, quality_score: 0.9, server: vllm, backend_refs: [{endpoint: '127.0.0.1:" +
                    server.getAddress().getPort() + "'}]}",
                "  - {name: hosted, quality_score: 0.5}",
                "decisions:",
                "  - name: d",
                "    modelRefs: [{model: scraped}, {model: hosted}]",
                "    algorithm: {type: multi_factor, multi_factor: {weights: {quality: 1.0}, slo: {max_queue: 5}}}",
                "signals:",
                "  server_metrics: {every: 50ms, timeout: 500ms, stale_after: 10s}",
                ""), StandardCharsets.UTF_8);
            try (EngineHost host = EngineHost.start(config, null))
            {
                final MultiFactorEngine engine = host.engine();
                final Selection selection = new Selection();
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                do
                {
                    Thread.sleep(20);
                    engine.select(engine.decisionId("d"), null, selection);
                }
                while (Double.isNaN(selection.queue(0)) && System.nanoTime() - deadline < 0);
                // Scraped (7 waiting > max_queue 5): dropped, so the hosted model is chosen.
                assertThat(selection.queue(0)).isEqualTo(7.0);
                assertThat(selection.kvCache(0)).isEqualTo(0.5);
                assertThat(engine.plans().modelName(selection.selectedModel())).isEqualTo("hosted");
            }
        }
        finally
        {
            server.stop(0);
        }
    }
}
