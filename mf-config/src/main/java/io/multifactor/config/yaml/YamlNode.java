package io.multifactor.config.yaml;

/**
 * One node of a YAML document with the line and column where it starts, so every problem can be reported where it is.
 * <p>
 * Implementations are immutable records and threadsafe.
 */
public sealed interface YamlNode permits YamlMapping, YamlSequence, YamlScalar
{
    /** @return 1-based line where the node starts. */
    int line();

    /** @return 1-based column where the node starts. */
    int column();

    /** @return a short description of the node for messages, such as {@code a list [1, 2]} or
     *     {@code string "fast"}. */
    String describe();
}
