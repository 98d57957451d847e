package io.multifactor.config.model;

import io.multifactor.kernel.plan.AlgorithmType;
import io.multifactor.kernel.plan.PeerParameters;

import java.util.Objects;

/**
 * A model's {@code backend_choice:}: the rule of a decision's {@code algorithm.type} applied among the model's
 * {@code backend_refs} instead of the weighted choice, with the parameters of a peer's policy.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param type an {@link AlgorithmType} code other than {@code multi_factor}, or {@link #DEFAULT} for the weighted
 *     choice (or prefix-cache affinity with {@code prefix_affinity}).
 * @param parameters the parameters of its peer policy ({@link PeerParameters#DEFAULTS} for the others).
 */
public record BackendChoiceConfig(int type, PeerParameters parameters)
{
    /** The type code of the default choice: by weight, or by prefix-cache affinity. */
    public static final int DEFAULT = -1;

    /** No {@code backend_choice}: the default choice. */
    public static final BackendChoiceConfig NONE = new BackendChoiceConfig(DEFAULT, PeerParameters.DEFAULTS);

    /**
     * @param type an {@link AlgorithmType} code other than {@code multi_factor}, or {@link #DEFAULT}.
     * @param parameters the parameters of its peer policy.
     */
    public BackendChoiceConfig
    {
        if (type != DEFAULT)
        {
            AlgorithmType.label(type);
            if (type == AlgorithmType.MULTI_FACTOR)
            {
                throw new IllegalArgumentException("multi_factor is not a backend choice");
            }
        }
        Objects.requireNonNull(parameters, "parameters");
    }

    /** @return whether a rule replaces the default choice. */
    public boolean isSet()
    {
        return type != DEFAULT;
    }
}
