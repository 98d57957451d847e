package io.multifactor.config.yaml;

import java.util.List;

/**
 * A YAML sequence (list), its items in file order.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param line 1-based line where the sequence starts.
 * @param column 1-based column where the sequence starts.
 * @param items the items in file order.
 */
public record YamlSequence(int line, int column, List<YamlNode> items) implements YamlNode
{
    /**
     * @param line 1-based line where the sequence starts.
     * @param column 1-based column where the sequence starts.
     * @param items the items in file order; copied.
     */
    public YamlSequence
    {
        items = List.copyOf(items);
    }

    @Override
    public String describe()
    {
        return "a list " + FlowText.of(this);
    }
}
