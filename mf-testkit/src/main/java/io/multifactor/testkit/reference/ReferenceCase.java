package io.multifactor.testkit.reference;

import io.multifactor.api.Factor;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One selection problem, every key at once: a decision as configured (its candidates, every factor's weight, every
 * ceiling and the keys beyond the seed's) and one request (its observations of every signal, exclusions, token counts
 * and generator seed). {@link ReferenceScorer} answers it from the documented rules, {@link KernelAdapter} runs the real
 * kernel on it, and the generators produce it.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param decision the decision, its candidates carrying their configured quality and prices.
 * @param request the request's observations, exclusions, token counts and seed.
 * @param eligibility the eligibility and admission keys, {@link ReferenceEligibility#NONE} when none.
 */
public record ReferenceCase(ReferenceDecision decision, ReferenceRequest request, ReferenceEligibility eligibility)
{
    /**
     * A problem without eligibility or admission keys.
     *
     * @param decision the decision.
     * @param request the request.
     */
    public ReferenceCase(final ReferenceDecision decision, final ReferenceRequest request)
    {
        this(decision, request, ReferenceEligibility.NONE);
    }

    /**
     * @param other eligibility and admission keys.
     * @return this problem with them.
     */
    public ReferenceCase with(final ReferenceEligibility other)
    {
        return new ReferenceCase(decision, request, other);
    }

    /** Checks both parts are present. */
    public ReferenceCase
    {
        Objects.requireNonNull(decision, "decision");
        Objects.requireNonNull(request, "request");
        eligibility = eligibility == null ? ReferenceEligibility.NONE : eligibility;
    }

    /** @return number of candidates of the decision. */
    public int candidateCount()
    {
        return decision.candidates().size();
    }

    /**
     * @param other another decision.
     * @return the same request with {@code other}.
     */
    public ReferenceCase with(final ReferenceDecision other)
    {
        return new ReferenceCase(other, request, eligibility);
    }

    /**
     * @param other another request.
     * @return the same decision with {@code other}.
     */
    public ReferenceCase with(final ReferenceRequest other)
    {
        return new ReferenceCase(decision, other, eligibility);
    }

    /**
     * @param other other keys beyond the seed's.
     * @return the same decision with {@code other}, and the same request.
     */
    public ReferenceCase with(final ReferenceExtensions other)
    {
        return new ReferenceCase(decision.withExtensions(other), request, eligibility);
    }

    /**
     * How many factors a result of this case reports in its weights and normalized values: the seed's four, or every
     * factor when a signal beyond the seed's takes part (the decision weighs or bounds one, or a candidate has one), as
     * {@code explain} shows them.
     *
     * @return {@link Factor#SEED_COUNT} or {@link Factor#COUNT}.
     */
    public int reportedFactors()
    {
        if (decision.beyondSeed())
        {
            return Factor.COUNT;
        }
        for (final ReferenceModel model : decision.candidates())
        {
            if (request.observation(model.name()).beyondSeed())
            {
                return Factor.COUNT;
            }
        }
        return Factor.SEED_COUNT;
    }

    /**
     * @return the same observations, servers' values and tokens with the defaults of a decision that does not use
     *     them: {@code load_metric: requests}, the weights beyond the seed's 0, no token, queue or KV-cache ceiling,
     *     {@code when_stale} kept (it only acts with a ceiling).
     */
    public ReferenceCase unweighted()
    {
        ReferenceDecision d = decision;
        for (int f = Factor.SEED_COUNT; f < Factor.COUNT; f++)
        {
            d = d.withWeight(f, 0.0);
        }
        final ReferenceExtensions e = d.extensions();
        return new ReferenceCase(
            d.withExtensions(e.withTokenLoad(false, 0L).withServerCeilings(0L, 0.0, e.whenStaleSaturated())), request,
            eligibility);
    }

    /**
     * @return the same case with no signal beyond the seed's observed: no token in flight, no server's queue or
     *     KV-cache use, nothing stale.
     */
    public ReferenceCase withoutLoadSignals()
    {
        final Map<String, ReferenceObservation> observations = new HashMap<>();
        for (final Map.Entry<String, ReferenceObservation> e : request.observations().entrySet())
        {
            final ReferenceObservation o = e.getValue();
            observations.put(e.getKey(), new ReferenceObservation(o.tpotMs(), o.ttftMs(), o.inflight()));
        }
        return new ReferenceCase(decision, new ReferenceRequest(observations, request.excluded(), request.promptTokens(),
            request.maxOutputTokens(), request.seed()));
    }
}
