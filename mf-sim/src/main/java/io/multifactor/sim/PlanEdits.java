package io.multifactor.sim;

import io.multifactor.api.Factor;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;

/**
 * Variants of a compiled configuration for what-if runs, such as the same decisions with every SLO ceiling off.
 * Handles are kept: the variant is built as a successor of the original.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class PlanEdits
{
    private PlanEdits()
    {
    }

    /**
     * @param plans a compiled configuration.
     * @return the same models and decisions (candidates, weights, percentile, policy) with every ceiling off.
     */
    public static Plans withoutCeilings(final Plans plans)
    {
        final PlansBuilder builder = new PlansBuilder(plans);
        for (int id = 0; id < plans.modelCapacity(); id++)
        {
            final String name = plans.modelName(id);
            if (name != null)
            {
                builder.model(name, plans.modelQuality(id), plans.modelPromptPer1M(id), plans.modelCompletionPer1M(id));
            }
        }
        for (int id = 0; id < plans.decisionCapacity(); id++)
        {
            final DecisionPlan plan = plans.decision(id);
            if (plan == null)
            {
                continue;
            }
            final String[] candidates = new String[plan.candidateCount()];
            for (int i = 0; i < candidates.length; i++)
            {
                candidates[i] = plans.modelName(plan.candidateModelId(i));
            }
            builder.decision(plan.name())
                .candidates(candidates)
                .weights(plan.weight(Factor.QUALITY), plan.weight(Factor.LATENCY), plan.weight(Factor.COST),
                    plan.weight(Factor.LOAD))
                .slo(0.0, 0.0, 0.0, 0L)
                .percentile(plan.percentile())
                .policy(plan.policy())
                .pick(plan.pick())
                .loadMetric(plan.loadMetric())
                .add();
        }
        return builder.build();
    }
}
