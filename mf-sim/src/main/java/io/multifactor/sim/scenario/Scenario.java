package io.multifactor.sim.scenario;

import io.multifactor.api.ConfigProblem;
import io.multifactor.api.Handles;
import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.config.RecipeDecisionNames;
import io.multifactor.config.read.NameHint;
import io.multifactor.kernel.plan.Plans;

import java.util.ArrayList;
import java.util.List;

/**
 * The observations for one request, as read from a scenario file (docs/configuration.md): the decision to select,
 * the candidates the request excludes, its token counts and tie-break seed when given, and per model its latency
 * samples and in-flight count.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param file name of the scenario file as given.
 * @param decision the decision to select.
 * @param exclude the models this request leaves out.
 * @param models the observations per model, in file order.
 * @param promptTokens {@code prompt_tokens}, {@code null} when not given.
 * @param maxOutputTokens {@code max_output_tokens}, {@code null} when not given.
 * @param seed {@code seed} of the random tie-break, {@code null} when not given.
 * @param session {@code session}: the request's session entry, {@code null} when the request carries no session key.
 * @param limits {@code needs}, {@code request_slo} and {@code priority}, {@link RequestLimits#NONE} when none.
 */
public record Scenario(
    String file,
    LocatedName decision,
    List<LocatedName> exclude,
    List<ModelObservations> models,
    Long promptTokens,
    Long maxOutputTokens,
    Long seed,
    ScenarioSession session,
    RequestLimits limits)
{
    /**
     * @param file name of the scenario file as given.
     * @param decision the decision to select.
     * @param exclude the models this request leaves out; copied.
     * @param models the observations per model; copied.
     * @param promptTokens {@code prompt_tokens} or {@code null}.
     * @param maxOutputTokens {@code max_output_tokens} or {@code null}.
     * @param seed {@code seed} or {@code null}.
     */
    public Scenario
    {
        exclude = List.copyOf(exclude);
        models = List.copyOf(models);
        limits = limits == null ? RequestLimits.NONE : limits;
    }

    /**
     * A scenario without a session.
     *
     * @param file name of the scenario file as given.
     * @param decision the decision to select.
     * @param exclude the models this request leaves out.
     * @param models the observations per model.
     * @param promptTokens {@code prompt_tokens} or {@code null}.
     * @param maxOutputTokens {@code max_output_tokens} or {@code null}.
     * @param seed {@code seed} or {@code null}.
     */
    public Scenario(
        final String file, final LocatedName decision, final List<LocatedName> exclude,
        final List<ModelObservations> models, final Long promptTokens, final Long maxOutputTokens, final Long seed)
    {
        this(file, decision, exclude, models, promptTokens, maxOutputTokens, seed, null, RequestLimits.NONE);
    }

    /**
     * A scenario whose request carries no needs, ceilings or priority.
     *
     * @param file name of the scenario file as given.
     * @param decision the decision to select.
     * @param exclude the models this request leaves out.
     * @param models the observations per model.
     * @param promptTokens {@code prompt_tokens} or {@code null}.
     * @param maxOutputTokens {@code max_output_tokens} or {@code null}.
     * @param seed {@code seed} or {@code null}.
     * @param session the request's session entry, or {@code null}.
     */
    public Scenario(
        final String file, final LocatedName decision, final List<LocatedName> exclude,
        final List<ModelObservations> models, final Long promptTokens, final Long maxOutputTokens, final Long seed,
        final ScenarioSession session)
    {
        this(file, decision, exclude, models, promptTokens, maxOutputTokens, seed, session, RequestLimits.NONE);
    }

    /**
     * A scenario without a session.
     *
     * @param file name of the scenario file as given.
     * @param decision the decision to select.
     * @param exclude the models this request leaves out.
     * @param models the observations per model.
     * @param promptTokens {@code prompt_tokens} or {@code null}.
     * @param maxOutputTokens {@code max_output_tokens} or {@code null}.
     * @param seed {@code seed} or {@code null}.
     * @param limits {@code needs}, {@code request_slo} and {@code priority}.
     */
    public Scenario(
        final String file, final LocatedName decision, final List<LocatedName> exclude,
        final List<ModelObservations> models, final Long promptTokens, final Long maxOutputTokens, final Long seed,
        final RequestLimits limits)
    {
        this(file, decision, exclude, models, promptTokens, maxOutputTokens, seed, null, limits);
    }

    /**
     * A scenario without token counts or seed.
     *
     * @param file name of the scenario file as given.
     * @param decision the decision to select.
     * @param exclude the models this request leaves out.
     * @param models the observations per model.
     */
    public Scenario(
        final String file, final LocatedName decision, final List<LocatedName> exclude,
        final List<ModelObservations> models)
    {
        this(file, decision, exclude, models, null, null, null, null, RequestLimits.NONE);
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
        final List<String> modelNames = modelNames(plans);
        for (final LocatedName excluded : exclude)
        {
            if (plans.modelId(excluded.name()) == Handles.NONE)
            {
                problems.add(unknown("model", excluded, NameHint.of(excluded.name(), modelNames, "models")));
            }
        }
        for (final ModelObservations model : models)
        {
            if (plans.modelId(model.model().name()) == Handles.NONE)
            {
                problems.add(unknown("model", model.model(), NameHint.of(model.model().name(), modelNames, "models")));
            }
        }
        if (session != null && session.modelOrNull() != null &&
            plans.modelId(session.modelOrNull().name()) == Handles.NONE)
        {
            problems.add(unknown("model", session.modelOrNull(),
                NameHint.of(session.modelOrNull().name(), modelNames, "models")));
        }
        if (!problems.isEmpty())
        {
            problems.sort((a, b) -> a.line() != b.line() ? Integer.compare(a.line(), b.line()) :
                Integer.compare(a.column(), b.column()));
            throw new InvalidConfigurationException(problems);
        }
    }

    /**
     * An unknown decision: a recipe decision of a vLLM Semantic Router file named without its recipe is suggested,
     * else the nearest decision name, else the configuration's decisions are listed.
     */
    private ConfigProblem unknownDecision(final Plans plans)
    {
        final String recipe = RecipeDecisionNames.hint(plans, decision.name());
        return unknown("decision", decision,
            recipe.isEmpty() ? NameHint.of(decision.name(), decisionNames(plans), "decisions") : recipe);
    }

    private ConfigProblem unknown(final String what, final LocatedName name, final String hint)
    {
        return new ConfigProblem(file, name.line(), name.column(), name.path(),
            what + " \"" + name.name() + "\" is not in the configuration" + hint);
    }

    private static List<String> modelNames(final Plans plans)
    {
        final List<String> names = new ArrayList<>();
        for (int id = 0; id < plans.modelCapacity(); id++)
        {
            if (plans.hasModel(id))
            {
                names.add(plans.modelName(id));
            }
        }
        return names;
    }

    private static List<String> decisionNames(final Plans plans)
    {
        final List<String> names = new ArrayList<>();
        for (int id = 0; id < plans.decisionCapacity(); id++)
        {
            if (plans.decision(id) != null)
            {
                names.add(plans.decision(id).name());
            }
        }
        return names;
    }
}
