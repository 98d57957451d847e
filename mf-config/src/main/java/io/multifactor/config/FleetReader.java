package io.multifactor.config;

import io.multifactor.config.model.FleetConfig;
import io.multifactor.config.read.Durations;
import io.multifactor.config.read.MappingReader;
import io.multifactor.config.yaml.YamlNode;
import io.multifactor.config.yaml.YamlScalar;

import java.util.List;
import java.util.regex.Pattern;

/**
 * Reads the optional {@code fleet:} block ({@code redis}, {@code cluster}, {@code exchange_every}). A message about
 * {@code redis} never quotes a password: it shows the URL without its user information.
 * <p>
 * This class is stateless and threadsafe.
 */
final class FleetReader
{
    static final List<String> FLEET_KEYS = List.of("redis", "cluster", "exchange_every");

    private static final Pattern CLUSTER = Pattern.compile("[A-Za-z0-9_.:-]{1,64}");

    private FleetReader()
    {
    }

    static FleetConfig read(final MappingReader top)
    {
        final MappingReader fleet = top.optionalMapping("fleet", FLEET_KEYS);
        if (fleet == null)
        {
            return FleetConfig.NONE;
        }
        String redis = null;
        if (fleet.require("redis"))
        {
            final YamlNode node = fleet.value("redis");
            if (node instanceof YamlScalar scalar && isRedisUrl(scalar.text()))
            {
                redis = scalar.text();
            }
            else
            {
                final String shown = node instanceof YamlScalar scalar ? "'" + FleetConfig.redact(scalar.text()) + "'" :
                    "a " + (node == null ? "null" : node.getClass().getSimpleName().replace("Yaml", "").toLowerCase());
                fleet.problems().error(node, fleet.path("redis"),
                    "must be a redis://[:password@]host[:port][/db] or rediss:// URL, got " + shown);
            }
        }
        final String cluster = fleet.optionalString("cluster", FleetConfig.DEFAULT_CLUSTER);
        if (cluster != null && !CLUSTER.matcher(cluster).matches())
        {
            fleet.problems().error(fleet.value("cluster"), fleet.path("cluster"),
                "must be 1 to 64 letters, digits or _.:-, got \"" + cluster + '"');
        }
        final long everyNs = fleet.optionalDurationNs("exchange_every", FleetConfig.DEFAULT_EXCHANGE_EVERY_NS);
        if (everyNs != Durations.INVALID && everyNs < FleetConfig.MIN_EXCHANGE_EVERY_NS)
        {
            fleet.problems().error(fleet.value("exchange_every"), fleet.path("exchange_every"),
                "must be at least 50ms, got " + ((YamlScalar)fleet.value("exchange_every")).text());
        }
        return new FleetConfig(redis, cluster == null ? FleetConfig.DEFAULT_CLUSTER : cluster, everyNs);
    }

    private static boolean isRedisUrl(final String text)
    {
        final int scheme = text.indexOf("://");
        return (text.startsWith("redis://") || text.startsWith("rediss://")) &&
            text.length() > scheme + 3 && !FleetConfig.redact(text).endsWith("://");
    }
}
