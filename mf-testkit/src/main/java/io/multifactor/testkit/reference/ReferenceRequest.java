package io.multifactor.testkit.reference;

import java.util.Map;
import java.util.Set;

/**
 * One request's view of the signals: observations by model name (a model absent from the map has no latency observation
 * and nothing in flight) and the names of the models this request excludes.
 * <p>
 * Instances are immutable and threadsafe (both collections are copied).
 *
 * @param observations observed signals by model name.
 * @param excluded names of the models this request leaves out.
 */
public record ReferenceRequest(Map<String, ReferenceObservation> observations, Set<String> excluded)
{
    /** Copies both collections. */
    public ReferenceRequest
    {
        observations = Map.copyOf(observations);
        excluded = Set.copyOf(excluded);
    }

    /**
     * @param model model name.
     * @return what was observed about it, {@link ReferenceObservation#NONE} when nothing was.
     */
    public ReferenceObservation observation(final String model)
    {
        return observations.getOrDefault(model, ReferenceObservation.NONE);
    }
}
