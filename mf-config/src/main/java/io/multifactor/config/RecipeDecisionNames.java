package io.multifactor.config;

import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.Plans;

import java.util.ArrayList;
import java.util.List;

/**
 * Helps a user who names a decision of a vLLM Semantic Router recipe without its recipe: such a decision is named
 * {@code RECIPE/DECISION} (except in the recipe named {@code default}), so {@code bulk} finds {@code batch/bulk}.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class RecipeDecisionNames
{
    private RecipeDecisionNames()
    {
    }

    /**
     * @param plans a compiled configuration.
     * @param decision a decision name that is not in it.
     * @return the decisions named {@code RECIPE/decision}, in handle order; empty when there is none.
     */
    public static List<String> qualified(final Plans plans, final String decision)
    {
        final String suffix = '/' + decision;
        final List<String> names = new ArrayList<>();
        for (int id = 0; id < plans.decisionCapacity(); id++)
        {
            final DecisionPlan plan = plans.decision(id);
            if (plan != null && plan.name().endsWith(suffix))
            {
                names.add(plan.name());
            }
        }
        return names;
    }

    /**
     * @param plans a compiled configuration.
     * @param decision a decision name that is not in it.
     * @return {@code " (a recipe's decision is named RECIPE/DECISION: did you mean batch/bulk?)"}, or the empty string
     *     when no recipe has a decision of that name.
     */
    public static String hint(final Plans plans, final String decision)
    {
        final List<String> names = qualified(plans, decision);
        return names.isEmpty() ? "" :
            " (a recipe's decision is named RECIPE/DECISION: did you mean " + String.join(" or ", names) + "?)";
    }
}
