package io.multifactor.sim;

import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.config.RecipeDecisionNames;
import io.multifactor.config.read.MappingReader;
import io.multifactor.config.read.NameHint;
import io.multifactor.config.read.Problems;
import io.multifactor.config.read.Values;
import io.multifactor.config.yaml.Excerpt;
import io.multifactor.config.yaml.YamlEntry;
import io.multifactor.config.yaml.YamlMapping;
import io.multifactor.config.yaml.YamlNode;
import io.multifactor.config.yaml.YamlScalar;
import io.multifactor.config.yaml.YamlTreeReader;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.sim.prompt.PromptWorkload;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a simulation profile from YAML, reporting every problem at once as {@code FILE:LINE:COLUMN: PATH: message}
 * (through the configuration layer's located YAML reader, so profiles fail the same way router configurations do).
 * <pre>
 * duration_s: 120            # simulated seconds (default 120)
 * interval_s: 5              # report interval (default 5)
 * seed: 42                   # default 1
 * arrivals_per_s: 12         # Poisson arrivals over all decisions (default 10)
 * prompt_tokens: 500         # per request, for cost (default 500)
 * output_tokens: {mean: 150, sigma: 0.5}   # lognormal per request (defaults 200, 0.5)
 * tokens_in_request: true    # requests carry prompt_tokens and their output length to select (default false)
 * decisions:                 # relative share of arrivals; absent = equal over every decision
 *   fast_chat: 0.6
 * models:                    # required: one entry per model of the configuration
 *   slow-strong:
 *     ttft_ms: 350           # required: mean within capacity
 *     tpot_ms: 40            # required
 *     sigma: 0.25            # lognormal shape (default 0.25)
 *     capacity: 16           # in-flight requests at base speed (default 32)
 *     slowdown_per_request: 0.03   # growth per request beyond capacity (default 0.02)
 *     degraded: {from_s: 30, until_s: 50, ttft_factor: 6, tpot_factor: 2.5}   # optional
 *     error_rate: 0.01       # share of requests answered 500 (default 0)
 *     failing: {from_s: 30, until_s: 50}     # optional: every request answered 500 in this window
 *     rate_limited: {from_s: 70, until_s: 80, retry_after_s: 5}   # optional: 429 with Retry-After in this window
 *     servers: {batch: 16, gpu_blocks: 4096, block_tokens: 16, prefill_tokens_per_s: 10000}   # optional: one
 *                            # server per backend_refs entry, each with its own prefix cache (BackendServers)
 * prompts:                   # optional: sessions and shared system prompts (PromptWorkload)
 *   system_prompts: 4
 *   system_tokens: 3000
 *   turns: 1
 * bursts: {on_s: 5, off_s: 10}   # optional: on/off arrivals, 3x arrivals_per_s while on (ArrivalBursts)
 * </pre>
 * This class is stateless and threadsafe.
 */
public final class ProfileReader
{
    private static final List<String> ROOT_KEYS = List.of(
        "duration_s", "interval_s", "seed", "arrivals_per_s", "prompt_tokens", "output_tokens", "tokens_in_request",
        "decisions", "models", "long_prompts", "tokens_per_slot", "prompts", "bursts");
    private static final List<String> BURST_KEYS = List.of("on_s", "off_s");
    private static final List<String> SERVER_KEYS = List.of("batch", "gpu_blocks", "block_tokens",
        "prefill_tokens_per_s");
    private static final List<String> LONG_PROMPT_KEYS = List.of("share", "prompt_tokens");
    private static final List<String> OUTPUT_KEYS = List.of("mean", "sigma");
    private static final List<String> MODEL_KEYS =
        List.of("ttft_ms", "tpot_ms", "sigma", "capacity", "slowdown_per_request", "degraded", "error_rate", "failing",
            "rate_limited", "servers");
    private static final List<String> FAILING_KEYS = List.of("from_s", "until_s");
    private static final List<String> RATE_LIMITED_KEYS = List.of("from_s", "until_s", "retry_after_s");
    private static final List<String> DEGRADED_KEYS = List.of("from_s", "until_s", "ttft_factor", "tpot_factor");

    private ProfileReader()
    {
    }

    /**
     * @param path the profile file.
     * @return the profile.
     * @throws InvalidConfigurationException with every problem found, each located.
     */
    public static SimulationProfile read(final Path path) throws InvalidConfigurationException
    {
        return read(path.toString(), YamlTreeReader.read(path));
    }

    /**
     * @param file name of the file, for messages.
     * @param yaml the profile text.
     * @return the profile.
     * @throws InvalidConfigurationException with every problem found, each located.
     */
    public static SimulationProfile read(final String file, final String yaml) throws InvalidConfigurationException
    {
        return read(file, YamlTreeReader.read(file, yaml));
    }

    /**
     * Reads a profile for the plans it will drive, checking in the same pass that it fits them: every model and
     * decision it names exists (else a located problem with the nearest name when it looks like a typo) and every model
     * of the plans has a behaviour.
     *
     * @param path the profile file.
     * @param plans the plans of the configuration to simulate.
     * @return the profile.
     * @throws InvalidConfigurationException with every problem found, each located.
     */
    public static SimulationProfile read(final Path path, final Plans plans) throws InvalidConfigurationException
    {
        return read(path.toString(), YamlTreeReader.read(path), plans);
    }

    private static SimulationProfile read(final String file, final YamlNode root) throws InvalidConfigurationException
    {
        return read(file, root, null);
    }

    private static SimulationProfile read(final String file, final YamlNode root, final Plans plansOrNull)
        throws InvalidConfigurationException
    {
        final Problems problems = new Problems(file);
        final MappingReader reader = MappingReader.open(root, "", problems, ROOT_KEYS);
        final double durationS = positive(reader, "duration_s", 120.0);
        final double intervalS = positive(reader, "interval_s", 5.0);
        final long seed = reader.optionalInteger("seed", 1L, Long.MIN_VALUE, Long.MAX_VALUE);
        final double arrivalsPerS = positive(reader, "arrivals_per_s", 10.0);
        final int promptTokens = (int)reader.optionalInteger("prompt_tokens", 500L, 0L, 10_000_000L);

        double outputMean = 200.0;
        double outputSigma = 0.5;
        final MappingReader output = reader.optionalMapping("output_tokens", OUTPUT_KEYS);
        if (output != null)
        {
            outputMean = atLeast(output, "mean", outputMean, 1.0);
            outputSigma = sigma(output, "sigma", outputSigma);
        }

        final boolean tokensInRequest = flag(reader, "tokens_in_request");
        double longShare = 0.0;
        int longTokens = 0;
        final MappingReader longPrompts = reader.optionalMapping("long_prompts", LONG_PROMPT_KEYS);
        if (longPrompts != null)
        {
            longShare = longPrompts.optionalNumber("share", 0.0, true);
            if (!(longShare <= 1.0))
            {
                problems.error(longPrompts.value("share"), longPrompts.path("share"), "must be in [0, 1], got " +
                    longShare);
                longShare = 0.0;
            }
            longTokens = (int)longPrompts.optionalInteger("prompt_tokens", 0L, 0L, 10_000_000L);
        }
        final int tokensPerSlot = (int)reader.optionalInteger("tokens_per_slot", 0L, 0L, 10_000_000L);

        final Map<String, Double> shares = new LinkedHashMap<>();
        final YamlMapping decisions = mapping(reader, "decisions");
        if (decisions != null)
        {
            for (final YamlEntry entry : decisions.entries())
            {
                final String path = reader.path("decisions") + '.' + entry.key();
                final double share = Values.number(entry.value(), path, problems, true);
                if (shares.put(entry.key(), share) != null)
                {
                    problems.error(entry.keyLine(), entry.keyColumn(), path, "duplicate decision \"" + entry.key() + '"');
                }
            }
        }

        final PromptWorkload prompts = PromptWorkload.read(reader.optionalMapping("prompts", PromptWorkload.KEYS));
        ArrivalBursts bursts = ArrivalBursts.NONE;
        final MappingReader burstReader = reader.optionalMapping("bursts", BURST_KEYS);
        if (burstReader != null)
        {
            final boolean complete = burstReader.require("on_s") & burstReader.require("off_s");
            final double onS = positive(burstReader, "on_s", 1.0);
            final double offS = positive(burstReader, "off_s", 1.0);
            if (prompts.active())
            {
                problems.error(reader.value("bursts"), reader.path("bursts"), "bursts apply to Poisson arrivals: a " +
                    "profile with prompts follows its sessions' arrivals (remove one of the two)");
            }
            else if (complete && onS > 0.0 && offS > 0.0)
            {
                bursts = new ArrivalBursts(onS, offS);
            }
        }
        final Map<String, BackendServers> servers = new LinkedHashMap<>();
        final Map<String, ModelBehaviour> models = new LinkedHashMap<>();
        reader.require("models");
        final YamlMapping modelNodes = mapping(reader, "models");
        if (modelNodes != null)
        {
            if (modelNodes.entries().isEmpty())
            {
                problems.error(modelNodes, reader.path("models"), "must name at least one model");
            }
            for (final YamlEntry entry : modelNodes.entries())
            {
                final String path = reader.path("models") + '.' + entry.key();
                if (models.containsKey(entry.key()))
                {
                    problems.error(entry.keyLine(), entry.keyColumn(), path, "duplicate model \"" + entry.key() + '"');
                    continue;
                }
                final MappingReader modelReader = MappingReader.open(entry.value(), path, problems, MODEL_KEYS);
                final ModelBehaviour behaviour = model(entry.key(), modelReader);
                if (behaviour != null)
                {
                    models.put(entry.key(), behaviour);
                }
                final BackendServers modelServers = servers(modelReader.optionalMapping("servers", SERVER_KEYS));
                if (modelServers != null)
                {
                    servers.put(entry.key(), modelServers);
                }
            }
        }

        if (plansOrNull != null)
        {
            fits(plansOrNull, reader, decisions, modelNodes);
        }
        problems.throwIfErrors();
        return new SimulationProfile(durationS, intervalS, seed, arrivalsPerS, promptTokens, outputMean, outputSigma,
            shares, models, tokensInRequest,
            new RequestSizes(Double.isNaN(longShare) ? 0.0 : longShare, Math.max(0, longTokens), Math.max(0, tokensPerSlot)),
            prompts, servers, bursts);
    }

    /** @return the servers of a model's {@code servers} block, null when absent or wrong (reported). */
    private static BackendServers servers(final MappingReader reader)
    {
        if (reader == null)
        {
            return null;
        }
        final int errorsBefore = reader.problems().errors().size();
        final int batch = (int)reader.optionalInteger("batch", 16L, 1L, 1_000_000L);
        final int gpuBlocks = (int)reader.optionalInteger("gpu_blocks", 8192L, 1L, 16_777_216L);
        final int blockTokens = (int)reader.optionalInteger("block_tokens", 16L, 1L, 65_536L);
        final double prefill = positive(reader, "prefill_tokens_per_s", 10_000.0);
        return reader.problems().errors().size() != errorsBefore ? null :
            new BackendServers(blockTokens, gpuBlocks, prefill, batch);
    }

    /** @return a {@code true}/{@code false} key, false when absent or wrong (reported). */
    private static boolean flag(final MappingReader reader, final String key)
    {
        if (!reader.has(key))
        {
            return false;
        }
        final YamlNode node = reader.value(key);
        if (!(node instanceof YamlScalar) || ((YamlScalar)node).kind() != YamlScalar.Kind.BOOLEAN)
        {
            reader.problems().error(node, reader.path(key), "expected true or false, got " + node.describe());
            return false;
        }
        final String text = ((YamlScalar)node).text().toLowerCase(java.util.Locale.ROOT);
        return "true".equals(text) || "yes".equals(text) || "on".equals(text) || "y".equals(text);
    }

    private static void fits(
        final Plans plans, final MappingReader reader, final YamlMapping decisions, final YamlMapping modelNodes)
    {
        final Problems problems = reader.problems();
        final List<String> planModels = new ArrayList<>();
        for (int id = 0; id < plans.modelCapacity(); id++)
        {
            if (plans.modelName(id) != null)
            {
                planModels.add(plans.modelName(id));
            }
        }
        final List<String> planDecisions = new ArrayList<>();
        for (int id = 0; id < plans.decisionCapacity(); id++)
        {
            if (plans.decision(id) != null)
            {
                planDecisions.add(plans.decision(id).name());
            }
        }
        if (decisions != null)
        {
            for (final YamlEntry entry : decisions.entries())
            {
                if (!planDecisions.contains(entry.key()))
                {
                    problems.error(entry.keyLine(), entry.keyColumn(), reader.path("decisions") + '.' + entry.key(),
                        "unknown decision \"" + Excerpt.value(entry.key()) + "\": the configuration has no such decision" +
                        decisionHint(plans, entry.key(), planDecisions));
                }
            }
        }
        if (modelNodes == null)
        {
            return;
        }
        final List<String> named = new ArrayList<>();
        for (final YamlEntry entry : modelNodes.entries())
        {
            named.add(entry.key());
            if (!planModels.contains(entry.key()))
            {
                problems.error(entry.keyLine(), entry.keyColumn(), reader.path("models") + '.' + entry.key(),
                    "unknown model \"" + Excerpt.value(entry.key()) + "\": the configuration has no such model" +
                    NameHint.of(entry.key(), planModels, "models"));
            }
        }
        for (final String model : planModels)
        {
            if (!named.contains(model))
            {
                problems.error(modelNodes, reader.path("models"), "no behaviour for model \"" + Excerpt.value(model) +
                    "\" of the configuration: add models." + Excerpt.value(model) + " with ttft_ms and tpot_ms");
            }
        }
    }

    private static ModelBehaviour model(final String name, final MappingReader reader)
    {
        final int errorsBefore = reader.problems().errors().size();
        // Non-short-circuit: report both missing keys, not just the first.
        final boolean complete = reader.require("ttft_ms") & reader.require("tpot_ms");
        final double ttftMs = positive(reader, "ttft_ms", 1.0);
        final double tpotMs = positive(reader, "tpot_ms", 1.0);
        final double sigma = sigma(reader, "sigma", 0.25);
        final int capacity = (int)reader.optionalInteger("capacity", 32L, 1L, 1_000_000L);
        final double slowdown = atLeast(reader, "slowdown_per_request", 0.02, 0.0);
        final MappingReader degraded = reader.optionalMapping("degraded", DEGRADED_KEYS);
        double fromS = Double.NaN;
        double untilS = Double.NaN;
        double ttftFactor = 1.0;
        double tpotFactor = 1.0;
        if (degraded != null)
        {
            final boolean window = degraded.require("from_s") & degraded.require("until_s");
            fromS = atLeast(degraded, "from_s", 0.0, 0.0);
            untilS = positive(degraded, "until_s", 1.0);
            ttftFactor = positive(degraded, "ttft_factor", 1.0);
            tpotFactor = positive(degraded, "tpot_factor", 1.0);
            if (window && untilS <= fromS)
            {
                degraded.problems().error(degraded.value("until_s"), degraded.path("until_s"),
                    "must be after from_s (" + text(degraded.value("from_s")) + "), got " + text(degraded.value("until_s")));
            }
        }
        final double errorRate = atLeast(reader, "error_rate", 0.0, 0.0);
        if (errorRate > 1.0)
        {
            reader.problems().error(reader.value("error_rate"), reader.path("error_rate"),
                "must be in [0, 1], got " + text(reader.value("error_rate")));
        }
        final double[] failing = window(reader, "failing", FAILING_KEYS);
        final double[] limited = window(reader, "rate_limited", RATE_LIMITED_KEYS);
        if (!complete || reader.problems().errors().size() != errorsBefore)
        {
            return null;
        }
        final ModelBehaviour steady = ModelBehaviour.steady(name, ttftMs, tpotMs, sigma, capacity, slowdown)
            .failing(new FailureBehaviour(errorRate, failing[0], failing[1], limited[0], limited[1], limited[2]));
        return degraded == null ? steady : steady.degraded(fromS, untilS, ttftFactor, tpotFactor);
    }

    // {from_s, until_s, retry_after_s} of an optional window, NaN (and 1 s) when absent.
    private static double[] window(final MappingReader reader, final String key, final List<String> keys)
    {
        final MappingReader window = reader.optionalMapping(key, keys);
        if (window == null)
        {
            return new double[] { Double.NaN, Double.NaN, 1.0 };
        }
        final boolean complete = window.require("from_s") & window.require("until_s");
        final double fromS = atLeast(window, "from_s", 0.0, 0.0);
        final double untilS = positive(window, "until_s", 1.0);
        final double retryAfterS = keys.contains("retry_after_s") ? positive(window, "retry_after_s", 1.0) : 1.0;
        if (complete && untilS <= fromS)
        {
            window.problems().error(window.value("until_s"), window.path("until_s"),
                "must be after from_s (" + text(window.value("from_s")) + "), got " + text(window.value("until_s")));
        }
        return new double[] { fromS, untilS, retryAfterS };
    }

    private static YamlMapping mapping(final MappingReader reader, final String key)
    {
        final YamlNode node = reader.value(key);
        if (node == null)
        {
            return null;
        }
        if (node instanceof YamlMapping)
        {
            return (YamlMapping)node;
        }
        reader.problems().error(node, reader.path(key), "expected a mapping, got " + node.describe());
        return null;
    }

    private static double positive(final MappingReader reader, final String key, final double absent)
    {
        final double value = reader.optionalNumber(key, absent, true);
        if (value == 0.0)
        {
            reader.problems().error(reader.value(key), reader.path(key), "must be > 0, got " + text(reader.value(key)));
        }
        return value;
    }

    private static double atLeast(final MappingReader reader, final String key, final double absent, final double min)
    {
        final double value = reader.optionalNumber(key, absent, false);
        if (value < min)
        {
            reader.problems().error(reader.value(key), reader.path(key), "must be >= " + min + ", got " +
                text(reader.value(key)));
        }
        return value;
    }

    private static double sigma(final MappingReader reader, final String key, final double absent)
    {
        final double value = reader.optionalNumber(key, absent, true);
        if (value > 3.0)
        {
            reader.problems().error(reader.value(key), reader.path(key), "must be in [0, 3], got " + text(reader.value(key)));
        }
        return value;
    }

    private static String text(final YamlNode node)
    {
        return node instanceof YamlScalar ? ((YamlScalar)node).text() : node.describe();
    }

    /** A recipe's decision named without its recipe gets its qualified name, any other the nearest plausible name. */
    private static String decisionHint(final Plans plans, final String decision, final List<String> planDecisions)
    {
        final String recipe = RecipeDecisionNames.hint(plans, decision);
        return recipe.isEmpty() ? NameHint.of(decision, planDecisions, "decisions") : recipe;
    }
}
