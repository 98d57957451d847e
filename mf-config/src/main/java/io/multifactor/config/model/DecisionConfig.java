package io.multifactor.config.model;

import io.multifactor.kernel.plan.AlgorithmType;
import io.multifactor.kernel.plan.PeerParameters;

import java.util.List;

/**
 * One entry of {@code decisions:}.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param name unique name.
 * @param modelRefs candidate model names in order; non-empty, no duplicates.
 * @param multiFactor its {@code multi_factor} settings, as read even when {@code algorithmType} is a baseline (which
 *     ignores them; a load test still reads the ceilings from them).
 * @param algorithmType its {@code algorithm.type} as an {@link AlgorithmType} code.
 * @param peerParameters the parameters of its peer policy ({@code algorithm.<type>:}), defaults for any other type.
 */
public record DecisionConfig(
    String name, List<String> modelRefs, MultiFactorConfig multiFactor, int algorithmType, PeerParameters peerParameters)
{
    /**
     * @param name unique name.
     * @param modelRefs candidate model names in order; copied.
     * @param multiFactor its {@code multi_factor} settings.
     * @param algorithmType an {@link AlgorithmType} code.
     * @param peerParameters the parameters of its peer policy.
     */
    public DecisionConfig
    {
        modelRefs = List.copyOf(modelRefs);
        AlgorithmType.label(algorithmType);
        java.util.Objects.requireNonNull(peerParameters, "peerParameters");
    }

    /**
     * A decision whose peer policy, if any, has every default.
     *
     * @param name unique name.
     * @param modelRefs candidate model names in order; copied.
     * @param multiFactor its {@code multi_factor} settings.
     * @param algorithmType an {@link AlgorithmType} code.
     */
    public DecisionConfig(
        final String name, final List<String> modelRefs, final MultiFactorConfig multiFactor, final int algorithmType)
    {
        this(name, modelRefs, multiFactor, algorithmType, PeerParameters.DEFAULTS);
    }

    /**
     * A {@code multi_factor} decision.
     *
     * @param name unique name.
     * @param modelRefs candidate model names in order; copied.
     * @param multiFactor its algorithm settings.
     */
    public DecisionConfig(final String name, final List<String> modelRefs, final MultiFactorConfig multiFactor)
    {
        this(name, modelRefs, multiFactor, AlgorithmType.MULTI_FACTOR);
    }

    /**
     * @param type an {@link AlgorithmType} code.
     * @return this decision with its {@code algorithm.type} replaced (its settings kept): what a policy comparison
     *     runs.
     */
    public DecisionConfig withAlgorithmType(final int type)
    {
        return new DecisionConfig(name, modelRefs, multiFactor, type, peerParameters);
    }
}
