package io.multifactor.config;

import io.multifactor.api.Capability;
import io.multifactor.config.model.BackendRef;
import io.multifactor.config.model.ConfigFormat;
import io.multifactor.config.model.ConfigOutline;
import io.multifactor.config.model.DecisionConfig;
import io.multifactor.config.model.ModelConfig;
import io.multifactor.config.model.ReliabilityConfig;
import io.multifactor.config.model.RouterConfig;
import io.multifactor.config.model.SignalsConfig;
import io.multifactor.config.model.SkippedDecision;
import io.multifactor.config.read.MappingReader;
import io.multifactor.config.read.Problems;
import io.multifactor.config.yaml.Excerpt;
import io.multifactor.config.yaml.YamlEntry;
import io.multifactor.config.yaml.YamlMapping;
import io.multifactor.config.yaml.YamlNode;
import io.multifactor.config.yaml.YamlScalar;
import io.multifactor.config.yaml.YamlSequence;
import io.multifactor.kernel.plan.RequestRules;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads vLLM Semantic Router's canonical configuration ({@code version: v0.3}, alone or under a Helm values file's
 * {@code config:}) into the same {@link RouterConfig} as the project's own format: models from
 * {@code providers.models[]} (name, pricing) joined by name with {@code routing.modelCards[]} (quality_score), decisions
 * from {@code routing.decisions[]} and {@code recipes[].routing.decisions[]} (read by {@link VsrDecisionReader}). Every
 * other key is the router's own business: ignored, and the ignored top-level sections are listed in the
 * {@link ConfigOutline}. Paths in problems are the file's own ({@code config.routing.decisions[3]...} in Helm values).
 * <p>
 * This class is stateless and threadsafe.
 */
final class VsrConfigReader
{
    static final String VERSION = "v0.3";
    static final String HELM_CONFIG_KEY = "config";
    static final List<String> ROOT_KEYS = List.of("version", "providers", "routing", "recipes");
    static final List<String> PROVIDERS_KEYS = List.of("models");
    static final List<String> PROVIDER_MODEL_KEYS = List.of(
        "name", "pricing", "provider_model_id", "backend_refs", "reliability");
    static final List<String> PRICING_KEYS = List.of("prompt_per_1m", "completion_per_1m", "cached_input_per_1m");
    static final List<String> ROUTING_KEYS = List.of("modelCards", "decisions");
    static final List<String> MODEL_CARD_KEYS = List.of("name", "quality_score");
    /** Root keys of a vSR file that mean it was meant as one even without {@code version:}. */
    static final List<String> VSR_ONLY_ROOT_KEYS = List.of("providers", "routing", "listeners", "recipes", "global");

    private VsrConfigReader()
    {
    }

    /** What one {@code providers.models[]} entry holds: prices (NaN when absent), provider model id, backends. */
    private record Price(double promptPer1M, double completionPer1M, String providerModelId, List<BackendRef> backendRefs,
        ReliabilityConfig reliability, double cachedPromptPer1M)
    {
        static final Price NONE = new Price(Double.NaN, Double.NaN, null, List.of(), null, Double.NaN);
    }

    /** What reading a vSR file produced. */
    record Result(RouterConfig config, ConfigOutline outline)
    {
    }

    /**
     * @param root root of the document.
     * @return which format the document is in: {@link ConfigFormat#VSR} when its root has {@code version},
     *     {@link ConfigFormat#VSR_HELM_VALUES} when its root has none but a {@code config:} mapping that has one,
     *     otherwise {@link ConfigFormat#MULTI_FACTOR}.
     */
    static ConfigFormat formatOf(final YamlNode root)
    {
        if (entry(root, "version") != null)
        {
            return ConfigFormat.VSR;
        }
        final YamlEntry config = entry(root, HELM_CONFIG_KEY);
        if (config != null && entry(config.value(), "version") != null)
        {
            return ConfigFormat.VSR_HELM_VALUES;
        }
        return ConfigFormat.MULTI_FACTOR;
    }

