package io.multifactor.bench;

/**
 * One figure to reach from DESIGN section 7: a time per operation and an allocation per operation, either of which may
 * be absent (NaN).
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param maxNsPerOp largest acceptable mean time per operation in nanoseconds, NaN when the row has no time budget.
 * @param maxBytesPerOp largest acceptable allocation per operation in bytes, NaN when the row has no allocation budget.
 */
public record Budget(double maxNsPerOp, double maxBytesPerOp)
{
    /**
     * Allocation below this many bytes per operation counts as none: the GC profiler's normalized rate of an
     * allocation-free benchmark is a small positive number (JMH's own infrastructure, TLAB sampling), never exactly 0.
     */
    public static final double ZERO_BYTES_TOLERANCE = 0.1;

    /** No budget: a baseline, or a case section 7 does not cover. */
    public static final Budget NONE = new Budget(Double.NaN, Double.NaN);

    /** Verdict of a row without any budget. */
    public static final String NO_VERDICT = "-";

    /** @return whether this budget constrains anything. */
    public boolean isSet()
    {
        return !Double.isNaN(maxNsPerOp) || !Double.isNaN(maxBytesPerOp);
    }

    /**
     * @param nsPerOp measured mean time per operation in nanoseconds.
     * @param bytesPerOp measured allocation per operation in bytes, NaN when not measured.
     * @return {@code PASS}, {@code FAIL (time)}, {@code FAIL (alloc)}, {@code FAIL (time, alloc)}, or
     *     {@link #NO_VERDICT} when no budget applies. An allocation budget that was not measured fails.
     */
    public String verdict(final double nsPerOp, final double bytesPerOp)
    {
        if (!isSet())
        {
            return NO_VERDICT;
        }
        final boolean timeOk = Double.isNaN(maxNsPerOp) || nsPerOp <= maxNsPerOp;
        final boolean allocOk = Double.isNaN(maxBytesPerOp) ||
            (bytesPerOp == bytesPerOp && bytesPerOp <= Math.max(maxBytesPerOp, ZERO_BYTES_TOLERANCE));
        if (timeOk && allocOk)
        {
            return "PASS";
        }
        if (!timeOk && !allocOk)
        {
            return "FAIL (time, alloc)";
        }
        return timeOk ? "FAIL (alloc)" : "FAIL (time)";
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
