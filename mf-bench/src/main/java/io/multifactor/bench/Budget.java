package io.multifactor.bench;

/**
 * One figure to reach: a time per operation, a ratio to the hand-written loop measured in the same run, and an
 * allocation per operation, any of which may be absent (NaN), plus an absolute time shown as information only.
 * <p>
 * On a shared, noisy machine absolute times move by 2x from run to run while ratios measured in the same run hold, so
 * {@code select} is judged by its ratio to the hand loop; its absolute goal is printed beside it, not judged.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param maxNsPerOp largest acceptable mean time per operation in nanoseconds, NaN when the row has no time budget.
 * @param maxBytesPerOp largest acceptable allocation per operation in bytes, NaN when the row has no allocation budget.
 * @param maxHandLoopRatio largest acceptable time divided by the hand loop's in the same run, NaN when none.
 * @param infoNsPerOp an absolute goal shown for information and not judged, NaN when none.
 */
public record Budget(double maxNsPerOp, double maxBytesPerOp, double maxHandLoopRatio, double infoNsPerOp)
{
    /**
     * Allocation below this many bytes per operation counts as none whatever the rate: the GC profiler's normalized
     * figure for allocation-free code is a small positive number, never exactly 0.
     */
    public static final double ZERO_BYTES_TOLERANCE = 0.1;

    /**
     * Allocation slower than this many bytes per second also counts as none. JMH's own bookkeeping allocates a few
     * kilobytes per iteration whatever the benchmark does, which the GC profiler divides by the operations of that
     * iteration: about 0.03 B/op for a 2 us operation and 1 B/op for a 70 us one, but always near 14 KB/s. An operation
     * that really allocates allocates at least one 16-byte object: at 50 us per operation that is already 320 KB/s.
     */
    public static final double ZERO_BYTES_PER_SECOND_TOLERANCE = 64.0 * 1024.0;

    /** No budget: a baseline, or a case section 7 does not cover. */
    public static final Budget NONE = new Budget(Double.NaN, Double.NaN);

    /**
     * A time and allocation budget, no ratio.
     *
     * @param maxNsPerOp largest acceptable mean time per operation in nanoseconds, NaN when none.
     * @param maxBytesPerOp largest acceptable allocation per operation in bytes, NaN when none.
     */
    public Budget(final double maxNsPerOp, final double maxBytesPerOp)
    {
        this(maxNsPerOp, maxBytesPerOp, Double.NaN, Double.NaN);
    }

    /** Verdict of a row without any budget. */
    public static final String NO_VERDICT = "-";

    /** Verdict of a row whose budgets a run that cannot judge time leaves unjudged. */
    public static final String NOT_JUDGED = "not judged (time)";

    /** @return whether this budget constrains anything. */
    public boolean isSet()
    {
        return !Double.isNaN(maxNsPerOp) || !Double.isNaN(maxBytesPerOp) || !Double.isNaN(maxHandLoopRatio);
    }

    /**
     * The verdict of a row without a ratio budget.
     *
     * @param nsPerOp measured mean time per operation in nanoseconds.
     * @param bytesPerOp measured allocation per operation in bytes, NaN when not measured.
     * @return as {@link #verdict(double, double, double)} with no hand-loop ratio.
     */
    public String verdict(final double nsPerOp, final double bytesPerOp)
    {
        return verdict(nsPerOp, bytesPerOp, Double.NaN);
    }

    /**
     * @param nsPerOp measured mean time per operation in nanoseconds.
     * @param bytesPerOp measured allocation per operation in bytes, NaN when not measured.
     * @param handLoopRatio this row's time divided by the hand loop's in the same run, NaN when the run has no hand loop.
     * @return {@code PASS}, or {@code FAIL (...)} naming what failed ({@code time}, {@code ratio}, {@code alloc}), or
     *     {@link #NO_VERDICT} when no budget applies. An allocation budget that was not measured fails, and so does a
     *     ratio budget without a hand loop in the run; a budget of 0 B accepts what {@link #ZERO_BYTES_TOLERANCE} and
     *     {@link #ZERO_BYTES_PER_SECOND_TOLERANCE} ascribe to JMH.
     */
    public String verdict(final double nsPerOp, final double bytesPerOp, final double handLoopRatio)
    {
        return verdict(nsPerOp, bytesPerOp, handLoopRatio, true);
    }

