package io.multifactor.testkit.reference;

import java.util.Map;
import java.util.Set;

/**
 * One request's view of the signals: observations by model name (a model absent from the map has no latency observation
 * and nothing in flight), the names of the models this request excludes, and its token counts when it carries them.
 * <p>
 * Instances are immutable and threadsafe (both collections are copied).
 *
 * @param observations observed signals by model name.
 * @param excluded names of the models this request leaves out.
 * @param promptTokens {@code prompt_tokens}, {@code null} when not given.
 * @param maxOutputTokens {@code max_output_tokens}, {@code null} when not given.
 */
public record ReferenceRequest(
    Map<String, ReferenceObservation> observations, Set<String> excluded, Long promptTokens, Long maxOutputTokens)
{
    /**
     * Copies both collections.
     *
     * @throws IllegalArgumentException for a negative token count.
     */
    public ReferenceRequest
    {
        observations = Map.copyOf(observations);
        excluded = Set.copyOf(excluded);
        if ((promptTokens != null && promptTokens < 0) || (maxOutputTokens != null && maxOutputTokens < 0))
        {
            throw new IllegalArgumentException("token counts must be >= 0: " + promptTokens + ", " + maxOutputTokens);
        }
    }

    /**
     * A request without token counts.
     *
     * @param observations observed signals by model name.
     * @param excluded names of the models this request leaves out.
     */
    public ReferenceRequest(final Map<String, ReferenceObservation> observations, final Set<String> excluded)
    {
        this(observations, excluded, null, null);
    }

    /**
     * @param prompt {@code prompt_tokens}, {@code null} when not given.
     * @param maxOutput {@code max_output_tokens}, {@code null} when not given.
     * @return a copy with these token counts.
     */
    public ReferenceRequest withTokens(final Long prompt, final Long maxOutput)
    {
        return new ReferenceRequest(observations, excluded, prompt, maxOutput);
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
