package io.multifactor.testkit.reference;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * One request's view of the signals: observations by model name (a model absent from the map has no observation and
 * nothing in flight), the names of the models this request excludes, its token counts when it carries them, and the
 * seed of its generator ({@code tie_break: random}, {@code pick: p2c}).
 * <p>
 * Instances are immutable and threadsafe (both collections are copied).
 *
 * @param observations observed signals by model name.
 * @param excluded names of the models this request leaves out.
 * @param promptTokens {@code prompt_tokens}, {@code null} when not given.
 * @param maxOutputTokens {@code max_output_tokens}, {@code null} when not given.
 * @param seed seed of the request's generator.
 */
public record ReferenceRequest(
    Map<String, ReferenceObservation> observations, Set<String> excluded, Long promptTokens, Long maxOutputTokens,
    long seed)
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
     * A request without token counts, seeded with 0.
     *
     * @param observations observed signals by model name.
     * @param excluded names of the models this request leaves out.
     */
    public ReferenceRequest(final Map<String, ReferenceObservation> observations, final Set<String> excluded)
    {
        this(observations, excluded, null, null, 0L);
    }

    /**
     * @param prompt {@code prompt_tokens}, {@code null} when not given.
     * @param maxOutput {@code max_output_tokens}, {@code null} when not given.
     * @return a copy with these token counts.
     */
    public ReferenceRequest withTokens(final Long prompt, final Long maxOutput)
    {
        return new ReferenceRequest(observations, excluded, prompt, maxOutput, seed);
    }

    /**
     * @param generatorSeed seed of the request's generator.
     * @return a copy with this seed.
     */
    public ReferenceRequest withSeed(final long generatorSeed)
    {
        return new ReferenceRequest(observations, excluded, promptTokens, maxOutputTokens, generatorSeed);
    }

    /**
     * @param model model name.
     * @param observation what is now observed about it.
     * @return a copy with this observation of the model.
     */
    public ReferenceRequest withObservation(final String model, final ReferenceObservation observation)
    {
        final Map<String, ReferenceObservation> next = new HashMap<>(observations);
        next.put(model, observation);
        return new ReferenceRequest(next, excluded, promptTokens, maxOutputTokens, seed);
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
