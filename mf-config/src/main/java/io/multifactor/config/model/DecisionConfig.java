package io.multifactor.config.model;

import java.util.List;

/**
 * One entry of {@code decisions:}.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param name unique name.
 * @param modelRefs candidate model names in order; non-empty, no duplicates.
 * @param multiFactor its algorithm settings.
 */
public record DecisionConfig(String name, List<String> modelRefs, MultiFactorConfig multiFactor)
{
    /**
     * @param name unique name.
     * @param modelRefs candidate model names in order; copied.
     * @param multiFactor its algorithm settings.
     */
    public DecisionConfig
    {
        modelRefs = List.copyOf(modelRefs);
    }
}
