package io.multifactor.config.read;

import io.multifactor.api.ConfigProblem;
import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.config.yaml.Excerpt;
import io.multifactor.config.yaml.YamlNode;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * Collects the errors and warnings found in one file, each located, so that a file is reported whole, not one problem
 * at a time.
 * <p>
 * This class is not threadsafe: one validation fills it on one thread.
 */
public final class Problems
{
    private static final Comparator<ConfigProblem> FILE_ORDER =
        Comparator.comparingInt(ConfigProblem::line).thenComparingInt(ConfigProblem::column);

    private final String file;
    private final List<ConfigProblem> errors = new ArrayList<>();
    private final List<ConfigProblem> warnings = new ArrayList<>();
    private final SuggestionBudget suggestions = SuggestionBudget.ofDefault();

    /**
     * @param file name of the file as given by the user, printed first in every problem.
     */
    public Problems(final String file)
    {
        this.file = file;
    }

    /** @return name of the file. */
    public String file()
    {
        return file;
    }

    /**
     * Records an error located at a node.
     *
     * @param at the offending node.
     * @param path its path, such as {@code decisions[1].modelRefs}.
     * @param message what is wrong, naming the value.
     */
    public void error(final YamlNode at, final String path, final String message)
    {
        error(at.line(), at.column(), path, message);
    }

    /**
     * Records an error.
     *
     * @param line 1-based line.
     * @param column 1-based column.
     * @param path path of the offending node.
     * @param message what is wrong, naming the value.
     */
    public void error(final int line, final int column, final String path, final String message)
    {
        errors.add(new ConfigProblem(file, line, column, Excerpt.path(path), Excerpt.message(message)));
    }

    /**
     * Records a warning: the file is accepted, but something in it is probably not what its author meant.
     *
     * @param at the node concerned.
     * @param path its path.
     * @param message what was done about it.
     */
    public void warning(final YamlNode at, final String path, final String message)
    {
        warnings.add(new ConfigProblem(file, at.line(), at.column(), Excerpt.path(path), Excerpt.message(message)));
    }

    /**
     * A "did you mean" hint for a name, paid from this validation's {@link SuggestionBudget}, so that a file full of
     * unknown names is still validated quickly (the names beyond the budget get no hint).
     *
     * @param wrong the name as written.
     * @param valid the valid names, in preference order for ties.
     * @return {@code " (did you mean NAME?)"} or the empty string.
     */
    public String suggestion(final String wrong, final Collection<String> valid)
    {
        return NearestName.suggestion(wrong, valid, suggestions);
    }

    /**
     * As {@link NameHint#of}, with the nearest name paid from this validation's suggestion budget.
     *
     * @param wrong the name as written.
     * @param valid the defined names, in the order to suggest and list them.
     * @param kind what they name, in the plural: {@code models}, {@code decisions}.
     * @return {@code " (did you mean NAME?)"} when a plausible name is found within the budget, else the list of the
     *     defined names as {@link NameHint#listed} gives it, in parentheses.
     */
    public String hint(final String wrong, final Collection<String> valid, final String kind)
    {
        final String nearest = suggestion(wrong, valid);
        return nearest.isEmpty() ? " (" + NameHint.listed(valid, kind) + ')' : nearest;
    }

    /** @return whether an error was recorded. */
    public boolean hasErrors()
    {
        return !errors.isEmpty();
    }

    /** @return the errors in file order. */
    public List<ConfigProblem> errors()
    {
        final List<ConfigProblem> sorted = new ArrayList<>(errors);
        sorted.sort(FILE_ORDER);
        return List.copyOf(sorted);
    }

    /** @return the warnings in file order. */
    public List<ConfigProblem> warnings()
    {
        final List<ConfigProblem> sorted = new ArrayList<>(warnings);
        sorted.sort(FILE_ORDER);
        return List.copyOf(sorted);
    }

    /**
     * @throws InvalidConfigurationException carrying every error, when there is at least one.
     */
    public void throwIfErrors() throws InvalidConfigurationException
    {
        if (!errors.isEmpty())
        {
            throw new InvalidConfigurationException(errors());
        }
    }
}
