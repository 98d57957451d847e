package io.multifactor.kernel.scoring;

import io.multifactor.api.Exclusions;
import io.multifactor.api.Selection;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.Plans;

/** Test helper: publishes each candidate's observations into standalone signals and runs the kernel. */
final class KernelRun
{
    private KernelRun()
    {
    }

    /** One candidate's observation: TPOT and TTFT in ms (NaN when missing), in-flight count, excluded flag. */
    record Observed(double tpotMs, double ttftMs, long inflight, boolean excluded)
    {
    }

    static Observed obs(final double tpotMs, final double ttftMs, final long inflight)
    {
        return new Observed(tpotMs, ttftMs, inflight, false);
    }

    static Observed none()
    {
        return new Observed(Double.NaN, Double.NaN, 0, false);
    }

    static Observed excluded()
    {
        return new Observed(Double.NaN, Double.NaN, 0, true);
    }

    static Selection select(final Plans plans, final String decision, final Observed... observed)
    {
        final DecisionPlan plan = plans.decision(plans.decisionId(decision));
        final Selection selection = new Selection();
        final CandidateSignals signals = CandidateSignals.standalone(plan.candidateCount());
        final Exclusions exclusions = new Exclusions();
        for (int i = 0; i < plan.candidateCount(); i++)
        {
            final Observed o = observed.length == 0 ? none() : observed[i];
            signals.publishLatencyMs(i, o.tpotMs(), o.ttftMs());
            signals.inflight(i, o.inflight());
            if (o.excluded())
            {
                exclusions.add(plan.candidateModelId(i));
            }
        }
        ScoringKernel.select(plan, signals, exclusions, selection);
        return selection;
    }

    static String selectedName(final Plans plans, final Selection selection)
    {
        return plans.modelName(selection.selectedModel());
    }
}
