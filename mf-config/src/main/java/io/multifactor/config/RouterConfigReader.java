package io.multifactor.config;

import io.multifactor.config.model.BackendRef;
import io.multifactor.config.model.DecisionConfig;
import io.multifactor.config.model.ModelConfig;
import io.multifactor.config.model.MultiFactorConfig;
import io.multifactor.config.model.RouterConfig;
import io.multifactor.config.model.SignalsConfig;
import io.multifactor.config.read.Durations;
import io.multifactor.config.read.MappingReader;
import io.multifactor.config.read.Problems;
import io.multifactor.config.yaml.Excerpt;
import io.multifactor.config.yaml.YamlNode;
import io.multifactor.config.yaml.YamlScalar;
import io.multifactor.config.yaml.YamlSequence;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Validates a located YAML tree against docs/configuration.md and builds the immutable {@link RouterConfig}, reporting
 * every problem of the file (not just the first) into {@link Problems}, and warnings for what it corrects.
 * <p>
 * This class is stateless and threadsafe.
 */
final class RouterConfigReader
{
    static final List<String> ROOT_KEYS = List.of("models", "decisions", "signals", "fleet");
    static final List<String> MODEL_KEYS = List.of(
        "name", "quality_score", "pricing", "provider_model_id", "backend_refs");
    static final List<String> PRICING_KEYS = List.of("prompt_per_1m", "completion_per_1m");
    static final List<String> DECISION_KEYS = List.of("name", "modelRefs", "algorithm");
    static final List<String> MODEL_REF_KEYS = List.of("model");
    static final List<String> ALGORITHM_KEYS = List.of("type", "multi_factor");
    static final List<String> SIGNALS_KEYS = List.of("latency_window", "latency_refresh", "inflight_max_age", "counters_file");

    private RouterConfigReader()
    {
    }

    /**
     * @param root root of the document.
     * @param problems where to report.
     * @return the configuration; meaningful only when no error was reported.
     */
    static RouterConfig read(final YamlNode root, final Problems problems)
    {
        final MappingReader top = MappingReader.open(root, "", problems, ROOT_KEYS);
        final Map<String, YamlNode> modelNodes = new LinkedHashMap<>();
        final List<ModelConfig> models = models(top, problems, modelNodes);
        final List<DecisionConfig> decisions = decisions(top, problems, modelNodes);
        final SignalsConfig signals = signals(top);
        return new RouterConfig(models, decisions, signals, FleetReader.read(top));
    }

    private static YamlSequence nonEmptyList(final MappingReader reader, final String key)
    {
        if (!reader.require(key))
        {
            return null;
        }
        final YamlSequence list = reader.optionalSequence(key);
        if (list != null && list.items().isEmpty())
        {
            reader.problems().error(list, reader.path(key), "must not be empty, got []");
            return null;
        }
        return list;
    }

    private static List<ModelConfig> models(
        final MappingReader top, final Problems problems, final Map<String, YamlNode> modelNodes)
    {
        final List<ModelConfig> models = new ArrayList<>();
        final YamlSequence list = nonEmptyList(top, "models");
        if (list == null)
        {
            return models;
        }
        for (int i = 0; i < list.items().size(); i++)
        {
            final MappingReader model = MappingReader.open(list.items().get(i), "models[" + i + ']', problems, MODEL_KEYS);
            final String name = model.requiredName("name");
            final double quality = model.optionalNumber("quality_score", Double.NaN, true);
            double prompt = Double.NaN;
            double completion = Double.NaN;
            final MappingReader pricing = model.optionalMapping("pricing", PRICING_KEYS);
            if (pricing != null)
            {
                prompt = pricing.optionalNumber("prompt_per_1m", Double.NaN, true);
                completion = pricing.optionalNumber("completion_per_1m", Double.NaN, true);
            }
            final String providerModelId = BackendRefsReader.providerModelId(model);
            final List<BackendRef> backends = BackendRefsReader.backendRefs(model, false);
            if (name != null)
            {
                final YamlNode nameNode = model.value("name");
                final YamlNode first = modelNodes.putIfAbsent(name, nameNode);
                if (first != null)
                {
                    problems.error(nameNode, model.path("name"),
                        "duplicate model \"" + Excerpt.value(name) + "\" (first defined at line " + first.line() + ')');
                    continue;
                }
                models.add(new ModelConfig(name, quality, prompt, completion, providerModelId, backends));
            }
        }
        return models;
    }

