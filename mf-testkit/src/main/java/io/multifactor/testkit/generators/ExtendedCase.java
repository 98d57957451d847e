package io.multifactor.testkit.generators;

import io.multifactor.testkit.reference.ReferenceDecision;
import io.multifactor.testkit.reference.ReferenceExtensions;
import io.multifactor.testkit.reference.ReferenceRequest;

import java.util.Objects;

/**
 * One generated selection problem with the extension keys: a decision, its extension keys, and one request's
 * observations, exclusions and token counts.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param decision the decision, its candidates carrying their quality and prices.
 * @param extensions the decision's extension keys.
 * @param request observations, exclusions and token counts for one request.
 */
public record ExtendedCase(ReferenceDecision decision, ReferenceExtensions extensions, ReferenceRequest request)
{
    /** Checks every part is present. */
    public ExtendedCase
    {
        Objects.requireNonNull(decision, "decision");
        Objects.requireNonNull(extensions, "extensions");
        Objects.requireNonNull(request, "request");
    }

    /**
     * @param other other extension keys.
     * @return the same decision and request with {@code other}.
     */
    public ExtendedCase with(final ReferenceExtensions other)
    {
        return new ExtendedCase(decision, other, request);
    }

    /**
     * @param other another request.
     * @return the same decision and keys with {@code other}.
     */
    public ExtendedCase with(final ReferenceRequest other)
    {
        return new ExtendedCase(decision, extensions, other);
    }
}
