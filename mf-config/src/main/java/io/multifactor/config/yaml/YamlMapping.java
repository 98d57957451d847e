package io.multifactor.config.yaml;

import java.util.List;

/**
 * A YAML mapping, its entries in file order (duplicate keys kept, so validation can report them).
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param line 1-based line where the mapping starts.
 * @param column 1-based column where the mapping starts.
 * @param entries the entries in file order.
 */
public record YamlMapping(int line, int column, List<YamlEntry> entries) implements YamlNode
{
    /**
     * @param line 1-based line where the mapping starts.
     * @param column 1-based column where the mapping starts.
     * @param entries the entries in file order; copied.
     */
    public YamlMapping
    {
        entries = List.copyOf(entries);
    }

    @Override
    public String describe()
    {
        return "a mapping " + FlowText.of(this);
    }
}
