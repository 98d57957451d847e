package io.multifactor.config;

import io.multifactor.config.model.BackendChoiceConfig;
import io.multifactor.config.read.MappingReader;
import io.multifactor.config.read.NearestName;
import io.multifactor.config.read.Problems;
import io.multifactor.config.yaml.Excerpt;
import io.multifactor.config.yaml.YamlMapping;
import io.multifactor.config.yaml.YamlNode;
import io.multifactor.config.yaml.YamlScalar;
import io.multifactor.kernel.plan.AlgorithmType;
import io.multifactor.kernel.plan.PeerParameters;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads a model's {@code backend_choice:}, the rule among its backends: a type word ({@code backend_choice:
 * litellm_latency}), or the form of a decision's {@code algorithm:} with the peer's parameters ({@code backend_choice:
 * {type: litellm_latency, litellm_latency: {lowest_latency_buffer: 0.2}}}), read as strictly (the block beside its own
 * type only, unknown keys located with the nearest valid one). Every {@code algorithm.type} but {@code multi_factor} is
 * a backend rule.
 * <p>
 * This class is stateless and threadsafe.
 */
final class BackendChoiceReader
{
    static final String KEY = "backend_choice";

    private BackendChoiceReader()
    {
    }

    /**
     * @param model the model's mapping.
     * @return its backend choice, {@link BackendChoiceConfig#NONE} when absent or refused.
     */
    static BackendChoiceConfig read(final MappingReader model)
    {
        if (!model.has(KEY))
        {
            return BackendChoiceConfig.NONE;
        }
        final Problems problems = model.problems();
        final YamlNode node = model.value(KEY);
        if (node instanceof YamlMapping)
        {
            final MappingReader block = model.optionalMapping(KEY, PeerPolicyReader.withPeerBlocks("type"));
            if (!block.require("type"))
            {
                return BackendChoiceConfig.NONE;
            }
            final int type = type(block.value("type"), block.path("type"), problems);
            final PeerParameters parameters = PeerPolicyReader.read(block, problems, type);
            return type < 0 ? BackendChoiceConfig.NONE : new BackendChoiceConfig(type, parameters);
        }
        final int type = type(node, model.path(KEY), problems);
        return type < 0 ? BackendChoiceConfig.NONE : new BackendChoiceConfig(type, PeerParameters.DEFAULTS);
    }

    // A type word that is a backend rule, or -1 after reporting it.
    private static int type(final YamlNode node, final String path, final Problems problems)
    {
        if (!(node instanceof YamlScalar) || ((YamlScalar)node).kind() != YamlScalar.Kind.STRING)
        {
            problems.error(node, path, "expected a backend rule such as round_robin or litellm_latency, got " +
                node.describe());
            return -1;
        }
        final String word = ((YamlScalar)node).text();
        final int code = AlgorithmType.parse(word);
        if (code < 0 || code == AlgorithmType.MULTI_FACTOR)
        {
            final List<String> rules = rules();
            problems.error(node, path, "unknown backend rule \"" + Excerpt.value(word) + "\": expected one of " +
                String.join(", ", rules) + NearestName.suggestion(word, rules));
            return -1;
        }
        return code;
    }

    // Every algorithm type but multi_factor.
    private static List<String> rules()
    {
        final List<String> rules = new ArrayList<>(List.of(AlgorithmType.labels()));
        rules.remove(AlgorithmType.label(AlgorithmType.MULTI_FACTOR));
        return rules;
    }
}
