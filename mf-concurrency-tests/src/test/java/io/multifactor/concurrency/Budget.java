package io.multifactor.concurrency;

/**
 * How much Lincheck explores per test: enough scenarios to reach the rare interleavings of these small protocols,
 * little enough that the whole module stays within about a minute on 2 cores (the build's test budget).
 * <p>
 * Constants only; threadsafe.
 */
final class Budget
{
    /** Generated scenarios per test. */
    static final int ITERATIONS = 10;

    /** Interleavings explored per scenario by the model checker. */
    static final int INVOCATIONS = 200;

    /** Runs on real threads per scenario in stress mode (each run starts and synchronizes the threads). */
    static final int STRESS_INVOCATIONS = 100;

    /** Scenarios for the engine-wide test (each run builds an engine). */
    static final int ENGINE_ITERATIONS = 3;

    /** Runs per scenario of the engine-wide test. */
    static final int ENGINE_INVOCATIONS = 30;

    private Budget()
    {
    }
}
