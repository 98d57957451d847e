package io.multifactor.kernel.signal;

/**
 * The kind of model server behind a model's backends ({@code server:} in the YAML), which says which metric names its
 * {@code /metrics} publishes.
 * <p>
 * This enum is immutable and threadsafe.
 */
public enum ServerKind
{
    /** vLLM: {@code vllm:num_requests_waiting}, {@code vllm:num_requests_running}, {@code vllm:kv_cache_usage_perc}. */
    VLLM("vllm"),
    /** SGLang: {@code sglang:num_queue_reqs}, {@code sglang:num_running_reqs}, {@code sglang:token_usage}. */
    SGLANG("sglang");

    private final String configName;

    ServerKind(final String configName)
    {
        this.configName = configName;
    }

    /** @return the word written in the YAML. */
    public String configName()
    {
        return configName;
    }

    /**
     * @param word a word from the YAML.
     * @return the kind it names, or {@code null} when it names none.
     */
    public static ServerKind ofConfigName(final String word)
    {
        for (final ServerKind kind : values())
        {
            if (kind.configName.equals(word))
            {
                return kind;
            }
        }
        return null;
    }
}
