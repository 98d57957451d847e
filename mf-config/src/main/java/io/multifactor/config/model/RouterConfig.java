package io.multifactor.config.model;

import java.util.List;

/**
 * A whole validated configuration file.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param models the models in file order.
 * @param decisions the decisions in file order.
 * @param signals the engine-wide signal settings.
 */
public record RouterConfig(List<ModelConfig> models, List<DecisionConfig> decisions, SignalsConfig signals)
{
    /**
     * @param models the models in file order; copied.
     * @param decisions the decisions in file order; copied.
     * @param signals the engine-wide signal settings.
     */
    public RouterConfig
    {
        models = List.copyOf(models);
        decisions = List.copyOf(decisions);
    }
}
