package io.multifactor.tools;

import io.multifactor.api.ConfigProblem;
import io.multifactor.api.InvalidConfigurationException;

import java.io.PrintWriter;

/**
 * Prints refused input the same way for every subcommand ({@code validate}, {@code explain}, {@code simulate}): one located problem per line on stderr, then a count.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class Problems
{
    private Problems()
    {
    }

    /**
     * Prints every problem, located, then {@code FILE: refused, N problems}.
     *
     * @param err standard error.
     * @param file the file that was refused.
     * @param ex its problems.
     * @return {@link ExitCodes#INVALID_INPUT}.
     */
    public static int report(final PrintWriter err, final String file, final InvalidConfigurationException ex)
    {
        for (final ConfigProblem problem : ex.problems())
        {
            err.println(problem);
        }
        final int count = ex.problems().size();
        err.println(file + ": refused, " + count + (count == 1 ? " problem" : " problems"));
        err.flush();
        return ExitCodes.INVALID_INPUT;
    }
}
