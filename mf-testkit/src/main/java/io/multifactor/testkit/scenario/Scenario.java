package io.multifactor.testkit.scenario;

import io.multifactor.api.ConfigProblem;
import io.multifactor.api.Handles;
import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.Plans;

import java.util.ArrayList;
import java.util.List;

/**
 * The observations for one request, as read from a scenario file (section 5 of the design): the decision to select, the
 * candidates the request excludes, and per model its latency samples and in-flight count.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param file name of the scenario file as given.
 * @param decision the decision to select.
 * @param exclude the models this request leaves out.
 * @param models the observations per model, in file order.
 */
public record Scenario(String file, LocatedName decision, List<LocatedName> exclude, List<ModelObservations> models)
{
    /**
     * @param file name of the scenario file as given.
     * @param decision the decision to select.
     * @param exclude the models this request leaves out; copied.
     * @param models the observations per model; copied.
     */
    public Scenario
    {
        exclude = List.copyOf(exclude);
        models = List.copyOf(models);
    }

    /**
     * Checks that every decision and model the scenario names exists in a configuration.
     *
     * @param plans the compiled configuration.
     * @throws InvalidConfigurationException naming the scenario file, line, column and path of every unknown name.
     */
    public void checkAgainst(final Plans plans) throws InvalidConfigurationException
    {
        final List<ConfigProblem> problems = new ArrayList<>();
        if (plans.decisionId(decision.name()) == Handles.NONE)
        {
            problems.add(unknownDecision(plans));
        }
        for (final LocatedName excluded : exclude)
        {
            if (plans.modelId(excluded.name()) == Handles.NONE)
            {
                problems.add(unknown("model", excluded));
            }
        }
        for (final ModelObservations model : models)
        {
            if (plans.modelId(model.model().name()) == Handles.NONE)
            {
                problems.add(unknown("model", model.model()));
            }
        }
        if (!problems.isEmpty())
        {
            problems.sort((a, b) -> a.line() != b.line() ? Integer.compare(a.line(), b.line()) :
                Integer.compare(a.column(), b.column()));
            throw new InvalidConfigurationException(problems);
        }
    }

    /** An unknown decision; a recipe decision of a vLLM Semantic Router file named without its recipe is suggested. */
    private ConfigProblem unknownDecision(final Plans plans)
    {
        final String suffix = '/' + decision.name();
        final List<String> qualified = new ArrayList<>();
        for (int id = 0; id < plans.decisionCapacity(); id++)
        {
            final DecisionPlan plan = plans.decision(id);
            if (plan != null && plan.name().endsWith(suffix))
            {
                qualified.add(plan.name());
            }
        }
        final ConfigProblem problem = unknown("decision", decision);
        if (qualified.isEmpty())
        {
            return problem;
        }
        return new ConfigProblem(problem.file(), problem.line(), problem.column(), problem.path(), problem.message() +
            " (a recipe's decision is named RECIPE/DECISION: did you mean " + String.join(" or ", qualified) + "?)");
    }

    private ConfigProblem unknown(final String what, final LocatedName name)
    {
        return new ConfigProblem(file, name.line(), name.column(), name.path(),
            what + " \"" + name.name() + "\" is not in the configuration");
    }
}
