package io.multifactor.config.yaml;

/**
 * One {@code key: value} pair of a mapping, with the location of the key itself.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param key the key as written.
 * @param keyLine 1-based line of the key.
 * @param keyColumn 1-based column of the key.
 * @param value the value node.
 */
public record YamlEntry(String key, int keyLine, int keyColumn, YamlNode value)
{
}
