package io.multifactor.tools;

import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.config.read.MappingReader;
import io.multifactor.config.read.Problems;
import io.multifactor.config.yaml.YamlEntry;
import io.multifactor.config.yaml.YamlMapping;
import io.multifactor.config.yaml.YamlNode;
import io.multifactor.config.yaml.YamlScalar;
import io.multifactor.config.yaml.YamlSequence;
import io.multifactor.config.yaml.YamlTreeReader;
import io.multifactor.fakes.BackendsProfile;
import io.multifactor.fakes.FakeModelProfile;
import io.multifactor.fakes.PrefixCaching;
import io.multifactor.fakes.TimeWindow;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a backends profile from YAML through the configuration layer's located reader, reporting every problem at once
 * as {@code FILE:LINE:COLUMN: PATH: message}.
 * <pre>
 * seed: 7                    # default 1
 * models:                    # required, at least one
 *   fast-small:              # the model name the server answers for
 *     port: 18001            # default 0: any free loopback port
 *     ttft_ms: 150           # required: mean TTFT at an idle server
 *     tpot_ms: 10            # required: mean time between content chunks
 *     sigma: 0.2             # lognormal shape of both, 0..3 (default 0.25)
 *     batch: 8               # requests decoded at once; more wait (default 16)
 *     output_tokens: 24      # content chunks per response (default 32; a request's max_tokens caps it)
 *     error_rate: 0.0        # share answered 500 (default 0)
 *     kv_per_request: 0.1    # KV-cache share per running request (default 1 / batch)
 *     degraded:              # optional: TTFT and TPOT multiplied, seconds from start
 *       - {from_s: 3, until_s: 8, ttft_factor: 5, tpot_factor: 2}
 *     rate_limited:          # optional: 429 with Retry-After, seconds from start
 *       - {from_s: 1, until_s: 5, retry_after_s: 1, share: 1.0}
 *     prefix_cache:          # optional: its own LRU of prompt blocks; TTFT adds uncached tokens / prefill rate
 *       block_tokens: 16     # tokens per block, 4 bytes of message text each (default 16)
 *       gpu_blocks: 8192     # blocks the KV cache holds (default 8192)
 *       prefill_tokens_per_s: 10000   # (default 10000)
 * </pre>
 * This class is stateless and threadsafe.
 */
public final class BackendsProfileReader
{
    private static final List<String> ROOT_KEYS = List.of("seed", "models");
    private static final List<String> MODEL_KEYS = List.of("port", "ttft_ms", "tpot_ms", "sigma", "batch",
        "output_tokens", "error_rate", "kv_per_request", "degraded", "rate_limited", "prefix_cache");
    private static final List<String> PREFIX_CACHE_KEYS = List.of("block_tokens", "gpu_blocks", "prefill_tokens_per_s");
    private static final List<String> DEGRADED_KEYS = List.of("from_s", "until_s", "ttft_factor", "tpot_factor");
    private static final List<String> LIMITED_KEYS = List.of("from_s", "until_s", "retry_after_s", "share");

    private BackendsProfileReader()
    {
    }

    /**
     * @param path the profile file.
     * @return the profile.
     * @throws InvalidConfigurationException with every problem found, each located.
     */
    public static BackendsProfile read(final Path path) throws InvalidConfigurationException
    {
        return read(path.toString(), YamlTreeReader.read(path));
    }

    /**
     * @param file name of the file, for messages.
     * @param yaml the profile text.
     * @return the profile.
     * @throws InvalidConfigurationException with every problem found, each located.
     */
    public static BackendsProfile read(final String file, final String yaml) throws InvalidConfigurationException
    {
        return read(file, YamlTreeReader.read(file, yaml));
    }

    private static BackendsProfile read(final String file, final YamlNode root) throws InvalidConfigurationException
    {
        final Problems problems = new Problems(file);
        final MappingReader reader = MappingReader.open(root, "", problems, ROOT_KEYS);
        final long seed = reader.optionalInteger("seed", 1L, Long.MIN_VALUE, Long.MAX_VALUE);
        final List<FakeModelProfile> models = new ArrayList<>();
        reader.require("models");
        final YamlNode node = reader.value("models");
        if (node != null && !(node instanceof YamlMapping))
        {
            problems.error(node, reader.path("models"), "expected a mapping of model names, got " + node.describe());
        }
        else if (node != null)
        {
            final YamlMapping modelNodes = (YamlMapping)node;
            if (modelNodes.entries().isEmpty())
            {
                problems.error(modelNodes, reader.path("models"), "must name at least one model");
            }
            final Map<Integer, String> ports = new HashMap<>();
            for (final YamlEntry entry : modelNodes.entries())
            {
                final String path = reader.path("models") + '.' + entry.key();
                final FakeModelProfile model = model(entry.key(), MappingReader.open(entry.value(), path, problems,
                    MODEL_KEYS));
                if (model == null)
                {
                    continue;
                }
                final String other = model.port() == 0 ? null : ports.putIfAbsent(model.port(), model.name());
                if (other != null)
                {
                    problems.error(((YamlMapping)entry.value()).entries().stream()
                        .filter(e -> "port".equals(e.key())).findFirst().map(YamlEntry::value).orElse(entry.value()),
                        path + ".port", "port " + model.port() + " is already taken by model \"" + other + '"');
                    continue;
                }
                models.add(model);
            }
        }
        problems.throwIfErrors();
        return new BackendsProfile(seed, models);
    }

