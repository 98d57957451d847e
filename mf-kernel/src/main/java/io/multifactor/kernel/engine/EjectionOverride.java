package io.multifactor.kernel.engine;

import io.multifactor.kernel.reliability.EjectionTable;

/**
 * An operator's hand on ejection: ejects a model of the current plans for a given time whatever its
 * {@code reliability} (and without raising its ejection count), and reads how long a model's ejection has left. A
 * decision that reads no ejection yet (none of its candidates has {@code reliability}) is switched to reading it
 * first, so that the override reaches its selections.
 * <p>
 * This class is threadsafe: lock-free, it reads the published state once per call and writes only the model's
 * ejection word (an atomic update) and the decisions' read-the-extended-signals flag; off the hot path.
 */
final class EjectionOverride
{
    private final StateInstaller installer;
    private final EjectionTable ejections;

    EjectionOverride(final StateInstaller installer, final EjectionTable ejections)
    {
        this.installer = installer;
        this.ejections = ejections;
    }

    /**
     * @param modelId model handle.
     * @param millis how long, > 0.
     * @return whether the model is one of the current plans and {@code millis > 0} (false: nothing happened).
     */
    boolean ejectForMillis(final int modelId, final long millis)
    {
        final EngineState s = installer.state;
        final ModelSignals signals = s.signals(modelId);
        if (signals == null || millis <= 0)
        {
            return false;
        }
        for (final LiveDecision decision : s.decisions)
        {
            for (int i = 0; decision != null && i < decision.plan.candidateCount(); i++)
            {
                if (decision.plan.candidateModelId(i) == modelId)
                {
                    // A decision none of whose candidates has reliability reads no ejection until now.
                    decision.signals.readEjections();
                }
            }
        }
        signals.ejection.ejectForMillis(millis);
        return true;
    }

    /**
     * @param modelId model handle.
     * @return the milliseconds its ejection has left now (0 while its probe is out), NaN when it is not ejected or not
     *     one of the current plans.
     */
    double ejectedMillisLeft(final int modelId)
    {
        final ModelSignals signals = installer.state.signals(modelId);
        return signals == null ? Double.NaN : ejections.ejectedMillisLeft(signals.counterId);
    }
}
