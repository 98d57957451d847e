package io.multifactor.kernel.engine;

import io.multifactor.api.Handles;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.Plans;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The messages of {@link MultiFactorEngine#requireDecisionId} and {@link MultiFactorEngine#requireModelId}: an unknown
 * name, the known name nearest to it (edit distance, ignoring case) and the known names. Off the hot path: it allocates.
 * <p>
 * This class is stateless and threadsafe.
 */
final class KnownNames
{
    /** At most this many known names are listed in a message. */
    static final int LISTED = 10;

    private KnownNames()
    {
    }

    static List<String> decisions(final Plans plans)
    {
        final List<String> names = new ArrayList<>();
        for (int id = 0; id < plans.decisionCapacity(); id++)
        {
            final DecisionPlan plan = plans.decision(id);
            if (plan != null)
            {
                names.add(plan.name());
            }
        }
        return names;
    }

    static List<String> models(final Plans plans)
    {
        final List<String> names = new ArrayList<>();
        for (int id = 0; id < plans.modelCapacity(); id++)
        {
            if (plans.hasModel(id))
            {
                names.add(plans.modelName(id));
            }
        }
        return names;
    }

    /**
     * @param plans the current plans.
     * @param name a decision name.
     * @return its handle.
     * @throws IllegalArgumentException naming the unknown name, the nearest known decision and the known decisions.
     */
    static int requireDecision(final Plans plans, final String name)
    {
        final int id = plans.decisionId(name);
        if (id == Handles.NONE)
        {
            throw new IllegalArgumentException(unknown("decision", name, decisions(plans)));
        }
        return id;
    }

    /**
     * @param plans the current plans.
     * @param name a model name.
     * @return its handle.
     * @throws IllegalArgumentException naming the unknown name, the nearest known model and the known models.
     */
    static int requireModel(final Plans plans, final String name)
    {
        final int id = plans.modelId(name);
        if (id == Handles.NONE)
        {
            throw new IllegalArgumentException(unknown("model", name, models(plans)));
        }
        return id;
    }

    /**
     * @param kind {@code decision} or {@code model}.
     * @param wanted the unknown name.
     * @param known the names of the current plans.
     * @return for example {@code unknown decision "quality_polcy" (nearest known: "quality_policy"; known decisions:
     *     fast_chat, quality_policy)}.
     */
    static String unknown(final String kind, final String wanted, final List<String> known)
    {
        final StringBuilder sb = new StringBuilder("unknown ").append(kind).append(" \"").append(wanted).append('"');
        if (known.isEmpty())
        {
            return sb.append(" (the configuration has no ").append(kind).append(')').toString();
        }
        sb.append(" (nearest known: \"").append(nearest(wanted, known)).append("\"; known ").append(kind).append("s: ");
        for (int i = 0; i < Math.min(LISTED, known.size()); i++)
        {
            sb.append(i == 0 ? "" : ", ").append(known.get(i));
        }
        if (known.size() > LISTED)
        {
            sb.append(", ... ").append(known.size() - LISTED).append(" more");
        }
        return sb.append(')').toString();
    }

    /**
     * @param wanted a name.
     * @param known non-empty candidates.
     * @return the candidate at the smallest edit distance from {@code wanted}, ignoring case; the first on a tie.
     */
    static String nearest(final String wanted, final List<String> known)
    {
        final String w = wanted.toLowerCase(Locale.ROOT);
        String best = known.get(0);
        int bestDistance = Integer.MAX_VALUE;
        for (final String name : known)
        {
            final int d = distance(w, name.toLowerCase(Locale.ROOT));
            if (d < bestDistance)
            {
                best = name;
                bestDistance = d;
            }
        }
        return best;
    }

    /** Levenshtein distance: insertions, deletions and substitutions each cost 1. */
    static int distance(final String a, final String b)
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
                current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
            }
            final int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
