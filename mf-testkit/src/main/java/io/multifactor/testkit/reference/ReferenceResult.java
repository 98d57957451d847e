package io.multifactor.testkit.reference;

import io.multifactor.api.Outcome;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The result of one selection: the outcome, the chosen candidate (if any), the effective weights and every candidate in
 * {@code modelRefs} order.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param decision decision name.
 * @param outcome an {@link Outcome} code.
 * @param selectedIndex position of the chosen candidate, -1 when nothing was chosen.
 * @param selectedModel name of the chosen model, {@code null} when nothing was chosen.
 * @param weights factor label to effective weight (clamped and normalized to sum to 1).
 * @param candidates every candidate, in order.
 */
public record ReferenceResult(
    String decision,
    int outcome,
    int selectedIndex,
    String selectedModel,
    Map<String, Double> weights,
    List<ReferenceCandidate> candidates)
{
    /** Copies the collections. */
    public ReferenceResult
    {
        Objects.requireNonNull(decision, "decision");
        weights = Map.copyOf(weights);
        candidates = List.copyOf(candidates);
    }

    /** @return the outcome label, such as {@code "scored"}. */
    public String outcomeLabel()
    {
        return Outcome.label(outcome);
    }

    /** @return score of the chosen candidate, {@code null} when nothing was chosen or a fallback policy chose. */
    public Double selectedScore()
    {
        return selectedIndex >= 0 ? candidates.get(selectedIndex).score() : null;
    }

    /**
     * @param model model name.
     * @return that candidate.
     * @throws IllegalArgumentException when the model is not a candidate.
     */
    public ReferenceCandidate candidate(final String model)
    {
        for (final ReferenceCandidate candidate : candidates)
        {
            if (candidate.model().equals(model))
            {
                return candidate;
            }
        }
        throw new IllegalArgumentException("not a candidate of " + decision + ": " + model);
    }
}
