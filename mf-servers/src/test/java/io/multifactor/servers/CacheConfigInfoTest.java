package io.multifactor.servers;

import io.multifactor.kernel.signal.ServerBackend;
import io.multifactor.kernel.signal.ServerKind;
import io.multifactor.kernel.signal.ServerMetricsSettings;
import io.multifactor.kernel.signal.WhenStale;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** A vLLM server's KV-cache size, read from the labels of its {@code vllm:cache_config_info} info series. */
class CacheConfigInfoTest
{
    /** The shape vLLM publishes (labels in its order, {@code num_gpu_blocks_override} beside the real one). */
    static final String VLLM = String.join("\n",
        "# HELP vllm:num_requests_waiting Number of requests waiting to be processed.",
        "# TYPE vllm:num_requests_waiting gauge",
        "vllm:num_requests_waiting{engine=\"0\",model_name=\"Qwen/Qwen3-0.6B\"} 2.0",
        "# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.",
        "# TYPE vllm:kv_cache_usage_perc gauge",
        "vllm:kv_cache_usage_perc{engine=\"0\",model_name=\"Qwen/Qwen3-0.6B\"} 0.5",
        "# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig",
        "# TYPE vllm:cache_config_info gauge",
        "vllm:cache_config_info{block_size=\"16\",cache_dtype=\"auto\",calculate_kv_scales=\"False\"," +
            "enable_prefix_caching=\"True\",gpu_memory_utilization=\"0.9\",num_cpu_blocks=\"None\"," +
            "num_gpu_blocks=\"27264\",num_gpu_blocks_override=\"None\",prefix_caching_hash_algo=\"sha256\"," +
            "swap_space=\"4\"} 1.0",
        "");

    private static ServerMetricsReader read(final String body)
    {
        final ServerMetricsReader reader = new ServerMetricsReader(ServerKind.VLLM);
        final byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        reader.read(bytes, 0, bytes.length);
        return reader;
    }

    @Test
    void shouldReadNumGpuBlocksAndBlockSize()
    {
        final ServerMetricsReader reader = read(VLLM);
        assertThat(reader.numGpuBlocks()).isEqualTo(27264);
        assertThat(reader.blockSizeTokens()).isEqualTo(16);
        assertThat(reader.waiting()).isEqualTo(2.0);
    }

    @Test
    void shouldSayNothingWhenAbsentMalformedOrNotANumber()
    {
        assertThat(read(VLLM.replace("vllm:cache_config_info", "vllm:other_info")).numGpuBlocks()).isEqualTo(-1);
        assertThat(read(VLLM.replace("num_gpu_blocks=\"27264\"", "num_gpu_blocks=\"None\"")).numGpuBlocks())
            .isEqualTo(-1);
        assertThat(read(VLLM.replace("block_size=\"16\"", "block_size=16")).blockSizeTokens()).isEqualTo(-1);
        final ServerMetricsReader cut = read(VLLM.substring(0, VLLM.indexOf("num_gpu_blocks=\"27") + 18));
        assertThat(cut.numGpuBlocks()).isEqualTo(-1);
        assertThat(cut.blockSizeTokens()).isEqualTo(16);
        // A reader keeps nothing from the body before.
        final ServerMetricsReader reader = read(VLLM);
        final byte[] next = VLLM.replace("vllm:cache_config_info", "x").getBytes(StandardCharsets.UTF_8);
        reader.read(next, 0, next.length);
        assertThat(reader.numGpuBlocks()).isEqualTo(-1);
        final ServerMetricsReader sglang = new ServerMetricsReader(ServerKind.SGLANG);
        final byte[] bytes = VLLM.getBytes(StandardCharsets.UTF_8);
        sglang.read(bytes, 0, bytes.length);
        assertThat(sglang.numGpuBlocks()).isEqualTo(-1);
    }

    @Test
    void theAgentShouldTellTheListenerEachBackendsCacheSize() throws Exception
    {
        try (MetricsServer server = new MetricsServer(MetricsServer.body(VLLM.getBytes(StandardCharsets.UTF_8)));
            ServerScrapeAgent agent = new ServerScrapeAgent(
                new ServerMetricsSettings(50_000_000L, "/metrics", 1_000_000_000L, 2_000_000_000L, WhenStale.IGNORE),
                List.of(new ServerBackend("m", false, "127.0.0.1", server.port(), ServerKind.VLLM)), System::nanoTime))
        {
            final AtomicReference<String> told = new AtomicReference<>();
            agent.cacheSizes((key, blocks, size) -> told.set(key + " " + blocks + " x " + size)).start();
            final long deadline = System.nanoTime() + 10_000_000_000L;
            while (told.get() == null && System.nanoTime() < deadline)
            {
                Thread.sleep(10);
            }
            assertThat(told.get()).isEqualTo("http://127.0.0.1:" + server.port() + " 27264 x 16");
        }
    }
}
