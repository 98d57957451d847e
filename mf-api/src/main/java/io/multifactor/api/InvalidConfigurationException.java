package io.multifactor.api;

import java.util.List;

/**
 * A configuration was refused. It carries every problem found in the file, not just the first, and nothing that was
 * running has changed.
 * <p>
 * Instances are immutable and threadsafe.
 */
public final class InvalidConfigurationException extends Exception
{
    private static final long serialVersionUID = 1L;

    private final transient List<ConfigProblem> problems;

    /**
     * @param problems every problem found, in file order; at least one.
     */
    public InvalidConfigurationException(final List<ConfigProblem> problems)
    {
        super(render(problems));
        this.problems = List.copyOf(problems);
    }

    /** @return every problem found, in file order. */
    public List<ConfigProblem> problems()
    {
        return problems;
    }

    private static String render(final List<ConfigProblem> problems)
    {
        final StringBuilder sb = new StringBuilder();
        for (final ConfigProblem problem : problems)
        {
            if (sb.length() > 0)
            {
                sb.append('\n');
            }
            sb.append(problem);
        }
        return sb.toString();
    }
}
