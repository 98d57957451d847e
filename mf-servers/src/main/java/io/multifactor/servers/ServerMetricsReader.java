package io.multifactor.servers;

import io.multifactor.kernel.signal.ServerKind;

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
 * NaN when absent.
 * <p>
 * This class is not threadsafe: one reader per thread; it allocates nothing per body.
 */
public final class ServerMetricsReader
{
    private static final int WAITING = 0;
    private static final int RUNNING = 1;
    private static final int KV = 2;
    private static final int KV_OLD = 3;

    private final PrometheusTextParser parser;
    private double waiting = Double.NaN;
    private double running = Double.NaN;
    private double kvUse = Double.NaN;

    /**
     * @param kind the kind of server whose names to read.
     */
    public ServerMetricsReader(final ServerKind kind)
    {
        final double any = Double.MAX_VALUE;
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
        return !Double.isNaN(waiting) && !Double.isNaN(kvUse) && waiting < Double.POSITIVE_INFINITY;
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
