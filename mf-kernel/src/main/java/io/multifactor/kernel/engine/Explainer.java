package io.multifactor.kernel.engine;

import io.multifactor.api.Exclusions;
import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.kernel.explain.Explanation;
import io.multifactor.kernel.plan.DecisionPlan;

/**
 * Builds an {@link Explanation}: selects into a fresh {@link Selection} on one published state, as {@code select}
 * would, without counting or leasing, and turns it into a readable record against that same plans snapshot.
 * <p>
 * This class is threadsafe: each call allocates its own selection and record; off the hot path.
 */
final class Explainer
{
    private final StateInstaller installer;
    private final boolean peakEwma;

    Explainer(final StateInstaller installer, final boolean peakEwma)
    {
        this.installer = installer;
        this.peakEwma = peakEwma;
    }

    Explanation explain(final int decisionId, final Exclusions exclusionsOrNull, final Request requestOrNull)
    {
        while (true)
        {
            // select reads the state once; selecting between two reads of the same snapshot guarantees that the names,
            // ceilings and percentile of the record are those the selection ran on, even across a concurrent reload.
            final EngineState before = installer.state;
            final DecisionPlan plan = before.plans.decision(decisionId);
            if (plan == null)
            {
                throw new IllegalArgumentException("no decision with handle " + decisionId + " in the current plans");
            }
            final Selection selection = new Selection(plan.candidateCount());
            Selector.selectOn(before, decisionId, exclusionsOrNull, requestOrNull, selection);
            if (installer.state == before)
            {
                return Explanation.of(before.plans, plan, selection, peakEwma, requestOrNull);
            }
        }
    }
}
