package io.multifactor.testkit.reference;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;


/** Test helper: runs the reference and the kernel on one input and applies the same assertions to both. */
final class BothImplementations
{
    private BothImplementations()
    {
    }

    static ReferenceModel model(final String name, final Double quality, final Double promptPer1M)
    {
        return new ReferenceModel(name, quality, promptPer1M);
    }

    static ReferenceObservation observed(final Double tpotMs, final Double ttftMs, final long inflight)
    {
        return new ReferenceObservation(tpotMs, ttftMs, inflight);
    }

    static ReferenceRequest request(final Map<String, ReferenceObservation> observations, final String... excluded)
    {
        return new ReferenceRequest(observations, Set.of(excluded));
    }

    /**
     * Runs both implementations, applies {@code expectations} to each, and checks they agree with each other within {@link ScoreTolerance}.
     *
     * @return the reference's result.
     */
    static ReferenceResult assertBoth(
        final ReferenceDecision decision, final ReferenceRequest request, final Consumer<ReferenceResult> expectations)
    {
        final ReferenceCase c = new ReferenceCase(decision, request);
        final ReferenceResult reference = ReferenceScorer.select(c);
        final ReferenceResult kernel = KernelAdapter.select(c);
        for (final ReferenceResult result : List.of(reference, kernel))
        {
            expectations.accept(result);
        }
        ScoreTolerance.assertAgree(kernel, reference);
        return reference;
    }
}
