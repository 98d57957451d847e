package io.multifactor.fakes;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A fake server's prefix cache over real loopback sockets: a repeated prefix hits, the LRU evicts at its capacity, the
 * time to first token falls with the cached share, and {@code /metrics} reports vLLM's counters in tokens and the cache
 * configuration.
 */
@Timeout(60)
class FakePrefixCacheTest
{
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    /** A chat body whose messages are {@code system} then {@code user}; 4 bytes a token. */
    private static String chat(final String system, final String user)
    {
        return "{\"model\":\"m\",\"stream\":true,\"max_tokens\":1,\"messages\":[{\"role\":\"system\",\"content\":\"" +
            system + "\"},{\"role\":\"user\",\"content\":\"" + user + "\"}]}";
    }

    private static String text(final char letter, final int bytes)
    {
        return String.valueOf(letter).repeat(bytes);
    }

    /** Sends one streamed request; returns the nanoseconds until its first content chunk's bytes arrived whole. */
    private long send(final FakeBackends backends, final String body) throws Exception
    {
        final long startNs = System.nanoTime();
        final HttpResponse<String> response = http.send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + backends.port("m") + "/v1/chat/completions"))
            .timeout(Duration.ofSeconds(30)).header("content-type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("data: [DONE]");
        return System.nanoTime() - startNs;
    }

    private String metrics(final FakeBackends backends) throws Exception
    {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + backends.port("m") + "/metrics"))
            .build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    private static FakeBackends start(final int gpuBlocks, final double prefillTokensPerS)
    {
        // 16-token blocks of 64 bytes; a base TTFT of 5 ms, one content chunk.
        return FakeBackends.start(new BackendsProfile(3, List.of(FakeModelProfile.steady("m", 5, 1, 4, 1)
            .withPrefixCaching(new PrefixCaching(16, gpuBlocks, prefillTokensPerS)))));
    }

    @Test
    void shouldHitTheBlocksOfARepeatedPrefixCountedInTokens() throws Exception
    {
        try (FakeBackends backends = start(1024, 1e9))
        {
            final FakeModelServer server = backends.server("m");
            // "system" 0 (640 bytes) 0 "user" 0 (10 bytes) 0: 662 bytes = 166 tokens, 10 full 64-byte blocks.
            send(backends, chat(text('s', 640), text('a', 10)));
            assertThat(server.prefixQueriedTokens()).isEqualTo(166);
            assertThat(server.prefixHitTokens()).isZero();
            // Same system prompt, another question: the first 10 blocks (the system prompt's 647 bytes hold 10
            // whole blocks, the 11th runs into the user message) are found: 160 tokens.
            send(backends, chat(text('s', 640), text('b', 200)));
            assertThat(server.prefixQueriedTokens()).isEqualTo(166 + 214);
            assertThat(server.prefixHitTokens()).isEqualTo(160);
            // Another system prompt shares nothing, even with the same question.
            send(backends, chat(text('t', 640), text('b', 200)));
            assertThat(server.prefixHitTokens()).isEqualTo(160);
            final String page = metrics(backends);
            assertThat(page).contains("vllm:prefix_cache_queries_total{model_name=\"m\"} " + (double)(166 + 214 + 214))
                .contains("vllm:prefix_cache_hits_total{model_name=\"m\"} 160.0")
                .contains("# TYPE vllm:prefix_cache_hits_total counter")
                .contains("vllm:cache_config_info{block_size=\"16\",enable_prefix_caching=\"True\",num_gpu_blocks=\"1024\"} 1.0");
        }
    }

    @Test
    void shouldEvictTheLeastRecentlyUsedBlocksAtCapacity() throws Exception
    {
        // 12 blocks: one 640-byte prompt (10 blocks) fits, two do not.
        try (FakeBackends backends = start(12, 1e9))
        {
            final FakeModelServer server = backends.server("m");
            send(backends, chat(text('s', 640), ""));
            send(backends, chat(text('s', 640), ""));
            final long afterRepeat = server.prefixHitTokens();
            assertThat(afterRepeat).isEqualTo(160);
            send(backends, chat(text('t', 640), ""));
            // 't' took 10 of the 12 blocks: 's' kept at most 2 of its blocks, and not its first (the oldest).
            send(backends, chat(text('s', 640), ""));
            assertThat(server.prefixHitTokens()).isEqualTo(afterRepeat);
        }
    }

    @Test
    void shouldCutTheTimeToFirstTokenByTheCachedShare() throws Exception
    {
        // 2,000 tokens / 4,000 tokens per second: 500 ms of prefill when nothing is cached.
        try (FakeBackends backends = start(4096, 4000))
        {
            final String body = chat(text('s', 8000), "");
            final long coldNs = send(backends, body);
            final long warmNs = send(backends, body);
            assertThat(coldNs).isGreaterThanOrEqualTo(500_000_000L);
            // Warm: 1 uncached token (the last partial block), so about 5 ms; leave room for a slow machine.
            assertThat(warmNs).isLessThan(coldNs - 300_000_000L);
        }
    }

    @Test
    void shouldReportKvCacheUseAsTheRunningRequestsBlocks() throws Exception
    {
        try (FakeBackends backends = FakeBackends.start(new BackendsProfile(3, List.of(
            FakeModelProfile.steady("m", 5, 200, 4, 50).withPrefixCaching(new PrefixCaching(16, 100, 1e9))))))
        {
            final java.util.concurrent.CompletableFuture<HttpResponse<String>> running = http.sendAsync(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + backends.port("m") + "/v1/chat/completions"))
                    .header("content-type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
                        chat(text('s', 640), "").replace("\"max_tokens\":1", "\"max_tokens\":50"))).build(),
                HttpResponse.BodyHandlers.ofString());
            final long deadline = System.nanoTime() + 20_000_000_000L;
            while (backends.server("m").running() == 0)
            {
                assertThat(System.nanoTime()).isLessThan(deadline);
                Thread.sleep(5);
            }
            // 164 prompt tokens + 50 output tokens = 14 blocks of 16, over 100.
            assertThat(metrics(backends)).contains("vllm:kv_cache_usage_perc{model_name=\"m\"} 0.14");
            running.cancel(true);
        }
    }
}