    /**
     * Refuses, with one problem that says what to add, a file without {@code version:} whose root (or Helm values'
     * {@code config:}) holds vSR sections, and neither {@code models:} nor {@code decisions:} of the own format: a vSR
     * file missing its version line.
     *
     * @param root root of the document, read as the own format.
     * @param problems where to report.
     * @return whether the file was refused this way (then the own format's reader has nothing useful to add).
     */
    static boolean refuseWithoutVersion(final YamlNode root, final Problems problems)
    {
        if (!(root instanceof YamlMapping) || entry(root, "models") != null || entry(root, "decisions") != null)
        {
            return false;
        }
        for (final YamlEntry entry : ((YamlMapping)root).entries())
        {
            if (VSR_ONLY_ROOT_KEYS.contains(entry.key()))
            {
                problems.error(entry.keyLine(), entry.keyColumn(), entry.key(), "neither a multi-factor " +
                    "configuration (no models: or decisions:) nor, without \"version: " + VERSION + "\" at its root, " +
                    "a vLLM Semantic Router one: add that line to read it as vLLM Semantic Router's");
                return true;
            }
        }
        final YamlEntry config = entry(root, HELM_CONFIG_KEY);
        if (config != null && config.value() instanceof YamlMapping)
        {
            for (final YamlEntry entry : ((YamlMapping)config.value()).entries())
            {
                if (VSR_ONLY_ROOT_KEYS.contains(entry.key()))
                {
                    problems.error(config.keyLine(), config.keyColumn(), HELM_CONFIG_KEY, "Helm values whose config: " +
                        "has no \"version: " + VERSION + "\": add that line under config: to read it as vLLM Semantic " +
                        "Router's configuration");
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * @param root root of the document, whose {@link #formatOf format} is a vSR one.
     * @param format {@link ConfigFormat#VSR} or {@link ConfigFormat#VSR_HELM_VALUES}.
     * @param problems where to report.
     * @return the configuration and outline; meaningful only when no error was reported.
     */
    static Result read(final YamlNode root, final ConfigFormat format, final Problems problems)
    {
        final List<String> ignoredSections = new ArrayList<>();
        YamlNode vsrRoot = root;
        String prefix = "";
        if (format == ConfigFormat.VSR_HELM_VALUES)
        {
            final MappingReader values =
                MappingReader.openIgnoringOthers(root, "", problems, List.of(HELM_CONFIG_KEY, "configOverride"));
            for (final YamlEntry entry : values.ignored())
            {
                ignoredSections.add(entry.key());
            }
            warnAboutConfigOverride(values, problems);
            vsrRoot = values.value(HELM_CONFIG_KEY);
            prefix = HELM_CONFIG_KEY;
        }
        final MappingReader top = MappingReader.openIgnoringOthers(vsrRoot, prefix, problems, ROOT_KEYS);
        for (final YamlEntry entry : top.ignored())
        {
            ignoredSections.add(top.path(entry.key()));
        }
        version(top);
        final MappingReader routing = top.optionalMappingIgnoringOthers("routing", ROUTING_KEYS);
        final Map<String, YamlNode> modelNodes = new LinkedHashMap<>();
        final Map<String, String> loraOwners = new HashMap<>();
        final List<ModelConfig> models = models(top, routing, problems, modelNodes, loraOwners);
        final List<SkippedDecision> skipped = new ArrayList<>();
        final List<DecisionConfig> decisions = VsrDecisionReader.read(routing, top.optionalSequence("recipes"),
            top.path("recipes"), problems, new VsrDecisionReader.Models(modelNodes, loraOwners), skipped);
        if (decisions.isEmpty() && !problems.hasErrors())
        {
            problems.warning(vsrRoot, prefix, "no decision has algorithm.type multi_factor: the engine has no plan " +
                "to select with (" + skipped.size() + " other decisions skipped)");
        }
        return new Result(new RouterConfig(models, decisions, SignalsConfig.DEFAULTS),
            new ConfigOutline(format, skipped, ignoredSections));
    }

    private static void warnAboutConfigOverride(final MappingReader values, final Problems problems)
    {
        final YamlNode override = values.value("configOverride");
        if (override instanceof YamlMapping && !((YamlMapping)override).entries().isEmpty())
        {
            problems.warning(override, "configOverride",
                "the chart deploys configOverride instead of config; this library read config");
        }
    }

    private static void version(final MappingReader top)
    {
        final YamlNode node = top.value("version");
        if (node == null)
        {
            return;
        }
        final String text = node instanceof YamlScalar ? ((YamlScalar)node).text() : null;
        if (!VERSION.equals(text))
        {
            top.problems().error(node, top.path("version"), "unsupported version " + node.describe() +
                ": this library reads vLLM Semantic Router's " + VERSION + " files (and its own format, which has " +
                "no version key)");
        }
    }

    private static List<ModelConfig> models(
        final MappingReader top, final MappingReader routing, final Problems problems,
        final Map<String, YamlNode> modelNodes, final Map<String, String> loraOwners)
    {
        final Map<String, Double> cards = new LinkedHashMap<>();
        final Map<String, YamlNode> cardNodes = new LinkedHashMap<>();
        final YamlSequence cardList = routing == null ? null : routing.optionalSequence("modelCards");
        if (cardList != null)
        {
            for (int i = 0; i < cardList.items().size(); i++)
            {
                final MappingReader card = MappingReader.openIgnoringOthers(
                    cardList.items().get(i), routing.path("modelCards") + '[' + i + ']', problems, MODEL_CARD_KEYS);
                final String name = card.requiredName("name");
                final double quality = card.optionalNumber("quality_score", Double.NaN, true);
                warnIfZero(card, "quality_score", quality, "a quality of 0", "no quality signal");
                if (name != null && unique(name, card, cardNodes, routing.path("modelCards")))
                {
                    cards.put(name, quality);
                    loraNames(card, name, loraOwners);
                }
            }
        }
        final Map<String, Price> prices = new LinkedHashMap<>();
        final Map<String, YamlNode> providerNodes = new LinkedHashMap<>();
        final MappingReader providers = top.optionalMappingIgnoringOthers("providers", PROVIDERS_KEYS);
        final YamlSequence providerList = providers == null ? null : providers.optionalSequence("models");
        if (providerList != null)
        {
            for (int i = 0; i < providerList.items().size(); i++)
            {
                final MappingReader model = MappingReader.openIgnoringOthers(
                    providerList.items().get(i), providers.path("models") + '[' + i + ']', problems, PROVIDER_MODEL_KEYS);
                final String name = model.requiredName("name");
                double prompt = Double.NaN;
                double completion = Double.NaN;
                double cachedPrompt = Double.NaN;
                final MappingReader pricing = model.optionalMappingIgnoringOthers("pricing", PRICING_KEYS);
                if (pricing != null)
                {
                    prompt = pricing.optionalNumber("prompt_per_1m", Double.NaN, true);
                    warnIfZero(pricing, "prompt_per_1m", prompt, "free (the cheapest price)", "no price");
                    completion = pricing.optionalNumber("completion_per_1m", Double.NaN, true);
                    // vSR's cached input price is this format's cached_prompt_per_1m.
                    cachedPrompt = pricing.optionalNumber("cached_input_per_1m", Double.NaN, true);
                }
                final String providerModelId = BackendRefsReader.providerModelId(model);
                final List<BackendRef> backends = BackendRefsReader.backendRefs(model, true);
                final ReliabilityConfig reliability = ServerSignalsReader.reliability(model, true);
                if (name != null && unique(name, model, providerNodes, providers.path("models")))
                {
                    prices.put(name, new Price(prompt, completion, providerModelId, backends, reliability, cachedPrompt));
                }
            }
        }
        // A card without a provider entry, or a provider model without a card, is still a model.
        final List<ModelConfig> models = new ArrayList<>();
        for (final Map.Entry<String, Double> card : cards.entrySet())
        {
            final Price price = prices.getOrDefault(card.getKey(), Price.NONE);
            models.add(new ModelConfig(card.getKey(), card.getValue(), price.promptPer1M(), price.completionPer1M(),
                price.providerModelId(), price.backendRefs(), null, price.reliability(), null, price.cachedPromptPer1M(),
                RequestRules.NO_CONTEXT_WINDOW, Capability.ALL));
            modelNodes.put(card.getKey(), cardNodes.get(card.getKey()));
        }
        for (final Map.Entry<String, Price> price : prices.entrySet())
        {
            if (!cards.containsKey(price.getKey()))
            {
                models.add(new ModelConfig(price.getKey(), Double.NaN, price.getValue().promptPer1M(),
                    price.getValue().completionPer1M(), price.getValue().providerModelId(), price.getValue().backendRefs(),
                    null, price.getValue().reliability(), null, price.getValue().cachedPromptPer1M(),
                    RequestRules.NO_CONTEXT_WINDOW, Capability.ALL));
                modelNodes.put(price.getKey(), providerNodes.get(price.getKey()));
            }
        }
        return models;
    }

    /**
     * vSR's own multi_factor reads a quality or prompt price of 0 as absent; here 0 is a value (a price of 0 is free, a
     * quality of 0 the lowest): a file moved from vSR keeps its meaning only if its author knows, so say it where the 0
     * is written.
     */
    private static void warnIfZero(
        final MappingReader reader, final String key, final double value, final String here, final String inVsr)
    {
        if (value == 0.0)
        {
            reader.problems().warning(reader.value(key), reader.path(key),
                "0 means " + here + " here; vLLM Semantic Router's multi_factor reads it as " + inVsr);
        }
    }

    /** Notes the names of a card's LoRA adapters (vSR's, not read otherwise), to explain a candidate that names one. */
    private static void loraNames(final MappingReader card, final String cardName, final Map<String, String> loraOwners)
    {
        for (final YamlEntry entry : card.ignored())
        {
            if ("loras".equals(entry.key()) && entry.value() instanceof YamlSequence)
            {
                for (final YamlNode lora : ((YamlSequence)entry.value()).items())
                {
                    final YamlEntry name = entry(lora, "name");
                    if (name != null && name.value() instanceof YamlScalar)
                    {
                        loraOwners.putIfAbsent(((YamlScalar)name.value()).text(), cardName);
                    }
                }
            }
        }
    }

    private static boolean unique(
        final String name, final MappingReader entry, final Map<String, YamlNode> seen, final String list)
    {
        final YamlNode nameNode = entry.value("name");
        final YamlNode first = seen.putIfAbsent(name, nameNode);
        if (first != null)
        {
            entry.problems().error(nameNode, entry.path("name"),
                "duplicate model \"" + Excerpt.value(name) + "\" in " + list + " (first defined at line " + first.line() + ')');
            return false;
        }
        return true;
    }

    /**
     * @param node a node.
     * @param key a key.
     * @return the first entry of that key when the node is a mapping that has it, else {@code null}.
     */
    static YamlEntry entry(final YamlNode node, final String key)
    {
        if (node instanceof YamlMapping)
        {
            for (final YamlEntry entry : ((YamlMapping)node).entries())
            {
                if (key.equals(entry.key()))
                {
                    return entry;
                }
            }
        }
        return null;
    }
}
