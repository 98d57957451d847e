package io.multifactor.sim.load;

import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.config.read.MappingReader;
import io.multifactor.config.read.Problems;
import io.multifactor.config.yaml.YamlNode;
import io.multifactor.config.yaml.YamlScalar;
import io.multifactor.config.yaml.YamlTreeReader;
import io.multifactor.sim.prompt.PromptWorkload;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * Reads a load profile from YAML through the configuration layer's located reader, reporting every problem at once as
 * {@code FILE:LINE:COLUMN: PATH: message}.
 * <pre>
 * seed: 7                    # default 1
 * arrivals_per_s: 40         # Poisson rate (default 10)
 * duration_s: 10             # arrivals stop after this (default 10)
 * max_requests: 1000         # and after this many (default 10000)
 * drain_s: 10                # then wait this long for the rest (default 10)
 * decision: chat             # x-mf-decision header and body model (optional)
 * model: fast-small          # body model without a decision (optional)
 * api: chat                  # chat (default) | completions
 * stream: true               # default true
 * prompt_tokens: 200         # default 100
 * max_tokens: 32             # default 32
 * slo: {max_ttft_ms: 500, max_tpot_ms: 50}   # attainment ceilings (optional; compare takes the decision's)
 * interval_s: 1              # timeline row width (default 1)
 * concurrency: 64            # closed loop instead: keep 64 requests open, each replaced when it ends (default 0: open loop)
 * prompts:                   # optional, open loop only: sessions and shared system prompts (PromptWorkload)
 *   turns: 8
 *   think_time_s: 5
 * </pre>
 * This class is stateless and threadsafe.
 */
public final class LoadProfileReader
{
    private static final List<String> ROOT_KEYS = List.of("seed", "arrivals_per_s", "duration_s", "max_requests",
        "drain_s", "decision", "model", "api", "stream", "prompt_tokens", "max_tokens", "slo", "interval_s",
        "concurrency", "prompts");
    private static final List<String> SLO_KEYS = List.of("max_ttft_ms", "max_tpot_ms");

    private LoadProfileReader()
    {
    }

    /**
     * @param path the profile file.
     * @return the profile.
     * @throws InvalidConfigurationException with every problem found, each located.
     */
    public static LoadProfile read(final Path path) throws InvalidConfigurationException
    {
        return read(path.toString(), YamlTreeReader.read(path));
    }

    /**
     * @param file name of the file, for messages.
     * @param yaml the profile text.
     * @return the profile.
     * @throws InvalidConfigurationException with every problem found, each located.
     */
    public static LoadProfile read(final String file, final String yaml) throws InvalidConfigurationException
    {
        return read(file, YamlTreeReader.read(file, yaml));
    }

    private static LoadProfile read(final String file, final YamlNode root) throws InvalidConfigurationException
    {
        final Problems problems = new Problems(file);
        final MappingReader reader = MappingReader.open(root, "", problems, ROOT_KEYS);
        final long seed = reader.optionalInteger("seed", 1L, Long.MIN_VALUE, Long.MAX_VALUE);
        final double rate = positive(reader, "arrivals_per_s", 10.0);
        final double durationS = positive(reader, "duration_s", 10.0);
        final int maxRequests = (int)reader.optionalInteger("max_requests", 10_000L, 1L, 10_000_000L);
        final double drainS = reader.optionalNumber("drain_s", 10.0, true);
        final String decision = reader.optionalString("decision", null);
        final String model = reader.optionalString("model", null);
        final String api = reader.optionalString("api", "chat");
        if (api != null && !"chat".equals(api) && !"completions".equals(api))
        {
            problems.error(reader.value("api"), reader.path("api"), "unknown api \"" + api +
                "\" (expected chat or completions)");
        }
        final boolean stream = flag(reader, "stream", true);
        final int promptTokens = (int)reader.optionalInteger("prompt_tokens", 100L, 1L, 2_000_000L);
        final int maxTokens = (int)reader.optionalInteger("max_tokens", 32L, 1L, 1_000_000L);
        double maxTtftMs = 0.0;
        double maxTpotMs = 0.0;
        final MappingReader slo = reader.optionalMapping("slo", SLO_KEYS);
        if (slo != null)
        {
            maxTtftMs = slo.optionalNumber("max_ttft_ms", 0.0, true);
            maxTpotMs = slo.optionalNumber("max_tpot_ms", 0.0, true);
        }
        final double intervalS = positive(reader, "interval_s", 1.0);
        final int concurrency = (int)reader.optionalInteger("concurrency", 0L, 0L, 4096L);
        final PromptWorkload prompts = PromptWorkload.read(reader.optionalMapping("prompts", PromptWorkload.KEYS));
        if (prompts.active() && concurrency > 0)
        {
            problems.error(reader.value("prompts"), reader.path("prompts"), "prompts need an open-loop run: remove " +
                "concurrency or prompts");
        }
        problems.throwIfErrors();
        return new LoadProfile(seed, rate, durationS, maxRequests, drainS, decision, model, !"completions".equals(api),
            stream, promptTokens, maxTokens, maxTtftMs, maxTpotMs, intervalS, concurrency, prompts);
    }

    private static boolean flag(final MappingReader reader, final String key, final boolean absent)
    {
        if (!reader.has(key))
        {
            return absent;
        }
        final YamlNode node = reader.value(key);
        if (!(node instanceof YamlScalar) || ((YamlScalar)node).kind() != YamlScalar.Kind.BOOLEAN)
        {
            reader.problems().error(node, reader.path(key), "expected true or false, got " + node.describe());
            return absent;
        }
        final String text = ((YamlScalar)node).text().toLowerCase(Locale.ROOT);
        return "true".equals(text) || "yes".equals(text) || "on".equals(text) || "y".equals(text);
    }

    private static double positive(final MappingReader reader, final String key, final double absent)
    {
        final double value = reader.optionalNumber(key, absent, true);
        if (value == 0.0)
        {
            reader.problems().error(reader.value(key), reader.path(key), "must be > 0, got " +
                ((YamlScalar)reader.value(key)).text());
        }
        return value;
    }
}
