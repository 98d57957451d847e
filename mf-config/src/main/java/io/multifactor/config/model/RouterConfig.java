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
 * @param fleet the {@code fleet:} block, {@link FleetConfig#NONE} when absent.
 */
public record RouterConfig(List<ModelConfig> models, List<DecisionConfig> decisions, SignalsConfig signals,
    FleetConfig fleet)
{
    /**
     * @param models the models in file order; copied.
     * @param decisions the decisions in file order; copied.
     * @param signals the engine-wide signal settings.
     * @param fleet the {@code fleet:} block, {@link FleetConfig#NONE} when absent.
     */
    public RouterConfig
    {
        models = List.copyOf(models);
        decisions = List.copyOf(decisions);
        fleet = fleet == null ? FleetConfig.NONE : fleet;
    }

    /**
     * A configuration without a fleet.
     *
     * @param models the models in file order; copied.
     * @param decisions the decisions in file order; copied.
     * @param signals the engine-wide signal settings.
     */
    public RouterConfig(final List<ModelConfig> models, final List<DecisionConfig> decisions, final SignalsConfig signals)
    {
        this(models, decisions, signals, FleetConfig.NONE);
    }
}
