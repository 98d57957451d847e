package io.multifactor.bench.verdict;

/**
 * One goal of the release set, at one size: a measured row, what it is compared with, and the bound it must stay
 * within.
 * <ul>
 *   <li>{@link Kind#RATIO}: mean(measured) / mean(baseline) at most {@code limit};</li>
 *   <li>{@link Kind#DIFFERENCE}: mean(measured) - mean(baseline) at most {@code limit} ns;</li>
 *   <li>{@link Kind#ABSOLUTE}: mean(measured) at most {@code limit} ns (no baseline).</li>
 * </ul>
 * A goal that does not {@link #decides() decide} is printed as information (an absolute budget, or a row kept beside
 * the deciding one); only ratios and differences decide.
 * <p>
 * Instances are immutable and threadsafe.
 */
public final class Goal
{
    /** How the measured row is compared. */
    public enum Kind
    {
        /** A ratio of two rows' means. */
        RATIO,
        /** A difference of two rows' means, in ns. */
        DIFFERENCE,
        /** One row's mean, in ns. */
        ABSOLUTE
    }

    private final String title;
    private final Kind kind;
    private final String measured;
    private final String baseline;
    private final double limit;
    private final boolean decides;

    private Goal(
        final String title, final Kind kind, final String measured, final String baseline, final double limit,
        final boolean decides)
    {
        this.title = title;
        this.kind = kind;
        this.measured = measured;
        this.baseline = baseline;
        this.limit = limit;
        this.decides = decides;
    }

    /**
     * @param title what the goal says, with its size.
     * @param measured the measured row: {@code Class.method} and, after a space, its parameters.
     * @param baseline the baseline row, written the same way.
     * @param limit the largest ratio that meets the goal.
     * @param decides whether it decides a goal (else information).
     * @return the goal.
     */
    public static Goal ratio(
        final String title, final String measured, final String baseline, final double limit, final boolean decides)
    {
        return new Goal(title, Kind.RATIO, measured, baseline, limit, decides);
    }

    /**
     * @param title what the goal says, with its size.
     * @param measured the measured row.
     * @param baseline the baseline row.
     * @param limitNs the largest difference, ns, that meets the goal.
     * @return a deciding goal.
     */
    public static Goal difference(final String title, final String measured, final String baseline, final double limitNs)
    {
        return new Goal(title, Kind.DIFFERENCE, measured, baseline, limitNs, true);
    }

    /**
     * @param title what the budget says.
     * @param measured the measured row.
     * @param limitNs the budget, ns.
     * @return an information goal (absolute figures move with the machine).
     */
    public static Goal absolute(final String title, final String measured, final double limitNs)
    {
        return new Goal(title, Kind.ABSOLUTE, measured, "", limitNs, false);
    }

    /**
     * @return what the goal says, with its size.
     */
    public String title()
    {
        return title;
    }

    /**
     * @return how the measured row is compared.
     */
    public Kind kind()
    {
        return kind;
    }

    /**
     * @return the measured row, {@code Class.method} and its parameters.
     */
    public String measured()
    {
        return measured;
    }

    /**
     * @return the baseline row, or empty for an absolute budget.
     */
    public String baseline()
    {
        return baseline;
    }

    /**
     * @return the bound: a ratio, or ns.
     */
    public double limit()
    {
        return limit;
    }

    /**
     * @return whether the goal decides (else it is information).
     */
    public boolean decides()
    {
        return decides;
    }
}
