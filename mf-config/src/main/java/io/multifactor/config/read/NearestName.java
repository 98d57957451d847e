package io.multifactor.config.read;

import java.util.Collection;
import java.util.Locale;

/**
 * Finds, among valid names, the one nearest to a misspelt one (smallest edit distance, ignoring case), for "did you
 * mean" hints.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class NearestName
{
    private NearestName()
    {
    }

    /**
     * @param wrong the name as written.
     * @param valid the valid names, in preference order for ties.
     * @return the nearest valid name, or {@code null} when there is none.
     */
    public static String of(final String wrong, final Collection<String> valid)
    {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        final String a = wrong.toLowerCase(Locale.ROOT);
        for (final String candidate : valid)
        {
            final int distance = distance(a, candidate.toLowerCase(Locale.ROOT));
            if (distance < bestDistance)
            {
                bestDistance = distance;
                best = candidate;
            }
        }
        return best;
    }

    /**
     * Levenshtein distance.
     *
     * @param a one string.
     * @param b another.
     * @return the number of single-character insertions, deletions and substitutions from {@code a} to {@code b}.
     */
    public static int distance(final String a, final String b)
    {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++)
        {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++)
        {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++)
            {
                final int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            final int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
