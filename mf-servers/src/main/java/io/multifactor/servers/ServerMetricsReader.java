package io.multifactor.servers;

import io.multifactor.kernel.signal.ServerKind;

import java.nio.charset.StandardCharsets;

/**
 * Reads one server's load out of its {@code /metrics} body, by the names its kind publishes: waiting and running
 * requests (each summed over its series, such as one per {@code engine} or {@code model_name}) and the KV-cache use (a
 * fraction in [0, 1], averaged over its series).
 * <ul>
 * <li>vLLM: {@code vllm:num_requests_waiting}, {@code vllm:num_requests_running}, {@code vllm:kv_cache_usage_perc}
 *     (else the older {@code vllm:gpu_cache_usage_perc});</li>
 * <li>SGLang: {@code sglang:num_queue_reqs}, {@code sglang:num_running_reqs}, {@code sglang:token_usage}.</li>
 * </ul>
 * A body is usable when it has at least one accepted series of the waiting count and of the KV-cache use; running is
 * NaN when absent. A vLLM body's {@code vllm:cache_config_info} info series also gives the server's KV-cache size: its
 * labels {@code num_gpu_blocks} and {@code block_size} ({@link #numGpuBlocks()}, {@link #blockSizeTokens()}).
 * <p>
 * This class is not threadsafe: one reader per thread; it allocates nothing per body.
 */
public final class ServerMetricsReader
{
    private static final int WAITING = 0;
    private static final int RUNNING = 1;
    private static final int KV = 2;
    private static final int KV_OLD = 3;

    private static final byte[] CACHE_CONFIG_INFO = "vllm:cache_config_info{".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NUM_GPU_BLOCKS = "num_gpu_blocks".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] BLOCK_SIZE = "block_size".getBytes(StandardCharsets.US_ASCII);

    private final PrometheusTextParser parser;
    private final boolean readsCacheConfig;
    private long numGpuBlocks = -1;
    private long blockSizeTokens = -1;
    private double waiting = Double.NaN;
    private double running = Double.NaN;
    private double kvUse = Double.NaN;

    /**
     * @param kind the kind of server whose names to read.
     */
    public ServerMetricsReader(final ServerKind kind)
    {
        final double any = Double.MAX_VALUE;
        readsCacheConfig = kind == ServerKind.VLLM;
        parser = kind == ServerKind.VLLM
            ? new PrometheusTextParser(new String[] {"vllm:num_requests_waiting", "vllm:num_requests_running",
                "vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"}, new double[] {any, any, 1.0, 1.0})
            : new PrometheusTextParser(new String[] {"sglang:num_queue_reqs", "sglang:num_running_reqs",
                "sglang:token_usage"}, new double[] {any, any, 1.0});
    }

    /**
     * Reads a body. Allocation-free; never throws for any content.
     *
     * @param body the bytes.
     * @param offset where the body starts.
     * @param length its length.
     * @return whether the body had a usable waiting count and KV-cache use.
     */
    public boolean read(final byte[] body, final int offset, final int length)
    {
        parser.parse(body, offset, length);
        waiting = parser.seriesCount(WAITING) == 0 ? Double.NaN : parser.sum(WAITING);
        running = parser.seriesCount(RUNNING) == 0 ? Double.NaN : parser.sum(RUNNING);
        kvUse = parser.seriesCount(KV) > 0 ? parser.mean(KV)
            : parser.nameCount() > KV_OLD && parser.seriesCount(KV_OLD) > 0 ? parser.mean(KV_OLD) : Double.NaN;
        numGpuBlocks = -1;
        blockSizeTokens = -1;
        if (readsCacheConfig)
        {
            readCacheConfig(body, offset, offset + length);
        }
        return !Double.isNaN(waiting) && !Double.isNaN(kvUse) && waiting < Double.POSITIVE_INFINITY;
    }

    /** @return {@code num_gpu_blocks} of the last body's {@code vllm:cache_config_info}, -1 when absent or invalid. */
    public long numGpuBlocks()
    {
        return numGpuBlocks;
    }

    /** @return {@code block_size} (tokens per KV block) of the last body's {@code vllm:cache_config_info}, or -1. */
    public long blockSizeTokens()
    {
        return blockSizeTokens;
    }

    // The first line that starts with the info series' name: its label pairs, values read as decimal integers (at
    // most 15 digits). Every index is bounded by end; allocates nothing.
    private void readCacheConfig(final byte[] b, final int start, final int end)
    {
        int line = start;
        while (line < end)
        {
            if (startsWith(b, line, end, CACHE_CONFIG_INFO))
            {
                int p = line + CACHE_CONFIG_INFO.length;
                while (p < end && b[p] != '}' && b[p] != '\n')
                {
                    final int nameStart = p;
                    while (p < end && b[p] != '=' && b[p] != '}' && b[p] != '\n')
                    {
                        p++;
                    }
                    final int nameEnd = p;
                    if (p + 1 >= end || b[p] != '=' || b[p + 1] != '"')
                    {
                        return;
                    }
                    p += 2;
                    long value = 0;
                    int digits = 0;
                    boolean numeric = true;
                    while (p < end && b[p] != '"' && b[p] != '\n')
                    {
                        if (b[p] == '\\')
                        {
                            p++;
                        }
                        else if (b[p] >= '0' && b[p] <= '9' && digits < 15)
                        {
                            value = value * 10 + (b[p] - '0');
                            digits++;
                        }
                        else
                        {
                            numeric = false;
                        }
                        p++;
                    }
                    if (p >= end || b[p] != '"')
                    {
                        return;
                    }
                    p++;
                    if (numeric && digits > 0)
                    {
                        if (equals(b, nameStart, nameEnd, NUM_GPU_BLOCKS))
                        {
                            numGpuBlocks = value;
                        }
                        else if (equals(b, nameStart, nameEnd, BLOCK_SIZE))
                        {
                            blockSizeTokens = value;
                        }
                    }
                    if (p < end && b[p] == ',')
                    {
                        p++;
                    }
                    while (p < end && b[p] == ' ')
                    {
                        p++;
                    }
                }
                return;
            }
            while (line < end && b[line] != '\n')
            {
                line++;
            }
            line++;
        }
    }

    private static boolean startsWith(final byte[] b, final int at, final int end, final byte[] prefix)
    {
        if (end - at < prefix.length)
        {
            return false;
        }
        for (int i = 0; i < prefix.length; i++)
        {
            if (b[at + i] != prefix[i])
            {
                return false;
            }
        }
        return true;
    }

    private static boolean equals(final byte[] b, final int from, final int to, final byte[] name)
    {
        return to - from == name.length && startsWith(b, from, to, name);
    }

    /** @return waiting requests of the last body (summed), NaN when it had none. */
    public double waiting()
    {
        return waiting;
    }

    /** @return running requests of the last body (summed), NaN when it had none. */
    public double running()
    {
        return running;
    }

    /** @return KV-cache use of the last body (averaged), NaN when it had none. */
    public double kvUse()
    {
        return kvUse;
    }

    /** @return lines of the last body that were neither samples nor comments. */
    public int linesMalformed()
    {
        return parser.linesMalformed();
    }

    /** @return samples of the read names in the last body that were NaN, infinite, negative or out of range. */
    public int samplesRefused()
    {
        return parser.samplesRefused();
    }
}
