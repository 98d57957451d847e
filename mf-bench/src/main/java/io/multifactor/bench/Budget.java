package io.multifactor.bench;

/**
 * One figure to reach (the goals of mf-bench/RESULTS.md): a time per operation and an allocation per operation, either of which may
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
     *     {@link #NO_VERDICT} when no budget applies. An allocation budget that was not measured fails; a budget of
     *     0 B accepts what {@link #ZERO_BYTES_TOLERANCE} and {@link #ZERO_BYTES_PER_SECOND_TOLERANCE} ascribe to JMH.
     */
    public String verdict(final double nsPerOp, final double bytesPerOp)
    {
        if (!isSet())
        {
            return NO_VERDICT;
        }
        final boolean timeOk = Double.isNaN(maxNsPerOp) || nsPerOp <= maxNsPerOp;
        final boolean allocOk = Double.isNaN(maxBytesPerOp) ||
            (bytesPerOp == bytesPerOp && (bytesPerOp <= Math.max(maxBytesPerOp, ZERO_BYTES_TOLERANCE) ||
                maxBytesPerOp == 0.0 && bytesPerOp * 1e9 / nsPerOp < ZERO_BYTES_PER_SECOND_TOLERANCE));
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
