package io.multifactor.config.reload;

import io.multifactor.api.ConfigProblem;

import java.util.List;

/**
 * What one reload did: either the new plans are running (with the file's warnings), or the file was refused and the
 * running plans stayed (with every problem of the file).
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param file name of the file as given.
 * @param applied whether the new plans were swapped in.
 * @param problems every problem when refused, in file order; empty when applied.
 * @param warnings warnings of an applied file, in file order.
 */
public record ReloadResult(String file, boolean applied, List<ConfigProblem> problems, List<ConfigProblem> warnings)
{
    /**
     * @param file name of the file as given.
     * @param applied whether the new plans were swapped in.
     * @param problems every problem when refused; copied.
     * @param warnings warnings of an applied file; copied.
     */
    public ReloadResult
    {
        problems = List.copyOf(problems);
        warnings = List.copyOf(warnings);
    }
}
