package io.multifactor.api;

/**
 * One problem found in a configuration file, with where it is: {@code FILE:LINE:COLUMN: PATH: message}.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param file name of the file as given by the user.
 * @param line 1-based line, or 0 when unknown.
 * @param column 1-based column, or 0 when unknown.
 * @param path path of the offending node, such as {@code decisions[1].algorithm.multi_factor.slo.max_tpot_ms}.
 * @param message what is wrong, naming the offending value.
 */
public record ConfigProblem(String file, int line, int column, String path, String message)
{
    /**
     * @return the located message, {@code FILE:LINE:COLUMN: PATH: message}; a problem of the whole file (line 0, such as
     *     a missing or too large file) reads {@code FILE: message}.
     */
    @Override
    public String toString()
    {
        if (line <= 0)
        {
            return file + ": " + (path.isEmpty() ? "" : path + ": ") + message;
        }
        return file + ':' + line + ':' + column + ": " + (path.isEmpty() ? "<root>" : path) + ": " + message;
    }
}