    private static List<DecisionConfig> decisions(
        final MappingReader top, final Problems problems, final Map<String, YamlNode> modelNodes)
    {
        final List<DecisionConfig> decisions = new ArrayList<>();
        final YamlSequence list = nonEmptyList(top, "decisions");
        if (list == null)
        {
            return decisions;
        }
        final Map<String, YamlNode> decisionNodes = new HashMap<>();
        for (int i = 0; i < list.items().size(); i++)
        {
            final MappingReader decision =
                MappingReader.open(list.items().get(i), "decisions[" + i + ']', problems, DECISION_KEYS);
            final String name = decision.requiredName("name");
            final List<String> refs = modelRefs(decision, problems, modelNodes);
            final MultiFactorConfig algorithm = algorithm(decision, problems);
            if (name != null)
            {
                final YamlNode nameNode = decision.value("name");
                final YamlNode first = decisionNodes.putIfAbsent(name, nameNode);
                if (first != null)
                {
                    problems.error(nameNode, decision.path("name"),
                        "duplicate decision \"" + Excerpt.value(name) + "\" (first defined at line " + first.line() + ')');
                    continue;
                }
                decisions.add(new DecisionConfig(name, refs, algorithm));
            }
        }
        return decisions;
    }

    private static List<String> modelRefs(
        final MappingReader decision, final Problems problems, final Map<String, YamlNode> modelNodes)
    {
        final List<String> refs = new ArrayList<>();
        final YamlSequence list = nonEmptyList(decision, "modelRefs");
        if (list == null)
        {
            return refs;
        }
        final Map<String, YamlNode> seen = new HashMap<>();
        for (int i = 0; i < list.items().size(); i++)
        {
            final MappingReader ref = MappingReader.open(
                list.items().get(i), decision.path("modelRefs") + '[' + i + ']', problems, MODEL_REF_KEYS);
            final String model = ref.requiredName("model");
            if (model == null)
            {
                continue;
            }
            final YamlNode node = ref.value("model");
            if (!modelNodes.containsKey(model))
            {
                problems.error(node, ref.path("model"),
                    "unknown model \"" + Excerpt.value(model) + '"' + problems.hint(model, modelNodes.keySet(), "models"));
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

    private static MultiFactorConfig algorithm(final MappingReader decision, final Problems problems)
    {
        final MappingReader algorithm = decision.optionalMapping("algorithm", ALGORITHM_KEYS);
        if (algorithm == null)
        {
            return MultiFactorConfig.DEFAULTS;
        }
        final String type = algorithm.optionalString("type", MultiFactorReader.ALGORITHM);
        if (type != null && !MultiFactorReader.ALGORITHM.equals(type))
        {
            problems.error(algorithm.value("type"), algorithm.path("type"),
                "unsupported algorithm type \"" + type + "\": this library implements multi_factor only");
        }
        return MultiFactorReader.read(algorithm, problems);
    }

    private static SignalsConfig signals(final MappingReader top)
    {
        final MappingReader signals = top.optionalMapping("signals", SIGNALS_KEYS);
        if (signals == null)
        {
            return SignalsConfig.DEFAULTS;
        }
        final SignalsConfig defaults = SignalsConfig.DEFAULTS;
        final long windowNs = signals.optionalDurationNs("latency_window", defaults.latencyWindowNs());
        final long refreshNs = signals.optionalDurationNs("latency_refresh", defaults.latencyRefreshNs());
        final long maxAgeNs = signals.optionalDurationNs("inflight_max_age", defaults.inflightMaxAgeNs());
        if (refreshNs != Durations.INVALID && refreshNs < SignalsConfig.MIN_LATENCY_REFRESH_NS)
        {
            signals.problems().error(signals.value("latency_refresh"), signals.path("latency_refresh"),
                "must be at least 10ms (a shorter period keeps the refresh agent busy on a whole core), got " +
                describeNs(signals, "latency_refresh", refreshNs));
        }
        else if (windowNs != Durations.INVALID && refreshNs != Durations.INVALID && refreshNs > windowNs)
        {
            final YamlNode at = signals.has("latency_refresh") ? signals.value("latency_refresh") : signals.node();
            signals.problems().error(at, signals.path("latency_refresh"), "must not exceed latency_window, got " +
                describeNs(signals, "latency_refresh", refreshNs) + " > " + describeNs(signals, "latency_window", windowNs));
        }
        final String countersFile = signals.optionalString("counters_file", null);
        return new SignalsConfig(windowNs, refreshNs, maxAgeNs, countersFile);
    }

    private static String describeNs(final MappingReader signals, final String key, final long ns)
    {
        return signals.has(key) ? ((YamlScalar)signals.value(key)).text() : ns / 1_000_000L + "ms (default)";
    }
}
