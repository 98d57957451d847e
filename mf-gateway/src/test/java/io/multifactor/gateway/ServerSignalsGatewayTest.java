package io.multifactor.gateway;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The gateway ({@code bin/mf serve}) with model-server signals, against real loopback HTTP servers that speak vLLM's
 * and SGLang's {@code /metrics} (the label sets those servers use) and answer chat completions: the gateway scrapes
 * them, and its selection moves away from a model whose queue grows; an ORCA load report on a response counts as a
 * scrape.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ServerSignalsGatewayTest
{
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<ModelServer> servers = new ArrayList<>();
    private Gateway gateway;

    @TempDir
    Path dir;

    @AfterEach
    void close()
    {
        if (gateway != null)
        {
            gateway.close();
        }
        servers.forEach(ModelServer::close);
    }

    @Test
    void selectionShouldMoveAwayFromAModelWhoseQueueGrows() throws Exception
    {
        final ModelServer vllm = server(ModelServer.VLLM);
        final ModelServer sglang = server(ModelServer.SGLANG);
        vllm.waiting = 1;
        sglang.waiting = 3;
        start(vllm, sglang, "{queue: 0.6, quality: 0.4}", "max_queue: 8");
        // Both answer: the vLLM model (fewer waiting, and first) wins.
        await("the vLLM model chosen", () -> "vllm-model".equals(selectedModel()));
        assertThat(vllm.scrapes.get()).isPositive();
        assertThat(sglang.scrapes.get()).isPositive();
        // Its queue grows past the SGLang model's: the choice moves there.
        vllm.waiting = 6;
        await("the SGLang model chosen", () -> "sglang-model".equals(selectedModel()));
        // Past max_queue it is dropped whatever the weights say.
        vllm.waiting = 12;
        sglang.waiting = 7;
        await("queue=12>8 in explain", () -> explain().contains("\"dropped\":\"queue=12>8\""));
        assertThat(selectedModel()).isEqualTo("sglang-model");
        final String metrics = metrics();
        assertThat(metrics).contains("mf_server_queue{model=\"vllm-model\"} 12.0",
            "mf_server_queue{model=\"sglang-model\"} 7.0",
            "mf_server_fresh{backend=\"http://127.0.0.1:" + vllm.port() + "\"} 1.0",
            "mf_drops_total{model=\"vllm-model\",reason=\"queue\"}");
        assertThat(metrics).containsPattern(
            "mf_server_scrapes_total\\{backend=\"http://127\\.0\\.0\\.1:" + sglang.port() + "\",result=\"ok\"} [1-9]");
        // Queues drain: the vLLM model is back.
        vllm.waiting = 0;
        await("the vLLM model back", () -> "vllm-model".equals(selectedModel()));
    }

    @Test
    void anOrcaLoadReportOnAResponseShouldCountAsAScrape() throws Exception
    {
        final ModelServer vllm = server(ModelServer.VLLM);
        final ModelServer sglang = server(ModelServer.SGLANG);
        // The vLLM server's /metrics fails: only its load reports tell the gateway its queue.
        vllm.metricsStatus = 503;
        vllm.loadReport = "TEXT named_metrics.kv_cache_usage_perc=0.4, named_metrics.num_requests_waiting=0";
        sglang.waiting = 2;
        start(vllm, sglang, "{queue: 1.0}", "max_queue: 100");
        await("the SGLang model scraped", () -> metrics().contains(
            "mf_server_queue{model=\"sglang-model\"} 2.0"));
        // No queue signal of the vLLM model: it gets 0 for the factor, the SGLang model (the only one with it) 0.5.
        assertThat(selectedModel()).isEqualTo("sglang-model");
        // One request to the vLLM model, through a decision of its own: the gateway asks for the report, and the
        // response's report (nothing waiting) is its first good "scrape".
        final HttpResponse<String> answer = post("only-vllm");
        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(vllm.loadReportFormats.get()).isEqualTo(1);
        await("the report published", () -> metrics().contains("mf_server_queue{model=\"vllm-model\"} 0.0"));
        assertThat(metrics()).containsPattern(
            "mf_server_scrapes_total\\{backend=\"http://127\\.0\\.0\\.1:" + vllm.port() + "\",result=\"ok\"} 1\\.0")
            .containsPattern(
                "mf_server_scrapes_total\\{backend=\"http://127\\.0\\.0\\.1:" + vllm.port() + "\",result=\"failed\"} " +
                    "[1-9]");
        // Now it has the smaller queue: the choice moves to it.
        assertThat(selectedModel()).isEqualTo("vllm-model");
    }

    private ModelServer server(final int kind) throws IOException
    {
        final ModelServer server = new ModelServer(kind);
        servers.add(server);
        return server;
    }

    private void start(final ModelServer vllm, final ModelServer sglang, final String weights, final String slo)
        throws Exception
    {
        final Path file = dir.resolve("gateway.yaml");
        Files.writeString(file, String.join("\n",
            "models:",
            "  - name: vllm-model",
            "    quality_score: 0.5",
            "    server: vllm",
            "    backend_refs: [{endpoint: '127.0.0.1:" + vllm.port() + "'}]",
            "  - name: sglang-model",
            "    quality_score: 0.5",
            "    server: sglang",
            "    backend_refs: [{endpoint: '127.0.0.1:" + sglang.port() + "'}]",
            "decisions:",
            "  - name: chat",
            "    modelRefs: [{model: vllm-model}, {model: sglang-model}]",
            "    algorithm: {type: multi_factor, multi_factor: {weights: " + weights + ", slo: {" + slo + "}}}",
            "  - name: only-vllm",
            "    modelRefs: [{model: vllm-model}]",
            "signals:",
            "  server_metrics: {every: 50ms, timeout: 500ms, stale_after: 5s}",
            ""));
        gateway = Gateway.start(file, GatewayOptions.defaults().withPort(0), result -> { });
    }

    private String selectedModel() throws Exception
    {
        final HttpResponse<String> answer = post("chat");
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        return answer.headers().firstValue("x-selected-model").orElse(null);
    }

    private String explain() throws Exception
    {
        return post("chat", "x-mf-explain", "1").headers().firstValue("x-mf-explain").orElse("");
    }

    private HttpResponse<String> post(final String decision, final String... headers) throws Exception
    {
        final HttpRequest.Builder builder = HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + gateway.port() + "/v1/chat/completions"))
            .timeout(Duration.ofSeconds(20))
            .header("x-mf-decision", decision)
            .header("content-type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(
                "{\"model\":\"any\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"));
        if (headers.length > 0)
        {
            builder.headers(headers);
        }
        return http.send(builder.build(), HttpResponse.BodyHandlers.ofString());
    }

    private String metrics() throws Exception
    {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port() + "/metrics"))
            .timeout(Duration.ofSeconds(20)).GET().build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    private static void await(final String what, final Check check) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!check.holds())
        {
            if (System.nanoTime() - deadline > 0)
            {
                throw new AssertionError("not within 20 s: " + what);
            }
            Thread.sleep(20);
        }
    }

    /** A condition that may need a request to check. */
    @FunctionalInterface
    private interface Check
    {
        boolean holds() throws Exception;
    }

    /**
     * A model server on a loopback port: {@code /metrics} in vLLM's or SGLang's text format (their metric names and
     * label sets, two engines for vLLM), with a waiting count the test sets, and a non-streamed chat completion,
     * optionally with an ORCA load report. Threadsafe: the test thread sets the volatile fields, the server's threads
     * read them.
     */
    private static final class ModelServer implements AutoCloseable
    {
        static final int VLLM = 0;
        static final int SGLANG = 1;

        final int kind;
        final HttpServer server;
        final AtomicInteger scrapes = new AtomicInteger();
        final AtomicInteger loadReportFormats = new AtomicInteger();
        volatile int waiting;
        volatile int metricsStatus = 200;
        volatile String loadReport;

        ModelServer(final int kind) throws IOException
        {
            this.kind = kind;
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
            server.createContext("/metrics", this::metrics);
            server.createContext("/v1/chat/completions", this::chat);
            server.start();
        }

        int port()
        {
            return server.getAddress().getPort();
        }

        private void metrics(final HttpExchange exchange) throws IOException
        {
            scrapes.incrementAndGet();
            if (metricsStatus != 200)
            {
                answer(exchange, metricsStatus, "text/plain", "unavailable");
                return;
            }
            answer(exchange, 200, "text/plain; version=0.0.4", kind == VLLM ? vllmBody(waiting) : sglangBody(waiting));
        }

        private void chat(final HttpExchange exchange) throws IOException
        {
            exchange.getRequestBody().readAllBytes();
            if ("TEXT".equals(exchange.getRequestHeaders().getFirst("endpoint-load-metrics-format")))
            {
                loadReportFormats.incrementAndGet();
            }
            if (loadReport != null)
            {
                exchange.getResponseHeaders().add("endpoint-load-metrics", loadReport);
            }
            answer(exchange, 200, "application/json", "{\"id\":\"c1\",\"object\":\"chat.completion\",\"choices\":" +
                "[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}");
        }

        private static void answer(final HttpExchange exchange, final int status, final String type, final String body)
            throws IOException
        {
            final byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("content-type", type);
            exchange.sendResponseHeaders(status, bytes.length);
            exchange.getResponseBody().write(bytes);
            exchange.close();
        }

        /** vLLM V1 with two engines: the waiting count split over them (summed by the reader). */
        static String vllmBody(final int waiting)
        {
            final int first = waiting / 2;
            return String.join("\n",
                "# HELP vllm:num_requests_running Number of requests in model execution batches.",
                "# TYPE vllm:num_requests_running gauge",
                "vllm:num_requests_running{engine=\"0\",model_name=\"Qwen/Qwen3-0.6B\"} 3.0",
                "vllm:num_requests_running{engine=\"1\",model_name=\"Qwen/Qwen3-0.6B\"} 2.0",
                "# HELP vllm:num_requests_waiting Number of requests waiting to be processed.",
                "# TYPE vllm:num_requests_waiting gauge",
                String.format(Locale.ROOT, "vllm:num_requests_waiting{engine=\"0\",model_name=\"Qwen/Qwen3-0.6B\"} %d.0",
                    first),
                String.format(Locale.ROOT, "vllm:num_requests_waiting{engine=\"1\",model_name=\"Qwen/Qwen3-0.6B\"} %d.0",
                    waiting - first),
                "# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.",
                "# TYPE vllm:kv_cache_usage_perc gauge",
                "vllm:kv_cache_usage_perc{engine=\"0\",model_name=\"Qwen/Qwen3-0.6B\"} 0.25",
                "vllm:kv_cache_usage_perc{engine=\"1\",model_name=\"Qwen/Qwen3-0.6B\"} 0.75",
                "");
        }

        static String sglangBody(final int waiting)
        {
            final String labels = "{engine_type=\"unified\",model_name=\"meta-llama/Llama-3.1-8B-Instruct\"," +
                "pp_rank=\"0\",tp_rank=\"0\"}";
            return String.join("\n",
                "# HELP sglang:num_running_reqs The number of running requests.",
                "# TYPE sglang:num_running_reqs gauge",
                "sglang:num_running_reqs" + labels + " 12.0",
                "# HELP sglang:num_queue_reqs The number of requests in the waiting queue.",
                "# TYPE sglang:num_queue_reqs gauge",
                "sglang:num_queue_reqs" + labels + " " + waiting + ".0",
                "# HELP sglang:token_usage The token usage.",
                "# TYPE sglang:token_usage gauge",
                "sglang:token_usage" + labels + " 0.28",
                "");
        }

        @Override
        public void close()
        {
            server.stop(0);
        }
    }
}
