package io.multifactor.sim.suite;

import java.util.List;

/**
 * What the suite measured on one scenario: its knee, and per policy and seed the value of every {@link SuiteColumn}.
 * <p>
 * Instances are immutable and threadsafe; the arrays are owned by the result and never written after it is built.
 *
 * @param scenario the scenario.
 * @param knee its knee (round-robin, seed 1), the rate every run used.
 * @param policies the rows, in order.
 * @param values {@code values[policy][seed][column]}, columns by {@link SuiteColumn#ordinal()}.
 */
public record ScenarioResult(Scenario scenario, LoadKnee.Knee knee, List<String> policies, double[][][] values)
{
    /**
     * @param policy a row.
     * @param column a column.
     * @return its smallest value over the seeds (NaN values ignored; NaN when every one is).
     */
    public double min(final int policy, final SuiteColumn column)
    {
        double min = Double.NaN;
        for (final double[] seed : values[policy])
        {
            final double v = seed[column.ordinal()];
            if (!Double.isNaN(v) && (Double.isNaN(min) || v < min))
            {
                min = v;
            }
        }
        return min;
    }

    /**
     * @param policy a row.
     * @param column a column.
     * @return its largest value over the seeds (NaN values ignored; NaN when every one is).
     */
    public double max(final int policy, final SuiteColumn column)
    {
        double max = Double.NaN;
        for (final double[] seed : values[policy])
        {
            final double v = seed[column.ordinal()];
            if (!Double.isNaN(v) && (Double.isNaN(max) || v > max))
            {
                max = v;
            }
        }
        return max;
    }

    /**
     * @param policy a row.
     * @param column a column.
     * @return its mean over the seeds (NaN values ignored; NaN when every one is).
     */
    public double mean(final int policy, final SuiteColumn column)
    {
        double sum = 0.0;
        int n = 0;
        for (final double[] seed : values[policy])
        {
            final double v = seed[column.ordinal()];
            if (!Double.isNaN(v))
            {
                sum += v;
                n++;
            }
        }
        return n == 0 ? Double.NaN : sum / n;
    }

    /**
     * The best of a column: the rows whose mean over the seeds is the best one (higher or lower as the column says).
     *
     * @param policy a row.
     * @param column a column.
     * @return whether that row is (one of) the best of the column; false when the column has no value at all.
     */
    public boolean best(final int policy, final SuiteColumn column)
    {
        final double mine = mean(policy, column);
        if (Double.isNaN(mine))
        {
            return false;
        }
        for (int other = 0; other < policies.size(); other++)
        {
            final double theirs = mean(other, column);
            if (!Double.isNaN(theirs) && (column.higherIsBetter() ? theirs > mine : theirs < mine))
            {
                return false;
            }
        }
        return true;
    }
}
