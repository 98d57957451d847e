package io.multifactor.testkit.reference;

import java.util.ArrayList;
import java.util.List;

/**
 * The plain reference of the ejection cap per decision, written from docs/semantics.md ("Ejection of failing
 * models"): of the n candidates a request leaves in (not excluded, eligible), ejection drops at most
 * {@code max(1, floor(p / 100 * n))}, p the smallest {@code max_ejection_percent} among those n that have
 * {@code reliability} (10 when none has); beyond that the ejected candidates whose ejection ends soonest (then the
 * earlier in {@code modelRefs}) stay candidates. {@link ReferenceScorer} applies the same cap with p = 10 only; this
 * class is the oracle for per-model percents.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class ReferenceEjectionCap
{
    /** p when no candidate left in has {@code reliability}. */
    public static final int DEFAULT_PERCENT = ReferenceScorer.MAX_EJECTION_PERCENT;
    /** A candidate without {@code reliability}, in {@link #stillEjected}'s percents. */
    public static final int NO_RELIABILITY = -1;

    private ReferenceEjectionCap()
    {
    }

    /**
     * @param leftIn per candidate in {@code modelRefs} order: whether the request leaves it in (not excluded, eligible).
     * @param percents per candidate: its {@code max_ejection_percent}, or {@link #NO_RELIABILITY}.
     * @param ejectedMsLeft per candidate: the milliseconds its ejection has left, or a negative value when healthy.
     * @return per candidate, whether it is dropped as ejected (never one the request does not leave in).
     */
    public static boolean[] stillEjected(final boolean[] leftIn, final int[] percents, final long[] ejectedMsLeft)
    {
        final int count = leftIn.length;
        int n = 0;
        int p = Integer.MAX_VALUE;
        final List<Integer> ejected = new ArrayList<>();
        for (int i = 0; i < count; i++)
        {
            if (!leftIn[i])
            {
                continue;
            }
            n++;
            if (percents[i] != NO_RELIABILITY)
            {
                p = Math.min(p, percents[i]);
            }
            if (ejectedMsLeft[i] >= 0)
            {
                ejected.add(i);
            }
        }
        if (p == Integer.MAX_VALUE)
        {
            p = DEFAULT_PERCENT;
        }
        final int cap = Math.max(1, (int)Math.floor(p / 100.0 * n));
        // Soonest end first, then the earlier candidate: the first (size - cap) come back.
        ejected.sort((a, b) -> ejectedMsLeft[a] != ejectedMsLeft[b] ?
            Long.compare(ejectedMsLeft[a], ejectedMsLeft[b]) : Integer.compare(a, b));
        final boolean[] dropped = new boolean[count];
        for (int k = Math.max(0, ejected.size() - cap); k < ejected.size(); k++)
        {
            dropped[ejected.get(k)] = true;
        }
        return dropped;
    }
}
