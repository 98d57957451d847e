package io.multifactor.gateway;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.multifactor.serving.BackendPrefix;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Prefix-cache affinity over real sockets: the gateway in front of three loopback model servers of one model, many
 * requests sharing one long system prompt. The first backend that answered one holds the prefix and gets the others
 * (each adds only its uncached tail to that backend's wait) until its estimated wait exceeds the best cold backend's by
 * more than {@code max_ttft_penalty}: then the release sends some to the others.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PrefixAffinityGatewayTest
{
    private static final String SYSTEM_PROMPT = "You are a careful assistant. ".repeat(142);
    private static final int HELD = 40;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<HeldServer> servers = new ArrayList<>();
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
        servers.forEach(HeldServer::close);
    }

    @Test
    void aHotPrefixShouldStayOnItsBackendUntilTheReleaseSendsSomeElsewhere() throws Exception
    {
        for (int i = 0; i < 3; i++)
        {
            servers.add(new HeldServer());
        }
        final Path file = dir.resolve("gateway.yaml");
        Files.writeString(file, String.join("\n",
            "models:",
            "  - name: m",
            "    backend_refs:",
            "      - {endpoint: '127.0.0.1:" + servers.get(0).port() + "'}",
            "      - {endpoint: '127.0.0.1:" + servers.get(1).port() + "'}",
            "      - {endpoint: '127.0.0.1:" + servers.get(2).port() + "'}",
            "    prefix_affinity: {block_bytes: 64, min_match: 0.5, max_ttft_penalty: 1s, prefill_tokens_per_s: 1000}",
            "decisions:",
            "  - name: chat",
            "    modelRefs: [{model: m}]",
            ""));
        gateway = Gateway.start(file, GatewayOptions.defaults().withPort(0), result -> { });

        // One request answered: its backend holds the prefix now.
        assertThat(post(0).statusCode()).isEqualTo(200);
        int warm = -1;
        for (int i = 0; i < 3; i++)
        {
            if (servers.get(i).requests.get() == 1)
            {
                warm = i;
            }
        }
        assertThat(warm).isNotNegative();

        // The servers hold every further request without answering: each stays in its backend's wait.
        servers.forEach(s -> s.hold = new CountDownLatch(1));
        final List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
        for (int i = 1; i <= HELD; i++)
        {
            answers.add(postAsync(i));
        }
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (choices() < 1 + HELD)
        {
            assertThat(System.nanoTime() - deadline).as("all requests chosen").isNegative();
            Thread.sleep(10);
        }
        final List<BackendPrefix> prefixes = prefixes();
        // ~1,078 prompt tokens each, 64 of 67 blocks cached on the warm backend: 49 uncached tokens join its wait per
        // request, 1,000 tokens (1 s at 1,000 tokens/s) of penalty: 21 stay, then each other backend gets one whole
        // prompt (1,078 tokens) by release, then the warm backend is the least waited-on again and takes the rest.
        final BackendPrefix hot = prefixes.get(warm);
        assertThat(hot.cold()).isEqualTo(1);
        assertThat(hot.warm()).isEqualTo(HELD - 2);
        assertThat(hot.release()).isZero();
        assertThat(hot.blocksMatched()).isEqualTo(64L * (HELD - 2));
        assertThat(hot.blocksLookedUp()).isEqualTo(67L * (HELD - 1));
        for (int i = 0; i < 3; i++)
        {
            if (i != warm)
            {
                assertThat(prefixes.get(i).release()).as("release to backend " + i).isEqualTo(1);
                assertThat(prefixes.get(i).warm() + prefixes.get(i).cold()).isZero();
                assertThat(prefixes.get(i).pendingTokens()).isEqualTo(1078);
            }
        }
        servers.forEach(s -> s.hold.countDown());
        for (final CompletableFuture<HttpResponse<String>> answer : answers)
        {
            assertThat(answer.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        }
        assertThat(servers.get(warm).requests.get()).isEqualTo(HELD - 1);
        for (int i = 0; i < 3; i++)
        {
            assertThat(prefixes.get(i).pendingTokens()).as("wait after the answers").isZero();
        }
        final String metrics = http.send(HttpRequest.newBuilder(URI.create(
            "http://127.0.0.1:" + gateway.port() + "/metrics")).GET().build(), HttpResponse.BodyHandlers.ofString()).body();
        final String hotTag = "backend=\"http://127.0.0.1:" + servers.get(warm).port() + "\"";
        assertThat(metrics).contains(
            "mf_prefix_choices_total{" + hotTag + ",result=\"warm\"} " + (HELD - 2) + ".0",
            "mf_prefix_choices_total{" + hotTag + ",result=\"release\"} 0.0",
            "mf_prefix_blocks_total{" + hotTag + ",kind=\"matched\"} " + 64 * (HELD - 2) + ".0",
            "# HELP mf_prefix_choices_total Backend choices under prefix-cache affinity");
    }

    @Test
    void theModelWhoseBackendHoldsThePrefixShouldWinThePrefixFactor() throws Exception
    {
        servers.add(new HeldServer());
        servers.add(new HeldServer());
        final Path file = dir.resolve("gateway.yaml");
        Files.writeString(file, String.join("\n",
            "models:",
            "  - name: a",
            "    backend_refs: [{endpoint: '127.0.0.1:" + servers.get(0).port() + "'}]",
            "    prefix_affinity: {block_bytes: 64}",
            "    pricing: {prompt_per_1m: 3.0, cached_prompt_per_1m: 0.3}",
            "  - name: b",
            "    backend_refs: [{endpoint: '127.0.0.1:" + servers.get(1).port() + "'}]",
            "    prefix_affinity: {block_bytes: 64}",
            "    pricing: {prompt_per_1m: 3.0, cached_prompt_per_1m: 0.3}",
            "decisions:",
            "  - name: chat",
            "    modelRefs: [{model: a}, {model: b}]",
            "    algorithm: {type: multi_factor, multi_factor: {weights: {prefix: 1.0}}}",
            ""));
        gateway = Gateway.start(file, GatewayOptions.defaults().withPort(0), result -> { });

        // b, named directly, answers the system prompt: b's backend holds its prefix now, a's holds nothing.
        assertThat(http.send(chat("b", SYSTEM_PROMPT, 1), HttpResponse.BodyHandlers.ofString()).statusCode())
            .isEqualTo(200);

        // The same system prompt through the decision: P(b) = 64 of 67 blocks, P(a) = 0: b wins the prefix factor.
        final HttpResponse<String> routed = http.send(chat("chat", SYSTEM_PROMPT, 2), HttpResponse.BodyHandlers.ofString());
        assertThat(routed.statusCode()).isEqualTo(200);
        assertThat(routed.headers().firstValue("x-selected-model")).hasValue("b");
        final String explain = routed.headers().firstValue("x-mf-explain").orElseThrow();
        assertThat(explain).contains("\"model\":\"a\"", "\"prefix\":0.0", "\"prefix\":0.955");
        // b's cache-aware price: (1 - 64/67) x 3.0 + 64/67 x 0.3 = 0.42 USD per 1M.
        assertThat(explain).contains("\"cost_per_1m\":0.42");

        // A prompt neither backend holds: both shares 0, a tie, the first candidate.
        final HttpResponse<String> fresh = http.send(chat("chat", "Another assistant entirely. ".repeat(150), 3),
            HttpResponse.BodyHandlers.ofString());
        assertThat(fresh.headers().firstValue("x-selected-model")).hasValue("a");
    }

    private HttpRequest chat(final String model, final String system, final int n)
    {
        final String user = String.format("question %03d: ", n) + "x".repeat(182);
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port() + "/v1/chat/completions"))
            .timeout(Duration.ofSeconds(40))
            .header("content-type", "application/json")
            .header("x-mf-explain", "1")
            .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"" + model + "\",\"messages\":[{\"role\":\"system\"," +
                "\"content\":\"" + system + "\"},{\"role\":\"user\",\"content\":\"" + user + "\"}]}"))
            .build();
    }

    private long choices()
    {
        long sum = 0;
        for (final BackendPrefix b : gateway.prefixBackends().backends())
        {
            sum += b.warm() + b.cold() + b.release();
        }
        return sum;
    }

    private List<BackendPrefix> prefixes()
    {
        final List<BackendPrefix> inOrder = new ArrayList<>();
        for (final HeldServer server : servers)
        {
            inOrder.add(gateway.prefixBackends().backend("http://127.0.0.1:" + server.port()));
        }
        return inOrder;
    }

    private HttpRequest request(final int n)
    {
        // 4,314 content bytes: the shared system prompt and a user turn of its own.
        final String user = String.format("question %03d: ", n) + "x".repeat(182);
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port() + "/v1/chat/completions"))
            .timeout(Duration.ofSeconds(40))
            .header("content-type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"chat\",\"messages\":[{\"role\":\"system\"," +
                "\"content\":\"" + SYSTEM_PROMPT + "\"},{\"role\":\"user\",\"content\":\"" + user + "\"}]}"))
            .build();
    }

    private HttpResponse<String> post(final int n) throws Exception
    {
        return http.send(request(n), HttpResponse.BodyHandlers.ofString());
    }

    private CompletableFuture<HttpResponse<String>> postAsync(final int n)
    {
        return http.sendAsync(request(n), HttpResponse.BodyHandlers.ofString());
    }

    /** A model server on a loopback port that answers a chat completion once its latch (if any) opens. */
    private static final class HeldServer implements AutoCloseable
    {
        final HttpServer server;
        final ExecutorService threads = Executors.newCachedThreadPool();
        final AtomicInteger requests = new AtomicInteger();
        volatile CountDownLatch hold;

        HeldServer() throws IOException
        {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
            server.setExecutor(threads);
            server.createContext("/v1/chat/completions", this::chat);
            server.start();
        }

        int port()
        {
            return server.getAddress().getPort();
        }

        private void chat(final HttpExchange exchange) throws IOException
        {
            exchange.getRequestBody().readAllBytes();
            requests.incrementAndGet();
            final CountDownLatch latch = hold;
            try
            {
                if (latch != null && !latch.await(30, TimeUnit.SECONDS))
                {
                    exchange.close();
                    return;
                }
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                exchange.close();
                return;
            }
            final byte[] bytes = ("{\"id\":\"c1\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":" +
                "{\"role\":\"assistant\",\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("content-type", "application/json");
            exchange.sendResponseHeaders(200, bytes.length);
            exchange.getResponseBody().write(bytes);
            exchange.close();
        }

        @Override
        public void close()
        {
            server.stop(0);
            threads.shutdownNow();
        }
    }
}
