package io.multifactor.kernel.scoring;

import io.multifactor.api.DropReason;
import io.multifactor.api.Request;
import io.multifactor.api.Selection;

import java.util.concurrent.ThreadLocalRandom;

/**
 * {@code pick: p2c}, the power of two choices over a scored selection: two distinct survivors are drawn uniformly from
 * the request's generator (the one {@code tie_break: random} draws from; the thread's {@link ThreadLocalRandom}
 * without a request), the higher score wins, equal scores go to the earlier in {@code modelRefs} order. One survivor
 * wins alone. The survivor with the unique lowest score therefore never wins when there are two or more, and survivor
 * {@code i} wins with probability {@code beats(i) / C(s, 2)}, where {@code beats(i)} is the number of survivors it beats.
 * <p>
 * The kernel draws the pair's 64 random bits ({@link #draw}) when a selection starts, before its loops, so that the
 * generator's arithmetic overlaps them instead of waiting for the scores; {@link #pick} scales them to the survivors.
 * <p>
 * This class is stateless and threadsafe. Its methods allocate nothing, take no lock and never throw; a pick makes a
 * pass up to the later of the two drawn survivors when some candidate was dropped.
 */
public final class PowerOfTwoChoices
{
    /** {@link #loser} of a pick that drew fewer than two survivors. */
    public static final int NO_LOSER = -1;

    private PowerOfTwoChoices()
    {
    }

    /**
     * Draws the 64 random bits of one pick: one step of the request's generator ({@link Request#nextBits}), so that a
     * seeded request draws the same pair every time, or without a request of the thread's {@link ThreadLocalRandom}.
     *
     * @param requestOrNull the request whose generator draws, or null.
     * @return the bits for {@link #pick}.
     */
    public static long draw(final Request requestOrNull)
    {
        return requestOrNull != null ? requestOrNull.nextBits() : ThreadLocalRandom.current().nextLong();
    }

    /**
     * Draws two distinct survivors and returns the winner, packed with the loser ({@link #winner}, {@link #loser}):
     * the high half of {@code bits} scaled to the survivors, the low half to the survivors but the first, each by a
     * multiply and a shift (a bias below 2^-32).
     *
     * @param out a selection whose survivors ({@link DropReason#NONE}) carry their scores.
     * @param n candidates of the selection.
     * @param survivors how many of them survived.
     * @param bits the pick's random bits ({@link #draw}).
     * @return the packed pair; winner -1 when there is no survivor.
     */
    public static long pick(final Selection out, final int n, final int survivors, final long bits)
    {
        if (survivors < 2)
        {
            return pack(BaselineKernel.nthSurvivor(out, n, 0), NO_LOSER);
        }
        final int a = (int)(((bits >>> 32) * survivors) >>> 32);
        int b = (int)(((bits & 0xFFFF_FFFFL) * (survivors - 1)) >>> 32);
        // Distinct and uniform over the pairs: the second draw skips the first (plus 1 when b >= a, from the sign of
        // a - b - 1; both lie in [0, 2^31)).
        b += (a - b - 1) >>> 31;
        final int low = Math.min(a, b);
        final int high = Math.max(a, b);
        int first = low;
        int second = high;
        if (survivors != n)
        {
            // The two drawn survivors' positions, with selects rather than branches on the random draw (those were
            // mispredicted about every other call), up to the later of the two. When every candidate survived, a
            // survivor's rank is its position.
            final int[] drops = SelectionWriter.dropReasons(out);
            first = -1;
            second = -1;
            int rank = 0;
            for (int i = 0; i < n && second < 0; i++)
            {
                final int survived = drops[i] == DropReason.NONE ? 1 : 0;
                first = survived != 0 && rank == low ? i : first;
                second = survived != 0 && rank == high ? i : second;
                rank += survived;
            }
        }
        // first is the earlier in modelRefs order: it keeps an equal score. Both survived: their scores are stored.
        final double[] scores = SelectionWriter.scores(out);
        // The winner with arithmetic rather than a branch: the draw makes the comparison a coin flip, which a branch
        // mispredicted about every other call.
        final int swap = (first ^ second) & -greater(scores[second], scores[first]);
        return pack(first ^ swap, second ^ swap);
    }

    /**
     * {@code b > a} as 1 or 0, without a branch: the sign of {@code (a - b) + 0.0}, which is negative exactly when
     * {@code b > a} (two distinct finite doubles never differ by zero, and adding 0.0 turns the -0.0 of
     * {@code -0.0 - 0.0} into 0.0), and 0 when the difference is NaN (either is NaN, or both are the same infinity).
     *
     * @param b the second value.
     * @param a the first value.
     * @return 1 when {@code b > a}, else 0.
     */
    static int greater(final double b, final double a)
    {
        final long difference = Double.doubleToRawLongBits((a - b) + 0.0);
        final long notNaN = ~(0x7FF0_0000_0000_0000L - (difference & Long.MAX_VALUE)) >>> 63;
        return (int)((difference >>> 63) & notNaN);
    }

    /**
     * @param packed a result of {@link #pick}.
     * @return the winner's candidate index, -1 when there was no survivor.
     */
    public static int winner(final long packed)
    {
        return (int)(packed >> 32);
    }

    /**
     * @param packed a result of {@link #pick}.
     * @return the loser's candidate index, {@link #NO_LOSER} when fewer than two survivors were drawn.
     */
    public static int loser(final long packed)
    {
        return (int)packed;
    }

    private static long pack(final int winner, final int loser)
    {
        return (long)winner << 32 | (loser & 0xFFFF_FFFFL);
    }
}
