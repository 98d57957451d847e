package io.multifactor.config;

import io.multifactor.config.model.BackendChoiceConfig;
import io.multifactor.config.model.BackendRef;
import io.multifactor.config.model.DecisionConfig;
import io.multifactor.config.model.ModelConfig;
import io.multifactor.config.model.MultiFactorConfig;
import io.multifactor.config.model.PrefixAffinityConfig;
import io.multifactor.config.model.ReliabilityConfig;
import io.multifactor.config.model.RouterConfig;
import io.multifactor.config.model.SignalsConfig;
import io.multifactor.api.Capability;
import io.multifactor.config.read.CapabilityList;
import io.multifactor.config.read.Durations;
import io.multifactor.config.read.MappingReader;
import io.multifactor.config.read.NearestName;
import io.multifactor.config.read.Problems;
import io.multifactor.config.yaml.Excerpt;
import io.multifactor.config.yaml.YamlEntry;
import io.multifactor.config.yaml.YamlMapping;
import io.multifactor.config.yaml.YamlNode;
import io.multifactor.config.yaml.YamlScalar;
import io.multifactor.config.yaml.YamlSequence;
import io.multifactor.kernel.latency.LatencyEstimatorType;
import io.multifactor.kernel.plan.AlgorithmType;
import io.multifactor.kernel.plan.PeerParameters;
import io.multifactor.kernel.plan.RequestRules;
import io.multifactor.kernel.signal.ServerKind;

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
        "name", "quality_score", "pricing", "provider_model_id", "backend_refs", "server", "reliability",
        PrefixAffinityReader.KEY, "context_window", "capabilities", BackendChoiceReader.KEY);
    static final List<String> PRICING_KEYS = List.of("prompt_per_1m", "completion_per_1m", "cached_prompt_per_1m");
    static final List<String> DECISION_KEYS = List.of("name", "modelRefs", "algorithm");
    static final List<String> MODEL_REF_KEYS = List.of("model");
    static final List<String> ALGORITHM_KEYS = PeerPolicyReader.withPeerBlocks("type", MultiFactorReader.ALGORITHM);
    static final List<String> SIGNALS_KEYS =
        List.of("latency_window", "latency_refresh", "inflight_max_age", "counters_file", "server_metrics",
            "latency_estimator", "ewma_decay", "default_request_tokens", "default_output_tokens");
    static final List<String> LATENCY_ESTIMATOR_WORDS = List.of(LatencyEstimatorType.labels());

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
        warnPercentileIgnored(top, signals);
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
            double cachedPrompt = Double.NaN;
            final MappingReader pricing = model.optionalMapping("pricing", PRICING_KEYS);
            if (pricing != null)
            {
                prompt = pricing.optionalNumber("prompt_per_1m", Double.NaN, true);
                completion = pricing.optionalNumber("completion_per_1m", Double.NaN, true);
                cachedPrompt = pricing.optionalNumber("cached_prompt_per_1m", Double.NaN, true);
            }
            final String providerModelId = BackendRefsReader.providerModelId(model);
            final List<BackendRef> backends = BackendRefsReader.backendRefs(model, false);
            final ServerKind server = ServerSignalsReader.server(model);
            final ReliabilityConfig reliability = ServerSignalsReader.reliability(model, false);
            final PrefixAffinityConfig affinity = PrefixAffinityReader.read(model);
            final BackendChoiceConfig backendChoice = BackendChoiceReader.read(model);
            if (backendChoice.isSet() && affinity != null && affinity.enabled())
            {
                problems.warning(model.value(BackendChoiceReader.KEY), model.path(BackendChoiceReader.KEY),
                    "prefix_affinity is ignored: backend_choice chooses this model's backends");
            }
            final long contextWindow = contextWindow(model);
            final int capabilities = CapabilityList.read(model, "capabilities", Capability.ALL);
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
                models.add(new ModelConfig(name, quality, prompt, completion, providerModelId, backends, server,
                    reliability, affinity, cachedPrompt, contextWindow, Math.max(0, capabilities), backendChoice));
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
            final int[] type = new int[1];
            final PeerParameters[] peer = {PeerParameters.DEFAULTS};
            final MultiFactorConfig algorithm = algorithm(decision, problems, type, peer);
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
                decisions.add(new DecisionConfig(name, refs, algorithm, type[0], peer[0]));
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

    private static MultiFactorConfig algorithm(
        final MappingReader decision, final Problems problems, final int[] typeOut, final PeerParameters[] peerOut)
    {
        typeOut[0] = AlgorithmType.MULTI_FACTOR;
        final MappingReader algorithm = decision.optionalMapping("algorithm", ALGORITHM_KEYS);
        if (algorithm == null)
        {
            return MultiFactorConfig.DEFAULTS;
        }
        final String type = algorithm.optionalString("type", MultiFactorReader.ALGORITHM);
        final int code = type == null ? AlgorithmType.MULTI_FACTOR : AlgorithmType.parse(type);
        if (code < 0)
        {
            problems.error(algorithm.value("type"), algorithm.path("type"),
                "unsupported algorithm type \"" + Excerpt.value(type) + "\": this library implements multi_factor and " +
                "the baselines round_robin, random, least_inflight and lowest_latency, and the peers' policies " +
                "litellm_simple_shuffle, litellm_least_busy, aibrix_least_request, litellm_latency, " +
                "prodstack_session, llmd_weighted and llmd_sticky" +
                NearestName.suggestion(type, List.of(AlgorithmType.labels())));
        }
        else
        {
            typeOut[0] = code;
        }
        peerOut[0] = PeerPolicyReader.read(algorithm, problems, code);
        final MultiFactorConfig settings = MultiFactorReader.read(algorithm, problems);
        if (code > AlgorithmType.MULTI_FACTOR)
        {
            warnIgnoredByBaseline(algorithm, problems, type, code);
        }
        return settings;
    }

    /**
     * A baseline ignores weights, floors, ceilings and the ranking keys; only lowest_latency reads the latency keys, and
     * litellm_latency latency_metric (which of its rings it averages).
     */
    private static void warnIgnoredByBaseline(
        final MappingReader algorithm, final Problems problems, final String type, final int code)
    {
        if (!algorithm.has(MultiFactorReader.ALGORITHM) || !(algorithm.value(MultiFactorReader.ALGORITHM) instanceof YamlMapping))
        {
            return;
        }
        final YamlMapping block = (YamlMapping)algorithm.value(MultiFactorReader.ALGORITHM);
        for (final YamlEntry entry : block.entries())
        {
            final String key = entry.key();
            final boolean read = code == AlgorithmType.LOWEST_LATENCY &&
                ("latency_percentile".equals(key) || "latency_metric".equals(key)) ||
                code == AlgorithmType.LITELLM_LATENCY && "latency_metric".equals(key);
            if (!read && MultiFactorReader.KEYS.contains(key))
            {
                final String what = "weights".equals(key) ? "weights are" : "slo".equals(key) ? "ceilings (slo) are" :
                    key + " is";
                problems.warning(entry.value(), algorithm.path(MultiFactorReader.ALGORITHM) + '.' + key,
                    what + " ignored by type " + type + " (a baseline policy)");
            }
        }
    }

    /**
     * @param top the root mapping (of the file, or of an overlay).
     * @return its {@code signals:}, {@link SignalsConfig#DEFAULTS} when absent.
     */
    static SignalsConfig signals(final MappingReader top)
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
        final String estimatorWord = signals.optionalString("latency_estimator", LatencyEstimatorType.label(
            defaults.latencyEstimator()));
        int estimator = estimatorWord == null ? defaults.latencyEstimator() : LatencyEstimatorType.parse(estimatorWord);
        if (estimator < 0)
        {
            signals.problems().error(signals.value("latency_estimator"), signals.path("latency_estimator"),
                "unknown latency_estimator \"" + Excerpt.value(estimatorWord) + "\": expected window or peak_ewma" +
                NearestName.suggestion(estimatorWord, LATENCY_ESTIMATOR_WORDS));
            estimator = defaults.latencyEstimator();
        }
        long decayNs = signals.optionalDurationNs("ewma_decay", defaults.ewmaDecayNs());
        if (decayNs != Durations.INVALID && decayNs < SignalsConfig.MIN_EWMA_DECAY_NS)
        {
            signals.problems().error(signals.value("ewma_decay"), signals.path("ewma_decay"),
                "must be at least 1ms, got " + describeNs(signals, "ewma_decay", decayNs));
            decayNs = defaults.ewmaDecayNs();
        }
        else if (decayNs == Durations.INVALID)
        {
            decayNs = defaults.ewmaDecayNs();
        }
        final long defaultTokens = signals.optionalInteger(
            "default_request_tokens", defaults.defaultRequestTokens(), 0, SignalsConfig.MAX_REQUEST_TOKENS);
        final long outputTokens = signals.optionalInteger(
            "default_output_tokens", defaults.defaultOutputTokens(), 0, SignalsConfig.MAX_REQUEST_TOKENS);
        return new SignalsConfig(windowNs, refreshNs, maxAgeNs, countersFile, ServerSignalsReader.serverMetrics(signals),
            estimator, decayNs, Math.max(0L, defaultTokens), Math.max(0L, outputTokens));
    }

    /**
     * A model's {@code context_window}: an integer of tokens, >= 1.
     *
     * @param model the model's mapping.
     * @return the window, {@link RequestRules#NO_CONTEXT_WINDOW} when absent or invalid (reported).
     */
    static long contextWindow(final MappingReader model)
    {
        final long window = model.optionalInteger("context_window", RequestRules.NO_CONTEXT_WINDOW, 1, Long.MAX_VALUE);
        return window < 1 ? RequestRules.NO_CONTEXT_WINDOW : window;
    }

    /**
     * With {@code latency_estimator: peak_ewma}, warns at every decision that sets {@code latency_percentile}: the
     * estimate has no percentile, so the key is ignored.
     *
     * @param top the root mapping.
     * @param signals the signals read from it.
     */
    static void warnPercentileIgnored(final MappingReader top, final SignalsConfig signals)
    {
        if (signals.latencyEstimator() != LatencyEstimatorType.PEAK_EWMA || !top.has("decisions") ||
            !(top.value("decisions") instanceof YamlSequence))
        {
            return;
        }
        final List<YamlNode> items = ((YamlSequence)top.value("decisions")).items();
        for (int i = 0; i < items.size(); i++)
        {
            final YamlNode algorithm = entry(entry(items.get(i), "algorithm"), MultiFactorReader.ALGORITHM);
            final YamlNode percentile = entry(algorithm, "latency_percentile");
            if (percentile != null)
            {
                top.problems().warning(percentile, "decisions[" + i + "].algorithm." + MultiFactorReader.ALGORITHM +
                    ".latency_percentile", "is ignored with signals.latency_estimator: peak_ewma (the estimate has " +
                    "no percentile)");
            }
        }
    }

    private static YamlNode entry(final YamlNode node, final String key)
    {
        if (node instanceof YamlMapping)
        {
            for (final YamlEntry e : ((YamlMapping)node).entries())
            {
                if (key.equals(e.key()))
                {
                    return e.value();
                }
            }
        }
        return null;
    }

    private static String describeNs(final MappingReader signals, final String key, final long ns)
    {
        return signals.has(key) ? ((YamlScalar)signals.value(key)).text() : ns / 1_000_000L + "ms (default)";
    }
}