    private static FakeModelProfile model(final String name, final MappingReader reader)
    {
        final int errorsBefore = reader.problems().errors().size();
        // Non-short-circuit: report both missing keys, not just the first.
        final boolean complete = reader.require("ttft_ms") & reader.require("tpot_ms");
        final int port = (int)reader.optionalInteger("port", 0L, 0L, 65_535L);
        final double ttftMs = positive(reader, "ttft_ms", 1.0);
        final double tpotMs = positive(reader, "tpot_ms", 1.0);
        final double sigma = inRange(reader, "sigma", 0.25, 0.0, 3.0);
        final int batch = (int)reader.optionalInteger("batch", 16L, 1L, 100_000L);
        final int outputTokens = (int)reader.optionalInteger("output_tokens", 32L, 1L, 100_000L);
        final double errorRate = inRange(reader, "error_rate", 0.0, 0.0, 1.0);
        final double kvPerRequest = reader.has("kv_per_request") ?
            inRange(reader, "kv_per_request", 0.0, 0.0, 1.0) : 1.0 / Math.max(1, batch);
        if (reader.has("kv_per_request") && kvPerRequest == 0.0)
        {
            reader.problems().error(reader.value("kv_per_request"), reader.path("kv_per_request"),
                "must be > 0, got " + text(reader.value("kv_per_request")));
        }
        final List<TimeWindow> degraded = windows(reader, "degraded", DEGRADED_KEYS);
        final List<TimeWindow> limited = windows(reader, "rate_limited", LIMITED_KEYS);
        final MappingReader cache = reader.optionalMapping("prefix_cache", PREFIX_CACHE_KEYS);
        PrefixCaching caching = null;
        if (cache != null)
        {
            final int blockTokens = (int)cache.optionalInteger("block_tokens", 16L, 1L, 65_536L);
            final int gpuBlocks = (int)cache.optionalInteger("gpu_blocks", 8192L, 1L, 16_777_216L);
            final double prefill = positive(cache, "prefill_tokens_per_s", 10_000.0);
            caching = prefill > 0.0 ? new PrefixCaching(blockTokens, gpuBlocks, prefill) : null;
        }
        if (!complete || reader.problems().errors().size() != errorsBefore)
        {
            return null;
        }
        return new FakeModelProfile(name, port, ttftMs, tpotMs, sigma, batch, outputTokens, errorRate, kvPerRequest,
            degraded, limited, caching);
    }

    private static List<TimeWindow> windows(final MappingReader reader, final String key, final List<String> keys)
    {
        final List<TimeWindow> windows = new ArrayList<>();
        final YamlSequence list = reader.optionalSequence(key);
        if (list == null)
        {
            return windows;
        }
        final boolean limit = "rate_limited".equals(key);
        for (int i = 0; i < list.items().size(); i++)
        {
            final MappingReader window = MappingReader.open(list.items().get(i), reader.path(key) + '[' + i + ']',
                reader.problems(), keys);
            final boolean span = window.require("from_s") & window.require("until_s");
            final double fromS = window.optionalNumber("from_s", 0.0, true);
            final double untilS = positive(window, "until_s", 1.0);
            if (span && untilS <= fromS)
            {
                window.problems().error(window.value("until_s"), window.path("until_s"),
                    "must be after from_s (" + text(window.value("from_s")) + "), got " + text(window.value("until_s")));
            }
            if (limit)
            {
                final long retryAfterS = window.optionalInteger("retry_after_s", 1L, 0L, 86_400L);
                final double share = positive(window, "share", 1.0);
                if (share > 1.0)
                {
                    window.problems().error(window.value("share"), window.path("share"),
                        "must be in (0, 1], got " + text(window.value("share")));
                }
                windows.add(new TimeWindow(fromS, untilS, 1.0, 1.0, retryAfterS, share));
            }
            else
            {
                windows.add(new TimeWindow(fromS, untilS, positive(window, "ttft_factor", 1.0),
                    positive(window, "tpot_factor", 1.0), 0L, 1.0));
            }
        }
        return windows;
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

    private static double inRange(
        final MappingReader reader, final String key, final double absent, final double min, final double max)
    {
        final double value = reader.optionalNumber(key, absent, false);
        if (value < min || value > max)
        {
            reader.problems().error(reader.value(key), reader.path(key), "must be in [" + format(min) + ", " +
                format(max) + "], got " + text(reader.value(key)));
        }
        return value;
    }

    private static String format(final double value)
    {
        return value == Math.rint(value) && Math.abs(value) < 1e15 ? Long.toString((long)value) : Double.toString(value);
    }

    private static String text(final YamlNode node)
    {
        return node instanceof YamlScalar ? ((YamlScalar)node).text() : node.describe();
    }
}
