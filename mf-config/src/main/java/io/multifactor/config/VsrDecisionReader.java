package io.multifactor.config;

import io.multifactor.config.model.DecisionConfig;
import io.multifactor.config.model.MultiFactorConfig;
import io.multifactor.config.model.SkippedDecision;
import io.multifactor.config.read.MappingReader;
import io.multifactor.config.read.NearestName;
import io.multifactor.config.read.Problems;
import io.multifactor.config.yaml.Excerpt;
import io.multifactor.config.yaml.YamlMapping;
import io.multifactor.config.yaml.YamlNode;
import io.multifactor.config.yaml.YamlScalar;
import io.multifactor.config.yaml.YamlSequence;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Reads the decisions of a vLLM Semantic Router file: {@code routing.decisions[]} (the default profile) and each
 * {@code recipes[].routing.decisions[]}, named {@code RECIPE/DECISION} except in the recipe named {@code default},
 * whose decisions keep their names. A decision whose {@code algorithm.type} is {@code multi_factor} contributes its
 * {@code name}, {@code modelRefs[].model} and {@code algorithm}, checked as strictly as in the own format; any other
 * decision is listed as skipped with its type, and only its name and type are read. Names must be unique after
 * qualification, across profiles and algorithm types.
 * <p>
 * This class is stateless and threadsafe.
 */
final class VsrDecisionReader
{
    static final String DEFAULT_RECIPE = "default";
    static final List<String> RECIPE_KEYS = List.of("name", "routing");
    static final List<String> RECIPE_ROUTING_KEYS = List.of("decisions");
    static final List<String> DECISION_KEYS = List.of("name", "modelRefs", "algorithm");
    static final List<String> MODEL_REF_KEYS = List.of("model");
    static final List<String> ALGORITHM_KEYS = List.of("type", MultiFactorReader.ALGORITHM);
    /** Keys of vSR's algorithm block that belong to its other algorithms (or to all, such as on_error). */
    static final List<String> OTHER_ALGORITHM_KEYS = List.of("on_error", "confidence", "ratings", "remom", "fusion",
        "workflows", "router_dc", "automix", "hybrid", "latency_aware", "prompt");
    /** vSR's algorithm types other than multi_factor: a decision of one of these is skipped without a word. */
    static final List<String> OTHER_ALGORITHM_TYPES = List.of("static", "knn", "kmeans", "svm", "mlp", "confidence",
        "ratings", "remom", "fusion", "workflows", "router_dc", "automix", "hybrid", "latency_aware", "prompt");

    private VsrDecisionReader()
    {
    }

    /**
     * The names a candidate may take, and the names of LoRA adapters, which it may not.
     *
     * @param nodes every model name, with where it is defined.
     * @param loraOwners every LoRA adapter name of {@code routing.modelCards[].loras[]}, with its card's name.
     */
    record Models(Map<String, YamlNode> nodes, Map<String, String> loraOwners)
    {
    }

    /**
     * @param routing reader of the top-level {@code routing:}, or {@code null} when absent.
     * @param recipes the {@code recipes:} list, or {@code null} when absent.
     * @param recipesPath path of {@code recipes}.
     * @param problems where to report.
     * @param models every model name, with where it is defined, and the LoRA adapter names.
     * @param skipped receives the decisions that are not multi_factor, in file order.
     * @return the multi_factor decisions in file order; meaningful only when no error was reported.
     */
    static List<DecisionConfig> read(
        final MappingReader routing, final YamlSequence recipes, final String recipesPath, final Problems problems,
        final Models models, final List<SkippedDecision> skipped)
    {
        final Profiles profiles = new Profiles(problems, models, skipped);
        if (routing != null)
        {
            profiles.decisions(routing, "");
        }
        if (recipes != null)
        {
            final Map<String, YamlNode> recipeNodes = new HashMap<>();
            for (int r = 0; r < recipes.items().size(); r++)
            {
                final MappingReader recipe = MappingReader.openIgnoringOthers(
                    recipes.items().get(r), recipesPath + '[' + r + ']', problems, RECIPE_KEYS);
                final String name = recipe.requiredName("name");
                String qualifier = null;
                if (name != null)
                {
                    final YamlNode first = recipeNodes.putIfAbsent(name, recipe.value("name"));
                    if (first != null)
                    {
                        problems.error(recipe.value("name"), recipe.path("name"),
                            "duplicate recipe \"" + Excerpt.value(name) + "\" (first defined at line " + first.line() + ')');
                    }
                    else
                    {
                        qualifier = DEFAULT_RECIPE.equals(name) ? "" : name + '/';
                    }
                }
                final MappingReader recipeRouting = recipe.optionalMappingIgnoringOthers("routing", RECIPE_ROUTING_KEYS);
                if (recipeRouting != null)
                {
                    profiles.decisions(recipeRouting, qualifier);
                }
            }
        }
        return profiles.decisions;
    }

    /** The decisions of every profile read so far, and the names they took. */
    private static final class Profiles
    {
        private final Problems problems;
        private final Models models;
        private final List<SkippedDecision> skipped;
        private final List<DecisionConfig> decisions = new ArrayList<>();
        private final Map<String, YamlNode> decisionNodes = new HashMap<>();

        Profiles(final Problems problems, final Models models, final List<SkippedDecision> skipped)
        {
            this.problems = problems;
            this.models = models;
            this.skipped = skipped;
        }

