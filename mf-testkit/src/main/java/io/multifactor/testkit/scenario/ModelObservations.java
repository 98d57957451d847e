package io.multifactor.testkit.scenario;

/**
 * What a scenario says about one model: raw latency samples in milliseconds and its in-flight count.
 * <p>
 * Instances are immutable and threadsafe: the arrays are copied in and out.
 *
 * @param model the model's name and where it was written.
 * @param tpotMs TPOT samples in milliseconds, each finite and > 0.
 * @param ttftMs TTFT samples in milliseconds, each finite and > 0.
 * @param inflight requests in flight, >= 0.
 */
public record ModelObservations(LocatedName model, double[] tpotMs, double[] ttftMs, long inflight)
{
    /**
     * @param model the model's name and where it was written.
     * @param tpotMs TPOT samples in milliseconds; copied.
     * @param ttftMs TTFT samples in milliseconds; copied.
     * @param inflight requests in flight.
     */
    public ModelObservations
    {
        tpotMs = tpotMs.clone();
        ttftMs = ttftMs.clone();
    }

    /** @return a copy of the TPOT samples in milliseconds. */
    @Override
    public double[] tpotMs()
    {
        return tpotMs.clone();
    }

    /** @return a copy of the TTFT samples in milliseconds. */
    @Override
    public double[] ttftMs()
    {
        return ttftMs.clone();
    }

    @Override
    public boolean equals(final Object other)
    {
        return other instanceof ModelObservations && model.equals(((ModelObservations)other).model) &&
            java.util.Arrays.equals(tpotMs, ((ModelObservations)other).tpotMs) &&
            java.util.Arrays.equals(ttftMs, ((ModelObservations)other).ttftMs) &&
            inflight == ((ModelObservations)other).inflight;
    }

    @Override
    public int hashCode()
    {
        return 31 * (31 * model.hashCode() + java.util.Arrays.hashCode(tpotMs)) + java.util.Arrays.hashCode(ttftMs) +
            Long.hashCode(inflight);
    }

    @Override
    public String toString()
    {
        return "ModelObservations{model=" + model.name() + ", tpotMs=" + java.util.Arrays.toString(tpotMs) +
            ", ttftMs=" + java.util.Arrays.toString(ttftMs) + ", inflight=" + inflight + '}';
    }
}
