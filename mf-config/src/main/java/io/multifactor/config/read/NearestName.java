package io.multifactor.config.read;

import java.util.Collection;
import java.util.Locale;

/**
 * Finds, among valid names, the one nearest to a misspelt one, for "did you mean" hints: the smallest edit distance,
 * ignoring case, where a misspelt start of a longer name also counts as near (one more than its distance to that
 * name's prefix), so {@code qualty} suggests {@code quality_score}, not the shorter {@code name}.
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
            final int distance = nearness(a, candidate.toLowerCase(Locale.ROOT));
            if (distance < bestDistance)
            {
                bestDistance = distance;
                best = candidate;
            }
        }
        return best;
    }

    /**
     * @param wrong the misspelt name, lower case.
     * @param valid a valid name, lower case.
     * @return the edit distance, or, when smaller, one more than the distance to a prefix of {@code valid} about as long
     *     as {@code wrong} (a truncated or misspelt start of a long key such as {@code max_tpot} for
     *     {@code max_tpot_ms}).
     */
    static int nearness(final String wrong, final String valid)
    {
        int best = distance(wrong, valid);
        for (int length = Math.max(1, wrong.length() - 1); length <= wrong.length() + 1 && length < valid.length(); length++)
        {
            best = Math.min(best, 1 + distance(wrong, valid.substring(0, length)));
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
