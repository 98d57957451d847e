package io.multifactor.sim.scenario;

/**
 * What a scenario says about one model: raw latency samples in milliseconds, its in-flight requests and tokens, and
 * the signals its servers and its reliability would give (queue, KV-cache use, ejection), and the share of the request's
 * prompt cached for it (prefix).
 * <p>
 * Instances are immutable and threadsafe: the arrays are copied in and out.
 *
 * @param model the model's name and where it was written.
 * @param tpotMs TPOT samples in milliseconds, each finite and > 0.
 * @param ttftMs TTFT samples in milliseconds, each finite and > 0.
 * @param inflight requests in flight, >= 0.
 * @param inflightTokens tokens in flight, >= 0 (0 when absent).
 * @param queue waiting requests on its servers, >= 0; NaN when absent.
 * @param kvCache KV-cache use of its servers, 0..1; NaN when absent.
 * @param ejectedMs milliseconds it is ejected for, > 0; NaN when absent.
 * @param prefix P(m), the request's cached prompt share on the model, 0..1; NaN when absent.
 */
public record ModelObservations(
    LocatedName model, double[] tpotMs, double[] ttftMs, long inflight, long inflightTokens, double queue,
    double kvCache, double ejectedMs, double prefix)
{
    /**
     * @param model the model's name and where it was written.
     * @param tpotMs TPOT samples in milliseconds; copied.
     * @param ttftMs TTFT samples in milliseconds; copied.
     * @param inflight requests in flight.
     * @param inflightTokens tokens in flight.
     * @param queue waiting requests, NaN when absent.
     * @param kvCache KV-cache use, NaN when absent.
     * @param ejectedMs ejection time left in milliseconds, NaN when absent.
     * @param prefix the cached prompt share, NaN when absent.
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
            inflight == ((ModelObservations)other).inflight &&
            inflightTokens == ((ModelObservations)other).inflightTokens &&
            Double.compare(queue, ((ModelObservations)other).queue) == 0 &&
            Double.compare(kvCache, ((ModelObservations)other).kvCache) == 0 &&
            Double.compare(ejectedMs, ((ModelObservations)other).ejectedMs) == 0 &&
            Double.compare(prefix, ((ModelObservations)other).prefix) == 0;
    }

    @Override
    public int hashCode()
    {
        return 31 * (31 * model.hashCode() + java.util.Arrays.hashCode(tpotMs)) + java.util.Arrays.hashCode(ttftMs) +
            Long.hashCode(inflight) + 7 * Long.hashCode(inflightTokens) + 11 * Double.hashCode(queue) +
            13 * Double.hashCode(kvCache) + 17 * Double.hashCode(ejectedMs) + 19 * Double.hashCode(prefix);
    }

    @Override
    public String toString()
    {
        return "ModelObservations{model=" + model.name() + ", tpotMs=" + java.util.Arrays.toString(tpotMs) +
            ", ttftMs=" + java.util.Arrays.toString(ttftMs) + ", inflight=" + inflight + ", inflightTokens=" + inflightTokens +
            ", queue=" + queue + ", kvCache=" + kvCache + ", ejectedMs=" + ejectedMs + ", prefix=" + prefix + '}';
    }
}
