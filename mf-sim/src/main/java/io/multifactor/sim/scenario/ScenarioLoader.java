package io.multifactor.sim.scenario;

import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.config.read.MappingReader;
import io.multifactor.config.read.Problems;
import io.multifactor.config.read.Values;
import io.multifactor.config.yaml.YamlEntry;
import io.multifactor.config.yaml.YamlMapping;
import io.multifactor.config.yaml.YamlNode;
import io.multifactor.config.yaml.YamlScalar;
import io.multifactor.config.yaml.YamlSequence;
import io.multifactor.config.yaml.YamlTreeReader;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a scenario file (docs/configuration.md), refusing bad input with every problem located as
 * {@code FILE:LINE:COLUMN: PATH: message}: an unknown key, a wrong type, a sample that is NaN, infinite, zero or
 * negative, a negative in-flight count, a model listed twice, a negative token count or token counts that add up to 0,
 * a session's turns below 1 or negative idle time.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class ScenarioLoader
{
    private static final List<String> ROOT_KEYS =
        List.of("decision", "exclude", "prompt_tokens", "max_output_tokens", "seed", "models", "session", "needs",
            "request_slo", "priority");
    private static final List<String> SESSION_KEYS = List.of("model", "turns", "idle_ms");
    private static final List<String> MODEL_KEYS =
        List.of("tpot_ms", "ttft_ms", "inflight", "inflight_tokens", "queue", "kv_cache", "ejected_ms", "prefix");

    /** The largest in-flight count a scenario may give one model (each one is a real lease in the engine). */
    public static final long MAX_INFLIGHT = 1_000_000L;

    /** The largest token count a scenario may give ({@code prompt_tokens}, {@code max_output_tokens}). */
    public static final long MAX_TOKENS = 1_000_000_000L;

    private ScenarioLoader()
    {
    }

    /**
     * @param path the scenario file.
     * @return the scenario.
     * @throws InvalidConfigurationException with every problem of the file.
     */
    public static Scenario load(final Path path) throws InvalidConfigurationException
    {
        return read(path.toString(), YamlTreeReader.read(path));
    }

    /**
     * @param file name of the file, for messages.
     * @param yaml the scenario text.
     * @return the scenario.
     * @throws InvalidConfigurationException with every problem of the text.
     */
    public static Scenario load(final String file, final String yaml) throws InvalidConfigurationException
    {
        return read(file, YamlTreeReader.read(file, yaml.getBytes(StandardCharsets.UTF_8)));
    }

    private static Scenario read(final String file, final YamlNode root) throws InvalidConfigurationException
    {
        final Problems problems = new Problems(file);
        final MappingReader top = MappingReader.open(root, "", problems, ROOT_KEYS);
        LocatedName decision = null;
        final String decisionName = top.requiredString("decision");
        if (decisionName != null)
        {
            decision = located(decisionName, top.value("decision"), "decision");
        }
        final List<LocatedName> exclude = new ArrayList<>();
        final YamlSequence excludeList = top.optionalSequence("exclude");
        if (excludeList != null)
        {
            for (int i = 0; i < excludeList.items().size(); i++)
            {
                final YamlNode item = excludeList.items().get(i);
                final String path = "exclude[" + i + ']';
                final String name = Values.string(item, path, problems);
                if (name != null)
                {
                    exclude.add(located(name, item, path));
                }
            }
        }
        final Long promptTokens = tokens(top, "prompt_tokens");
        final Long maxOutputTokens = tokens(top, "max_output_tokens");
        if ((promptTokens != null || maxOutputTokens != null) &&
            (promptTokens == null ? 0 : promptTokens) + (maxOutputTokens == null ? 0 : maxOutputTokens) == 0 &&
            !problems.hasErrors())
        {
            final String key = top.has("prompt_tokens") ? "prompt_tokens" : "max_output_tokens";
            problems.error(top.value(key), key, "prompt_tokens and max_output_tokens must not both be 0 (leave them out " +
                "to use the decision's cost_mix), got " + ((YamlScalar)top.value(key)).text());
        }
        final Long seed = top.has("seed") ? top.optionalInteger("seed", 0L, Long.MIN_VALUE, Long.MAX_VALUE) : null;
        final List<ModelObservations> models = new ArrayList<>();
        if (top.has("models"))
        {
            models(top.value("models"), problems, models);
        }
        final ScenarioSession session = session(top);
        final RequestLimits limits = RequestLimits.read(top);
        problems.throwIfErrors();
        return new Scenario(file, decision, exclude, models, promptTokens, maxOutputTokens, seed, session, limits);
    }

    // session: {model, turns >= 1, idle_ms >= 0}; absent: the request carries no session key.
    private static ScenarioSession session(final MappingReader top)
    {
        final MappingReader session = top.optionalMapping("session", SESSION_KEYS);
        if (session == null)
        {
            return null;
        }
        final String model = session.optionalString("model", null);
        return new ScenarioSession(model == null ? null : located(model, session.value("model"), session.path("model")),
            session.optionalInteger("turns", 1L, 1L, Integer.MAX_VALUE),
            session.optionalInteger("idle_ms", 0L, 0L, Long.MAX_VALUE / 1_000_000L));
    }

    private static void models(final YamlNode node, final Problems problems, final List<ModelObservations> models)
    {
        if (node instanceof YamlScalar && ((YamlScalar)node).kind() == YamlScalar.Kind.NULL)
        {
            return;
        }
        if (!(node instanceof YamlMapping))
        {
            problems.error(node, "models", "expected a mapping of model name to observations, got " + node.describe());
            return;
        }
        final Map<String, YamlEntry> seen = new HashMap<>();
        for (final YamlEntry entry : ((YamlMapping)node).entries())
        {
            final String path = "models." + entry.key();
            final YamlEntry first = seen.putIfAbsent(entry.key(), entry);
            if (first != null)
            {
                problems.error(entry.keyLine(), entry.keyColumn(), path,
                    "duplicate model \"" + entry.key() + "\" (first at line " + first.keyLine() + ')');
                continue;
            }
            final MappingReader model = MappingReader.open(entry.value(), path, problems, MODEL_KEYS);
            final double[] tpot = samples(model, "tpot_ms", problems);
            final double[] ttft = samples(model, "ttft_ms", problems);
            final long inflight = model.optionalInteger("inflight", 0L, 0L, MAX_INFLIGHT);
            final long inflightTokens = model.optionalInteger("inflight_tokens", 0L, 0L, MAX_TOKENS);
            final double queue = model.has("queue") ?
                (double)model.optionalInteger("queue", 0L, 0L, MAX_INFLIGHT) : Double.NaN;
            final double kvCache = model.has("kv_cache") ? unitFraction(model, "kv_cache",
                "kv_cache is a fraction of the KV cache in use, 0..1, got ", problems) : Double.NaN;
            final double ejectedMs = model.has("ejected_ms") ? positiveMillis(model, problems) : Double.NaN;
            final double prefix = model.has("prefix") ? unitFraction(model, "prefix",
                "prefix is the share of the request's prompt cached for the model, 0..1, got ", problems) : Double.NaN;
            models.add(new ModelObservations(
                new LocatedName(entry.key(), entry.keyLine(), entry.keyColumn(), path), tpot, ttft, inflight,
                inflightTokens, queue, kvCache, ejectedMs, prefix));
        }
    }

    private static double unitFraction(
        final MappingReader model, final String key, final String outOfRange, final Problems problems)
    {
        final double value = model.optionalNumber(key, Double.NaN, false);
        if (value == value && !(value >= 0.0 && value <= 1.0))
        {
            problems.error(model.value(key), model.path(key), outOfRange + ((YamlScalar)model.value(key)).text());
            return Double.NaN;
        }
        return value;
    }

    private static double positiveMillis(final MappingReader model, final Problems problems)
    {
        final double value = model.optionalNumber("ejected_ms", Double.NaN, false);
        if (value == value && !(value > 0.0))
        {
            problems.error(model.value("ejected_ms"), model.path("ejected_ms"),
                "ejected_ms must be > 0 (how long the model is still ejected), got " +
                    ((YamlScalar)model.value("ejected_ms")).text());
            return Double.NaN;
        }
        return value;
    }

    /** @return a token count, {@code null} when absent; the largest accepted is {@link #MAX_TOKENS}. */
    private static Long tokens(final MappingReader top, final String key)
    {
        return top.has(key) ? top.optionalInteger(key, 0L, 0L, MAX_TOKENS) : null;
    }

    private static double[] samples(final MappingReader model, final String key, final Problems problems)
    {
        final YamlSequence list = model.optionalSequence(key);
        if (list == null)
        {
            return new double[0];
        }
        final double[] samples = new double[list.items().size()];
        for (int i = 0; i < samples.length; i++)
        {
            final YamlNode item = list.items().get(i);
            final String path = model.path(key) + '[' + i + ']';
            final double value = Values.number(item, path, problems, false);
            if (value == value && value <= 0.0)
            {
                problems.error(item, path, "a latency sample must be > 0 ms, got " + ((YamlScalar)item).text());
            }
            samples[i] = value;
        }
        return samples;
    }

    private static LocatedName located(final String name, final YamlNode node, final String path)
    {
        return new LocatedName(name, node.line(), node.column(), path);
    }
}
