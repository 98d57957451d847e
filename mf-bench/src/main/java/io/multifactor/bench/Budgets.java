package io.multifactor.bench;

import java.util.Map;

/**
 * The goals of mf-bench/RESULTS.md, keyed by benchmark and parameters.
 * <ul>
 *   <li>select (the engine, and the kernel it contains) with all four ceilings active: 4, 16 and 64 candidates are
 *       judged by their ratio to the hand loop in the same run ({@value #SELECT_HAND_LOOP_RATIO}x at most; the old
 *       absolute goals of 25, 80 and 300 ns are shown as information); every other select case must still allocate
 *       nothing;</li>
 *   <li>one TTFT or TPOT sample: 25 ns; begin + end of one lease: 60 ns; one refresh of one model's window: 10 us;
 *       all allocation-free (refresh in steady state, which is what its benchmark measures).</li>
 * </ul>
 * The baselines (reference, hand loop, the engine with counting off) and the contention group have no budget.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class Budgets
{
    /** {@code select} at 4, 16 and 64 candidates, all ceilings on: at most this many times the hand loop, same run. */
    public static final double SELECT_HAND_LOOP_RATIO = 1.25;

    private static final double ZERO = 0.0;

    private Budgets()
    {
    }

    /**
     * @param benchmark the benchmark's simple name, {@code Class.method} (such as {@code SelectBenchmark.engine}).
     * @param params its JMH parameters.
     * @return the budget that applies, or {@link Budget#NONE}.
     */
    public static Budget of(final String benchmark, final Map<String, String> params)
    {
        switch (benchmark)
        {
            case "SelectBenchmark.engine":
            case "SelectBenchmark.kernel":
                return select(params);
            case "RecordBenchmark.recordTtftMicros":
            case "RecordBenchmark.recordTpotMicros":
                return new Budget(25.0, ZERO);
            case "InflightBenchmark.beginEnd":
                return new Budget(60.0, ZERO);
            case "RefreshBenchmark.refreshOneModel":
                return new Budget(10_000.0, ZERO);
            default:
                return Budget.NONE;
        }
    }

    private static Budget select(final Map<String, String> params)
    {
        if (!"all".equals(params.get("ceilings")))
        {
            return new Budget(Double.NaN, ZERO);
        }
        final String candidates = params.get("candidates");
        if (candidates == null)
        {
            return new Budget(Double.NaN, ZERO);
        }
        switch (candidates)
        {
            case "4":
                return new Budget(Double.NaN, ZERO, SELECT_HAND_LOOP_RATIO, 25.0);
            case "16":
                return new Budget(Double.NaN, ZERO, SELECT_HAND_LOOP_RATIO, 80.0);
            case "64":
                return new Budget(Double.NaN, ZERO, SELECT_HAND_LOOP_RATIO, 300.0);
            default:
                return new Budget(Double.NaN, ZERO);
        }
    }
}
