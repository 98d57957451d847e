package io.multifactor.config;

import io.multifactor.config.model.ReliabilityConfig;
import io.multifactor.config.read.Durations;
import io.multifactor.config.read.MappingReader;
import io.multifactor.config.read.NearestName;
import io.multifactor.config.yaml.Excerpt;
import io.multifactor.config.yaml.YamlNode;
import io.multifactor.config.yaml.YamlScalar;
import io.multifactor.kernel.signal.ServerKind;
import io.multifactor.kernel.signal.ServerMetricsSettings;
import io.multifactor.kernel.signal.WhenStale;

import java.util.List;

/**
 * Reads what model-server signals and ejection need: a model's {@code server} and {@code reliability}, and
 * {@code signals.server_metrics} ({@code every}, {@code path}, {@code timeout}, {@code stale_after},
 * {@code when_stale}), reporting every problem where it is.
 * <p>
 * This class is stateless and threadsafe.
 */
final class ServerSignalsReader
{
    static final List<String> SERVER_WORDS = List.of("vllm", "sglang");
    static final List<String> WHEN_STALE_WORDS = List.of("ignore", "saturated");
    static final List<String> RELIABILITY_KEYS =
        List.of("consecutive_5xx", "base_ejection_time", "max_ejection_percent", "max_ejection_time");
    static final List<String> SERVER_METRICS_KEYS = List.of("every", "path", "timeout", "stale_after", "when_stale");

    private ServerSignalsReader()
    {
    }

    /**
     * @param model the model's mapping.
     * @return its {@code server}, or {@code null} when absent or after a reported problem.
     */
    static ServerKind server(final MappingReader model)
    {
        final String word = model.optionalString("server", null);
        if (word == null)
        {
            return null;
        }
        final ServerKind kind = ServerKind.ofConfigName(word);
        if (kind == null)
        {
            model.problems().error(model.value("server"), model.path("server"), "unknown server \"" +
                Excerpt.value(word) + "\": expected vllm or sglang" + NearestName.suggestion(word, SERVER_WORDS));
        }
        return kind;
    }

    /**
     * @param model the model's mapping.
     * @param ignoreOthers whether keys outside {@link #RELIABILITY_KEYS} are ignored (vSR's own) or refused (ours).
     * @return the block, {@code null} when absent; meaningful only when no error was reported.
     */
    static ReliabilityConfig reliability(final MappingReader model, final boolean ignoreOthers)
    {
        final MappingReader block = ignoreOthers
            ? model.optionalMappingIgnoringOthers("reliability", RELIABILITY_KEYS)
            : model.optionalMapping("reliability", RELIABILITY_KEYS);
        if (block == null)
        {
            return null;
        }
        final ReliabilityConfig d = ReliabilityConfig.NONE;
        final long consecutive = block.optionalInteger("consecutive_5xx", 0, 1, 1_000_000);
        final long baseNs = block.optionalDurationNs("base_ejection_time", d.baseEjectionTimeNs());
        final long percent = block.optionalInteger("max_ejection_percent", d.maxEjectionPercent(), 0, 100);
        final long maxNs = block.optionalDurationNs("max_ejection_time", d.maxEjectionTimeNs());
        if (baseNs != Durations.INVALID && maxNs != Durations.INVALID && maxNs < baseNs)
        {
            final YamlNode at = block.has("max_ejection_time") ? block.value("max_ejection_time") : block.node();
            block.problems().error(at, block.path("max_ejection_time"), "must not be shorter than base_ejection_time, got " +
                describeNs(block, "max_ejection_time", maxNs) + " < " + describeNs(block, "base_ejection_time", baseNs));
        }
        return new ReliabilityConfig((int)consecutive, baseNs, (int)percent, maxNs);
    }

    /**
     * @param signals the {@code signals:} mapping.
     * @return the settings, {@code null} when {@code server_metrics} is absent or after a reported problem.
     */
    static ServerMetricsSettings serverMetrics(final MappingReader signals)
    {
        final MappingReader block = signals.optionalMapping("server_metrics", SERVER_METRICS_KEYS);
        if (block == null)
        {
            return null;
        }
        boolean valid = true;
        final long everyNs = block.optionalDurationNs("every", ServerMetricsSettings.DEFAULT_EVERY_NS);
        if (everyNs == Durations.INVALID)
        {
            valid = false;
        }
        else if (everyNs < ServerMetricsSettings.MIN_EVERY_NS)
        {
            block.problems().error(block.value("every"), block.path("every"),
                "must be at least 50ms (scraping faster loads the servers for no fresher signal), got " +
                describeNs(block, "every", everyNs));
            valid = false;
        }
        final String path = block.optionalString("path", ServerMetricsSettings.DEFAULT_PATH);
        if (path == null)
        {
            valid = false;
        }
        else if (!path.startsWith("/") || path.indexOf('?') >= 0 || path.indexOf('#') >= 0 || hasSpaceOrControl(path))
        {
            block.problems().error(block.value("path"), block.path("path"),
                "expected a URL path starting with / (no query, no spaces), got \"" + Excerpt.value(path) + '"');
            valid = false;
        }
        final long defaultEveryNs = everyNs == Durations.INVALID ? ServerMetricsSettings.DEFAULT_EVERY_NS : everyNs;
        final long timeoutNs = block.optionalDurationNs("timeout", defaultEveryNs / 2);
        final long staleAfterNs = block.optionalDurationNs("stale_after", 4 * defaultEveryNs);
        valid &= timeoutNs != Durations.INVALID && staleAfterNs != Durations.INVALID;
        if (staleAfterNs != Durations.INVALID && everyNs != Durations.INVALID && staleAfterNs < everyNs)
        {
            block.problems().error(block.value("stale_after"), block.path("stale_after"),
                "must be at least every (else every value is stale before the next scrape), got " +
                describeNs(block, "stale_after", staleAfterNs) + " < " + describeNs(block, "every", everyNs));
            valid = false;
        }
        final String word = block.optionalString("when_stale", WhenStale.IGNORE.configName());
        final WhenStale whenStale = word == null ? null : WhenStale.ofConfigName(word);
        if (word != null && whenStale == null)
        {
            block.problems().error(block.value("when_stale"), block.path("when_stale"), "unknown when_stale \"" +
                Excerpt.value(word) + "\": expected ignore or saturated" + NearestName.suggestion(word, WHEN_STALE_WORDS));
        }
        if (!valid || whenStale == null)
        {
            return null;
        }
        return new ServerMetricsSettings(everyNs, path, timeoutNs, staleAfterNs, whenStale);
    }

    private static boolean hasSpaceOrControl(final String text)
    {
        for (int i = 0; i < text.length(); i++)
        {
            if (text.charAt(i) <= ' ' || text.charAt(i) == 0x7f)
            {
                return true;
            }
        }
        return false;
    }

    private static String describeNs(final MappingReader block, final String key, final long ns)
    {
        return block.has(key) && block.value(key) instanceof YamlScalar scalar
            ? scalar.text()
            : ns / 1_000_000L + "ms (default)";
    }
}
