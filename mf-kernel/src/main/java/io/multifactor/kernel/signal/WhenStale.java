package io.multifactor.kernel.signal;

/**
 * What a model whose backends are all stale means to a decision with a queue or KV-cache ceiling
 * ({@code signals.server_metrics.when_stale}).
 * <p>
 * This enum is immutable and threadsafe.
 */
public enum WhenStale
{
    /** Stale values are missing: the model is neither scored on them nor dropped. */
    IGNORE("ignore"),
    /** Stale values mean a saturated server: the model is dropped with reason {@code stale}. */
    SATURATED("saturated");

    private final String configName;

    WhenStale(final String configName)
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
     * @return the policy it names, or {@code null} when it names none.
     */
    public static WhenStale ofConfigName(final String word)
    {
        for (final WhenStale policy : values())
        {
            if (policy.configName.equals(word))
            {
                return policy;
            }
        }
        return null;
    }
}