    /**
     * @param nsPerOp measured mean time per operation in nanoseconds.
     * @param bytesPerOp measured allocation per operation in bytes, NaN when not measured.
     * @param handLoopRatio this row's time divided by the hand loop's in the same run, NaN when the run has no hand loop.
     * @param judgeTime whether the run can judge time and ratio budgets (3 forks of long iterations on a quiet machine);
     *     when not (the quick profile), only allocation is judged: {@code PASS (alloc only)}, with
     *     {@code ; time over, not judged} or {@code ; ratio over, not judged} when the figure is over its budget, or
     *     {@code FAIL (alloc)}; a row whose only budget is a time gets {@link #NOT_JUDGED}.
     * @return as {@link #verdict(double, double, double)} when {@code judgeTime}.
     */
    public String verdict(final double nsPerOp, final double bytesPerOp, final double handLoopRatio,
        final boolean judgeTime)
    {
        if (!isSet())
        {
            return NO_VERDICT;
        }
        final boolean timeOk = Double.isNaN(maxNsPerOp) || nsPerOp <= maxNsPerOp;
        final boolean ratioOk = Double.isNaN(maxHandLoopRatio) || handLoopRatio <= maxHandLoopRatio;
        final boolean allocOk = Double.isNaN(maxBytesPerOp) ||
            (bytesPerOp == bytesPerOp && (bytesPerOp <= Math.max(maxBytesPerOp, ZERO_BYTES_TOLERANCE) ||
                maxBytesPerOp == 0.0 && bytesPerOp * 1e9 / nsPerOp < ZERO_BYTES_PER_SECOND_TOLERANCE));
        if (!judgeTime)
        {
            if (Double.isNaN(maxBytesPerOp))
            {
                return NOT_JUDGED;
            }
            if (!allocOk)
            {
                return "FAIL (alloc)";
            }
            return "PASS (alloc only" + (timeOk ? "" : "; time over, not judged") +
                (ratioOk ? "" : "; ratio over, not judged") + ')';
        }
        if (timeOk && ratioOk && allocOk)
        {
            return "PASS";
        }
        final StringBuilder failed = new StringBuilder("FAIL (");
        if (!timeOk)
        {
            failed.append("time");
        }
        if (!ratioOk)
        {
            failed.append(failed.length() > 6 ? ", " : "").append("ratio");
        }
        if (!allocOk)
        {
            failed.append(failed.length() > 6 ? ", " : "").append("alloc");
        }
        return failed.append(')').toString();
    }

    /** @return the budget as printed in the table, such as {@code <=25 ns, 0 B}. */
    public String label()
    {
        if (!isSet())
        {
            return "-";
        }
        final StringBuilder out = new StringBuilder();
        if (!Double.isNaN(maxNsPerOp))
        {
            out.append("<=").append(ReportTable.formatNs(maxNsPerOp));
        }
        if (!Double.isNaN(maxHandLoopRatio))
        {
            out.append("<=").append(ReportTable.formatRatio(maxHandLoopRatio)).append("x hand loop");
            if (!Double.isNaN(infoNsPerOp))
            {
                out.append(" (").append(ReportTable.formatNs(infoNsPerOp)).append(": info)");
            }
        }
        if (!Double.isNaN(maxBytesPerOp))
        {
            if (out.length() > 0)
            {
                out.append(", ");
            }
            out.append(ReportTable.formatBytes(maxBytesPerOp));
        }
        return out.toString();
    }
}
