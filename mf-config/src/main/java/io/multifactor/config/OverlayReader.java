package io.multifactor.config;

import io.multifactor.config.model.BackendRef;
import io.multifactor.config.model.ConfigFormat;
import io.multifactor.config.model.FleetConfig;
import io.multifactor.config.model.ModelConfig;
import io.multifactor.config.model.PrefixAffinityConfig;
import io.multifactor.config.model.ReliabilityConfig;
import io.multifactor.config.model.RouterConfig;
import io.multifactor.config.model.SignalsConfig;
import io.multifactor.config.read.CapabilityList;
import io.multifactor.config.read.MappingReader;
import io.multifactor.config.read.NearestName;
import io.multifactor.config.read.Problems;
import io.multifactor.config.yaml.Excerpt;
import io.multifactor.config.yaml.YamlNode;
import io.multifactor.config.yaml.YamlSequence;
import io.multifactor.kernel.signal.ServerKind;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads an overlay: a second file in this library's format that completes a vLLM Semantic Router file with what that
 * file cannot carry. It holds only {@code signals:}, {@code fleet:} and {@code models:} entries of {@code name} plus
 * {@code server}, {@code reliability}, {@code backend_refs} and {@code prefix_affinity}, merged onto the vSR file's models by name (what an entry
 * sets replaces the vSR file's value; what it leaves out is kept). An unknown name is an error of the overlay, located
 * in it, with the nearest model name.
 * <p>
 * This class is stateless and threadsafe.
 */
final class OverlayReader
{
    static final List<String> ROOT_KEYS = List.of("signals", "fleet", "models");
    static final List<String> MODEL_KEYS =
        List.of("name", "server", "reliability", "backend_refs", PrefixAffinityReader.KEY, "context_window",
            "capabilities");

    private OverlayReader()
    {
    }

    /**
     * @param root root of the overlay.
     * @param base the configuration the overlay completes, or {@code null} when the base file was refused (the overlay
     *     is still checked, names aside).
     * @param baseFormat the base file's format.
     * @param problems where to report, in the overlay's name.
     * @return the merged configuration; meaningful only when neither file has an error.
     */
    static RouterConfig apply(
        final YamlNode root, final RouterConfig base, final ConfigFormat baseFormat, final Problems problems)
    {
        final MappingReader top = MappingReader.open(root, "", problems, ROOT_KEYS);
        if (baseFormat == ConfigFormat.MULTI_FACTOR)
        {
            problems.error(root, "", "an overlay completes a vLLM Semantic Router file, and the configuration is in " +
                "multi-factor's own format: write these keys in the configuration itself");
            return base;
        }
        final SignalsConfig signals = top.has("signals") ? RouterConfigReader.signals(top) : null;
        final FleetConfig fleet = top.has("fleet") ? FleetReader.read(top) : null;
        final Map<String, ModelConfig> models = new LinkedHashMap<>();
        if (base != null)
        {
            for (final ModelConfig model : base.models())
            {
                models.put(model.name(), model);
            }
        }
        final YamlSequence list = top.optionalSequence("models");
        if (list != null)
        {
            final Map<String, YamlNode> seen = new HashMap<>();
            for (int i = 0; i < list.items().size(); i++)
            {
                final MappingReader entry = MappingReader.open(list.items().get(i), "models[" + i + ']', problems, MODEL_KEYS);
                final String name = entry.requiredName("name");
                final ServerKind server = ServerSignalsReader.server(entry);
                final ReliabilityConfig reliability = ServerSignalsReader.reliability(entry, false);
                final List<BackendRef> backends =
                    entry.has("backend_refs") ? BackendRefsReader.backendRefs(entry, false) : null;
                final PrefixAffinityConfig affinity = PrefixAffinityReader.read(entry);
                final long contextWindow = RouterConfigReader.contextWindow(entry);
                final int capabilities = CapabilityList.read(entry, "capabilities", -1);
                if (name == null)
                {
                    continue;
                }
                final YamlNode nameNode = entry.value("name");
                final YamlNode first = seen.putIfAbsent(name, nameNode);
                if (first != null)
                {
                    problems.error(nameNode, entry.path("name"),
                        "duplicate model \"" + Excerpt.value(name) + "\" (first at line " + first.line() + ')');
                    continue;
                }
                final ModelConfig model = models.get(name);
                if (model == null)
                {
                    if (base != null)
                    {
                        problems.error(nameNode, entry.path("name"), "unknown model \"" + Excerpt.value(name) +
                            "\": the overlay completes the models of the configuration, which has no such model" +
                            NearestName.suggestion(name, models.keySet()));
                    }
                    continue;
                }
                models.put(name, model.withOverlay(server, reliability, backends).withPrefixAffinity(affinity)
                    .withEligibility(contextWindow, capabilities));
            }
        }
        if (base == null)
        {
            return null;
        }
        return new RouterConfig(new ArrayList<>(models.values()), base.decisions(),
            signals == null ? base.signals() : signals, fleet == null ? base.fleet() : fleet);
    }
}
