package io.multifactor.config.read;

import io.multifactor.config.yaml.Excerpt;

import java.util.Collection;

/**
 * The end of a message about an unknown name: the nearest defined name when it is plausibly a typo
 * ({@code " (did you mean economy-model?)"}), otherwise the defined names themselves, so that a user who guessed a
 * name entirely wrong still learns what to write ({@code " (the configuration's models: a, b, c)"}). The list is
 * bounded: at most {@value #MAX_LISTED} names and about {@value #MAX_LIST_CHARS} characters, then how many more there
 * are, so a message stays short whatever the configuration holds.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class NameHint
{
    /** Most names listed. */
    public static final int MAX_LISTED = 10;

    /** Characters of names listed, about: the list stops at the first name that would pass it. */
    public static final int MAX_LIST_CHARS = 160;

    private NameHint()
    {
    }

    /**
     * @param wrong the name as written.
     * @param valid the defined names, in the order to suggest and list them.
     * @param kind what they name, in the plural: {@code models}, {@code decisions}.
     * @return {@code " (did you mean NAME?)"}, {@code " (the configuration's KIND: a, b)"},
     *     {@code " (the configuration's 40 KIND: a, b, ... and 38 more)"}, or {@code " (the configuration has no KIND)"}.
     */
    public static String of(final String wrong, final Collection<String> valid, final String kind)
    {
        final String nearest = NearestName.of(wrong, valid);
        if (nearest != null)
        {
            return " (did you mean " + nearest + "?)";
        }
        return " (" + listed(valid, kind) + ')';
    }

    /**
     * @param valid the defined names, in the order to list them.
     * @param kind what they name, in the plural.
     * @return {@code "the configuration's KIND: a, b"}, with a count and {@code "... and N more"} when not all fit, or
     *     {@code "the configuration has no KIND"}.
     */
    public static String listed(final Collection<String> valid, final String kind)
    {
        if (valid.isEmpty())
        {
            return "the configuration has no " + kind;
        }
        final StringBuilder names = new StringBuilder(MAX_LIST_CHARS + 100);
        int listed = 0;
        for (final String name : valid)
        {
            final String shown = Excerpt.value(name);
            if (listed == MAX_LISTED || (listed > 0 && names.length() + shown.length() > MAX_LIST_CHARS))
            {
                break;
            }
            names.append(listed == 0 ? "" : ", ").append(shown);
            listed++;
        }
        final int more = valid.size() - listed;
        return more == 0 ? "the configuration's " + kind + ": " + names :
            "the configuration's " + valid.size() + ' ' + kind + ": " + names + ", ... and " + more + " more";
    }
}
