package io.multifactor.sim;

/**
 * Receives a simulation's progress as it runs: each closed interval, and a progress tick about once per simulated
 * second. Both default to doing nothing.
 * <p>
 * Implementations are called from the simulating thread only and need not be threadsafe.
 */
public interface SimulationListener
{
    /** A listener that ignores everything. */
    SimulationListener NONE = new SimulationListener()
    {
    };

    /**
     * One report interval closed.
     *
     * @param row what happened in it.
     */
    default void onInterval(final IntervalRow row)
    {
    }

    /**
     * Simulated time moved on.
     *
     * @param simulatedS simulated seconds elapsed.
     * @param durationS simulated seconds of the whole run.
     * @param requests requests so far.
     */
    default void onProgress(final double simulatedS, final double durationS, final long requests)
    {
    }
}
