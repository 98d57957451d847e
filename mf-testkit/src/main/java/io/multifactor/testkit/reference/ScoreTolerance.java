package io.multifactor.testkit.reference;

import io.multifactor.api.Outcome;

import java.util.Map;
import java.util.Objects;

/**
 * How closely two implementations of a selection must agree: the same outcome, drops and inputs; scores and normalized
 * factors within {@link #TOLERANCE}; and the same winner, except that either of two candidates whose expected scores are
 * within {@link #TOLERANCE} of each other is accepted (floating point may order a near tie either way).
 * <p>
 * Scores and normalized factors lie in [0, 1], so the tolerance is relative to that scale: two values agree when they
 * differ by at most {@code TOLERANCE * max(1, |a|, |b|)}. A purely relative test would refuse 0 against 1e-17, which is
 * only rounding.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class ScoreTolerance
{
    /** Largest accepted difference between two scores (or normalized factors) of the same candidate. */
    public static final double TOLERANCE = 1e-9;

    private ScoreTolerance()
    {
    }

    /**
     * @param a a score.
     * @param b another.
     * @return whether they agree within {@link #TOLERANCE}.
     */
    public static boolean close(final double a, final double b)
    {
        return Math.abs(a - b) <= TOLERANCE * Math.max(1.0, Math.max(Math.abs(a), Math.abs(b)));
    }

    /**
     * Compares a result with the expected one.
     *
     * @param actual the result of the implementation under test.
     * @param expected the reference's result.
     * @return {@code null} when they agree, else a sentence naming the first difference.
     */
    public static String difference(final ReferenceResult actual, final ReferenceResult expected)
    {
        if (!actual.decision().equals(expected.decision()) || actual.outcome() != expected.outcome())
        {
            return "outcome " + actual.outcomeLabel() + " of " + actual.decision() + ", expected " +
                expected.outcomeLabel() + " of " + expected.decision();
        }
        if (actual.candidates().size() != expected.candidates().size())
        {
            return actual.candidates().size() + " candidates, expected " + expected.candidates().size();
        }
        for (final Map.Entry<String, Double> weight : expected.weights().entrySet())
        {
            final Double other = actual.weights().get(weight.getKey());
            if (other == null || !close(other, weight.getValue()))
            {
                return "weight of " + weight.getKey() + " " + other + ", expected " + weight.getValue();
            }
        }
        for (int i = 0; i < expected.candidates().size(); i++)
        {
            final String problem = difference(actual.candidates().get(i), expected.candidates().get(i));
            if (problem != null)
            {
                return "candidate " + i + " (" + expected.candidates().get(i).model() + "): " + problem;
            }
        }
        if (actual.selectedIndex() != expected.selectedIndex() && !nearTie(actual.selectedIndex(), expected))
        {
            return "selected " + actual.selectedModel() + " (index " + actual.selectedIndex() + "), expected " +
                expected.selectedModel() + " (index " + expected.selectedIndex() + ")";
        }
        if (actual.selectedIndex() >= 0 &&
            !Objects.equals(actual.selectedModel(), actual.candidates().get(actual.selectedIndex()).model()))
        {
            return "selected model " + actual.selectedModel() + " is not the candidate at " + actual.selectedIndex();
        }
        return null;
    }

    /**
     * @param actual the result of the implementation under test.
     * @param expected the reference's result.
     * @throws AssertionError naming the first difference, with both results.
     */
    public static void assertAgree(final ReferenceResult actual, final ReferenceResult expected)
    {
        final String problem = difference(actual, expected);
        if (problem != null)
        {
            throw new AssertionError(problem + "\n  actual:   " + actual + "\n  expected: " + expected);
        }
    }

    private static boolean nearTie(final int chosen, final ReferenceResult expected)
    {
        if (expected.outcome() != Outcome.SCORED || chosen < 0 || chosen >= expected.candidates().size())
        {
            return false;
        }
        final Double chosenScore = expected.candidates().get(chosen).score();
        return chosenScore != null && close(chosenScore, expected.selectedScore());
    }

    private static String difference(final ReferenceCandidate actual, final ReferenceCandidate expected)
    {
        if (!actual.model().equals(expected.model()) || actual.dropReason() != expected.dropReason())
        {
            return actual.model() + " dropped " + actual.dropLabel() + ", expected " + expected.model() + " dropped " +
                expected.dropLabel();
        }
        if (!Objects.equals(actual.quality(), expected.quality()) || !Objects.equals(actual.tpotMs(), expected.tpotMs()) ||
            !Objects.equals(actual.ttftMs(), expected.ttftMs()) ||
            !Objects.equals(actual.costPer1M(), expected.costPer1M()) || actual.inflight() != expected.inflight())
        {
            return "signals " + actual + ", expected " + expected;
        }
        if ((actual.score() == null) != (expected.score() == null) ||
            (actual.score() != null && !close(actual.score(), expected.score())))
        {
            return "score " + actual.score() + ", expected " + expected.score();
        }
        if (!actual.normalized().keySet().equals(expected.normalized().keySet()))
        {
            return "normalized factors " + actual.normalized() + ", expected " + expected.normalized();
        }
        for (final Map.Entry<String, Double> factor : expected.normalized().entrySet())
        {
            if (!close(actual.normalized().get(factor.getKey()), factor.getValue()))
            {
                return "normalized " + factor.getKey() + " " + actual.normalized().get(factor.getKey()) + ", expected " +
                    factor.getValue();
            }
        }
        return null;
    }
}
