package io.multifactor.bench;

import io.multifactor.api.Factor;

/**
 * What one selection stores, as plain arrays the benchmark owns: the fields a {@code Selection} holds after a call
 * (its header; per candidate the drop reason, TPOT, TTFT and ranked latency in milliseconds, load, in-flight count and
 * score; the bounds of each factor), so that {@link HandLoopSelector#selectStoring} makes the stores the result
 * contract asks of the kernel, and nothing else. A control for the benchmarks: what a minimal loop costs once it must
 * leave the result a caller and {@code explain} read.
 * <p>
 * This class is not threadsafe: one benchmark thread fills it and reads it.
 */
public final class HandResult
{
    int decisionId;
    int candidateCount;
    int outcome;
    int selectedIndex;
    int runnerUp;
    long lease;
    final int[] dropReasons;
    final double[] tpotMs;
    final double[] ttftMs;
    final double[] latencyMs;
    final double[] load;
    final long[] inflight;
    final double[] scores;
    final double[] boundMin = new double[Factor.COUNT];
    final double[] boundMax = new double[Factor.COUNT];

    /**
     * @param capacity candidates it holds.
     */
    public HandResult(final int capacity)
    {
        dropReasons = new int[capacity];
        tpotMs = new double[capacity];
        ttftMs = new double[capacity];
        latencyMs = new double[capacity];
        load = new double[capacity];
        inflight = new long[capacity];
        scores = new double[capacity];
    }

    /** @return the chosen position, -1 when none. */
    public int selectedIndex()
    {
        return selectedIndex;
    }
}