        /**
         * @param routing reader of a {@code routing:} block.
         * @param qualifier prefix of its decisions' names ({@code "RECIPE/"} or empty), or {@code null} when the
         *     recipe has no usable name (its decisions are checked but not named).
         */
        void decisions(final MappingReader routing, final String qualifier)
        {
            final YamlSequence list = routing.optionalSequence("decisions");
            if (list == null)
            {
                return;
            }
            for (int i = 0; i < list.items().size(); i++)
            {
                decision(list.items().get(i), routing.path("decisions") + '[' + i + ']', qualifier);
            }
        }

        private void decision(final YamlNode node, final String path, final String qualifier)
        {
            final MappingReader decision = MappingReader.openIgnoringOthers(node, path, problems, DECISION_KEYS);
            final String name = decision.requiredName("name");
            final MappingReader algorithm = algorithm(decision);
            final String type;
            if (algorithm == null)
            {
                type = SkippedDecision.NO_ALGORITHM;
            }
            else
            {
                // Not a mapping: already reported when opened.
                type = algorithm.node() instanceof YamlMapping ? algorithmType(algorithm) : null;
            }
            final boolean multiFactor = MultiFactorReader.ALGORITHM.equals(type);
            List<String> refs = List.of();
            MultiFactorConfig settings = MultiFactorConfig.DEFAULTS;
            if (multiFactor)
            {
                refs = modelRefs(decision);
                algorithm.refuseIgnoredOutside(ALGORITHM_KEYS, OTHER_ALGORITHM_KEYS);
                settings = MultiFactorReader.read(algorithm, problems);
            }
            if (name == null || qualifier == null)
            {
                return;
            }
            final String qualified = qualifier + name;
            final YamlNode nameNode = decision.value("name");
            final YamlNode first = decisionNodes.putIfAbsent(qualified, nameNode);
            if (first != null)
            {
                problems.error(nameNode, decision.path("name"),
                    "duplicate decision \"" + qualified + "\" (first defined at line " + first.line() + ')');
                return;
            }
            if (multiFactor)
            {
                decisions.add(new DecisionConfig(qualified, refs, settings));
            }
            else if (type != null)
            {
                skipped.add(new SkippedDecision(qualified, type, path, node.line()));
            }
        }

        /** @return a reader of the decision's {@code algorithm:}, or {@code null} when it has none. */
        private MappingReader algorithm(final MappingReader decision)
        {
            final YamlNode value = decision.value("algorithm");
            if (value == null || value instanceof YamlScalar && ((YamlScalar)value).kind() == YamlScalar.Kind.NULL)
            {
                return null;
            }
            return MappingReader.openIgnoringOthers(value, decision.path("algorithm"), problems, ALGORITHM_KEYS);
        }

        /** @return the algorithm's type as written, or {@code null} after a problem. */
        private String algorithmType(final MappingReader algorithm)
        {
            final String type = algorithm.requiredString("type");
            if (type == null || MultiFactorReader.ALGORITHM.equals(type))
            {
                return type;
            }
            final YamlNode at = algorithm.value("type");
            if (MultiFactorReader.ALGORITHM.equals(type.trim().toLowerCase(Locale.ROOT)))
            {
                problems.error(at, algorithm.path("type"), "algorithm type \"" + type +
                    "\" must be written \"multi_factor\" (lower case, no spaces), as vLLM Semantic Router requires");
                return null;
            }
            if (!OTHER_ALGORITHM_TYPES.contains(type) &&
                NearestName.of(type, List.of(MultiFactorReader.ALGORITHM)) != null)
            {
                problems.error(at, algorithm.path("type"),
                    "unknown algorithm type \"" + type + "\" (did you mean " + MultiFactorReader.ALGORITHM + "?)");
                return null;
            }
            return type;
        }

        private List<String> modelRefs(final MappingReader decision)
        {
            final List<String> refs = new ArrayList<>();
            if (!decision.require("modelRefs"))
            {
                return refs;
            }
            final YamlSequence list = decision.optionalSequence("modelRefs");
            if (list == null)
            {
                return refs;
            }
            if (list.items().isEmpty())
            {
                problems.error(list, decision.path("modelRefs"), "must not be empty, got []");
                return refs;
            }
            final Map<String, YamlNode> seen = new HashMap<>();
            for (int i = 0; i < list.items().size(); i++)
            {
                final MappingReader ref = MappingReader.openIgnoringOthers(
                    list.items().get(i), decision.path("modelRefs") + '[' + i + ']', problems, MODEL_REF_KEYS);
                final String model = ref.requiredName("model");
                if (model == null)
                {
                    continue;
                }
                final YamlNode node = ref.value("model");
                if (!models.nodes().containsKey(model))
                {
                    final String card = models.loraOwners().get(model);
                    problems.error(node, ref.path("model"), "unknown model \"" + Excerpt.value(model) + '"' +
                        (card != null ? ": it is a LoRA adapter of model card " + Excerpt.value(card) +
                        ", and a multi_factor candidate must be a model" :
                        ": defined in neither providers.models nor routing.modelCards" +
                        problems.hint(model, models.nodes().keySet(), "models")));
                    continue;
                }
                final YamlNode first = seen.putIfAbsent(model, node);
                if (first != null)
                {
                    problems.error(node, ref.path("model"),
                        "duplicate model \"" + Excerpt.value(model) + "\" in modelRefs (first at line " + first.line() + ')');
                    continue;
                }
                refs.add(model);
            }
            return refs;
        }
    }
}
