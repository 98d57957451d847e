package io.multifactor.testkit.reference;

/**
 * The power of two choices ({@code pick: p2c}) written from its definition, for the tests: of the survivors, two
 * distinct ones are drawn uniformly, the higher score wins and an equal score goes to the earlier in
 * {@code modelRefs} order. Over all {@code C(s, 2)} equally likely pairs, survivor {@code i} wins exactly the pairs it
 * makes with a survivor it beats, so its probability is {@code beats(i) / C(s, 2)}; one survivor wins alone.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class ReferencePowerOfTwo
{
    private ReferencePowerOfTwo()
    {
    }

    /**
     * @param scores the survivors' scores, in {@code modelRefs} order.
     * @return each survivor's probability of being picked.
     */
    public static double[] probabilities(final double[] scores)
    {
        final int s = scores.length;
        final double[] p = new double[s];
        if (s == 1)
        {
            p[0] = 1.0;
            return p;
        }
        final double pairs = s * (s - 1) / 2.0;
        for (int i = 0; i < s; i++)
        {
            int beats = 0;
            for (int j = 0; j < s; j++)
            {
                if (j != i && (scores[i] > scores[j] || scores[i] == scores[j] && i < j))
                {
                    beats++;
                }
            }
            p[i] = beats / pairs;
        }
        return p;
    }
}
