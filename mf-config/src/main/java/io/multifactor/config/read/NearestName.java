package io.multifactor.config.read;

import java.util.Arrays;
import java.util.Collection;
import java.util.Locale;

/**
 * Finds, among valid names, the one a misspelt name was plausibly meant to be, for "did you mean" hints, or none.
 * <p>
 * Nearness is the edit distance ignoring case (insertions, deletions, substitutions and swaps of two adjacent
 * characters), where a misspelt start of a longer name also counts as near (one more than its distance to that name's
 * prefix), so {@code qualty} suggests {@code quality_score}. A name is suggested only when it is plausibly the one
 * meant: its nearness is at most a third of the longer of the two names, and the two share at least
 * {@value #MIN_SHARED_CHARACTERS} characters, so {@code rules} never suggests {@code name} and {@code version} never
 * suggests {@code decisions}. The cost is capped: names longer than {@value #MAX_COMPARED_LENGTH} characters are not
 * compared, each distance is computed only within the band it may reach, and a {@link SuggestionBudget} caps the work
 * of all the hints of one validation (once it is spent, no further name is suggested).
 * <p>
 * This class is stateless and threadsafe.
 */
public final class NearestName
{
    /** Names longer than this are not compared (no suggestion), so a huge key cannot make validation slow. */
    public static final int MAX_COMPARED_LENGTH = 64;

    /** Fewest characters two names must share before one is suggested for the other. */
    public static final int MIN_SHARED_CHARACTERS = 3;

    private NearestName()
    {
    }

    /**
     * @param wrong the name as written.
     * @param valid the valid names, in preference order for ties.
     * @return the nearest valid name when it is plausibly the one meant, else {@code null}.
     */
    public static String of(final String wrong, final Collection<String> valid)
    {
        return of(wrong, valid, SuggestionBudget.ofDefault());
    }

    /**
     * @param wrong the name as written.
     * @param valid the valid names, in preference order for ties.
     * @param budget the work this hint may take, shared by the hints of one validation.
     * @return the nearest valid name when it is plausibly the one meant (among those compared before the budget was
     *     spent), else {@code null}.
     */
    public static String of(final String wrong, final Collection<String> valid, final SuggestionBudget budget)
    {
        if (wrong.length() > MAX_COMPARED_LENGTH || budget.spent())
        {
            return null;
        }
        final String a = wrong.toLowerCase(Locale.ROOT);
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (final String candidate : valid)
        {
            if (candidate.length() > MAX_COMPARED_LENGTH)
            {
                continue;
            }
            final int limit = Math.min(Math.max(a.length(), candidate.length()) / 3, bestDistance - 1);
            // Too short for even a prefix match within the limit: no table needed.
            if (limit < 0 || candidate.length() < a.length() - limit)
            {
                continue;
            }
            // Lowering the case costs a pass over the name: paid from the budget as well.
            if (!budget.spend(candidate.length()))
            {
                break;
            }
            final String b = candidate.toLowerCase(Locale.ROOT);
            final int distance = nearness(a, b, limit, budget);
            if (distance < 0)
            {
                break;
            }
            if (distance <= limit && sharedCharacters(a, b) >= MIN_SHARED_CHARACTERS)
            {
                bestDistance = distance;
                best = candidate;
            }
        }
        return best;
    }

    /**
     * @param wrong the name as written.
     * @param valid the valid names, in preference order for ties.
     * @return {@code " (did you mean NAME?)"} for a plausible {@link #of nearest} name, else the empty string.
     */
    public static String suggestion(final String wrong, final Collection<String> valid)
    {
        return suggestion(wrong, valid, SuggestionBudget.ofDefault());
    }

    /**
     * @param wrong the name as written.
     * @param valid the valid names, in preference order for ties.
     * @param budget the work this hint may take, shared by the hints of one validation.
     * @return {@code " (did you mean NAME?)"} for a plausible {@link #of nearest} name, else the empty string.
     */
    public static String suggestion(final String wrong, final Collection<String> valid, final SuggestionBudget budget)
    {
        final String nearest = of(wrong, valid, budget);
        return nearest == null ? "" : " (did you mean " + nearest + "?)";
    }

    /**
     * @param wrong the misspelt name, lower case.
     * @param valid a valid name, lower case.
     * @param limit largest nearness of interest.
     * @return the edit distance, or, when smaller, one more than the distance to a prefix of {@code valid} about as long
     *     as {@code wrong} (a truncated or misspelt start of a long key such as {@code max_tpot} for
     *     {@code max_tpot_ms}); any value above {@code limit} means "farther than limit".
     */
    static int nearness(final String wrong, final String valid, final int limit)
    {
        return nearness(wrong, valid, limit, new SuggestionBudget(Long.MAX_VALUE));
    }

