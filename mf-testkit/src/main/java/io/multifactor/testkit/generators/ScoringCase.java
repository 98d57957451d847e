package io.multifactor.testkit.generators;

import io.multifactor.testkit.reference.ReferenceDecision;
import io.multifactor.testkit.reference.ReferenceRequest;

import java.util.Objects;

/**
 * One generated selection problem: a decision as configured and one request's observations and exclusions.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param decision the decision, its candidates carrying their configured quality and price.
 * @param request observations and exclusions for one request.
 */
public record ScoringCase(ReferenceDecision decision, ReferenceRequest request)
{
    /** Checks both parts are present. */
    public ScoringCase
    {
        Objects.requireNonNull(decision, "decision");
        Objects.requireNonNull(request, "request");
    }

    /** @return number of candidates of the decision. */
    public int candidateCount()
    {
        return decision.candidates().size();
    }
}
