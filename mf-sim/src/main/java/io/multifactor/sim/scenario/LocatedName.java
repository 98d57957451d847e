package io.multifactor.sim.scenario;

/**
 * A name read from a scenario file and where it was written, so a name the configuration does not know can be reported
 * at its place.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param name the name.
 * @param line 1-based line.
 * @param column 1-based column.
 * @param path its path in the file, such as {@code exclude[0]}.
 */
public record LocatedName(String name, int line, int column, String path)
{
}