    /**
     * As {@link #nearness(String, String, int)}, paid from a budget.
     *
     * @return the nearness, or -1 when the budget could not pay for the comparison.
     */
    private static int nearness(final String wrong, final String valid, final int limit, final SuggestionBudget budget)
    {
        if (!budget.spend(cells(wrong, limit)))
        {
            return -1;
        }
        int best = distance(wrong, valid, limit);
        final int last = Math.min(wrong.length() + 1, valid.length() - 1);
        for (int length = Math.max(1, wrong.length() - 1); length <= last; length++)
        {
            final int prefixLimit = Math.min(limit, best - 1) - 1;
            if (prefixLimit < 0)
            {
                break;
            }
            if (!budget.spend(cells(wrong, prefixLimit)))
            {
                return -1;
            }
            best = Math.min(best, 1 + distance(wrong, valid.substring(0, length), prefixLimit));
        }
        return best;
    }

    // Most cells one banded distance computes: each row of the shorter side, the band on either side of the diagonal.
    private static long cells(final String wrong, final int limit)
    {
        return (long)(wrong.length() + 1) * (2L * limit + 1);
    }

    /**
     * @param wrong the misspelt name, lower case.
     * @param valid a valid name, lower case.
     * @return {@link #nearness(String, String, int)} without a limit.
     */
    static int nearness(final String wrong, final String valid)
    {
        return nearness(wrong, valid, Math.max(wrong.length(), valid.length()));
    }

    /**
     * Edit distance (optimal string alignment: insertions, deletions, substitutions and swaps of two adjacent
     * characters, each counting 1), computed only in the diagonal band that a distance of at most {@code limit} can
     * use, and abandoned as soon as every cell of a row exceeds {@code limit}: the cost is
     * O(min(length) x limit).
     *
     * @param a one string.
     * @param b another.
     * @param limit largest distance of interest, >= 0.
     * @return the distance when it is at most {@code limit}, otherwise {@code limit + 1}.
     * @throws IllegalArgumentException when {@code limit} is negative.
     */
    public static int distance(final String a, final String b, final int limit)
    {
        if (limit < 0)
        {
            throw new IllegalArgumentException("limit must be >= 0, got " + limit);
        }
        final int big = limit + 1;
        if (Math.abs(a.length() - b.length()) > limit)
        {
            return big;
        }
        final int la = a.length();
        final int lb = b.length();
        int[] beforePrevious = new int[lb + 1];
        int[] previous = new int[lb + 1];
        int[] current = new int[lb + 1];
        for (int j = 0; j <= lb; j++)
        {
            previous[j] = j <= limit ? j : big;
        }
        for (int i = 1; i <= la; i++)
        {
            final int from = Math.max(1, i - limit);
            final int to = Math.min(lb, i + limit);
            current[0] = i <= limit ? i : big;
            if (from > 1)
            {
                current[from - 1] = big;
            }
            int rowMin = from == 1 ? current[0] : big;
            final char ca = a.charAt(i - 1);
            for (int j = from; j <= to; j++)
            {
                final char cb = b.charAt(j - 1);
                int value = Math.min(previous[j - 1] + (ca == cb ? 0 : 1), Math.min(previous[j], current[j - 1]) + 1);
                if (i > 1 && j > 1 && ca == b.charAt(j - 2) && a.charAt(i - 2) == cb)
                {
                    value = Math.min(value, beforePrevious[j - 2] + 1);
                }
                value = Math.min(value, big);
                current[j] = value;
                rowMin = Math.min(rowMin, value);
            }
            if (to < lb)
            {
                current[to + 1] = big;
            }
            if (rowMin > limit)
            {
                return big;
            }
            final int[] recycled = beforePrevious;
            beforePrevious = previous;
            previous = current;
            current = recycled;
        }
        return Math.min(previous[lb], big);
    }

    /**
     * @param a one string.
     * @param b another.
     * @return the edit distance of {@link #distance(String, String, int)} without a limit.
     */
    public static int distance(final String a, final String b)
    {
        return distance(a, b, Math.max(a.length(), b.length()));
    }

    /**
     * @param a one string.
     * @param b another.
     * @return how many characters the two have in common, counted with multiplicity, in any order.
     */
    static int sharedCharacters(final String a, final String b)
    {
        final char[] x = a.toCharArray();
        final char[] y = b.toCharArray();
        Arrays.sort(x);
        Arrays.sort(y);
        int shared = 0;
        int i = 0;
        int j = 0;
        while (i < x.length && j < y.length)
        {
            if (x[i] == y[j])
            {
                shared++;
                i++;
                j++;
            }
            else if (x[i] < y[j])
            {
                i++;
            }
            else
            {
                j++;
            }
        }
        return shared;
    }
}
