package io.multifactor.testkit.reference;

import io.multifactor.api.Handles;
import io.multifactor.api.InflightTracker;
import io.multifactor.api.LatencyRecorder;
import io.multifactor.api.Outcome;
import org.agrona.concurrent.NanoClock;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The plain router: the object-based baseline of the benchmarks and an oracle for the engine. It keeps every raw latency
 * sample with its timestamp in lists, counts in-flight requests in a map, and on each {@link #select} computes each
 * candidate's percentile by sorting the samples of the current window (nearest rank, as the Go original does), then
 * scores with {@link ReferenceScorer}.
 * <p>
 * Differences from the engine, on purpose: percentiles are exact (no histogram buckets), a sample is never clamped (there
 * is no trackable maximum), the window is exact rather than rotated in intervals, and leases are never reclaimed by age.
 * <p>
 * This class is threadsafe: every method takes the instance's lock (the simple way, and part of what the baseline
 * measures).
 */
public final class ReferenceRouter implements LatencyRecorder, InflightTracker
{
    private final NanoClock clock;
    private final long latencyWindowNs;
    private final List<String> modelNames = new ArrayList<>();
    private final Map<String, Integer> modelIds = new HashMap<>();
    private final Map<String, ReferenceDecision> decisions = new LinkedHashMap<>();
    private final Map<String, List<Sample>> ttftSamples = new HashMap<>();
    private final Map<String, List<Sample>> tpotSamples = new HashMap<>();
    private final Map<String, Long> inflight = new HashMap<>();
    private final Map<Long, String> leases = new HashMap<>();
    private long nextLease = 1L;

    /**
     * @param models every model; a model's handle is its position in this list.
     * @param decisions the decisions; each candidate must be one of {@code models}.
     * @param clock time source for sample timestamps and the window.
     * @param latencyWindowNs percentiles cover the samples recorded less than this long ago.
     * @throws IllegalArgumentException for a duplicate model or decision, or a decision naming an unknown model.
     */
    public ReferenceRouter(
        final List<ReferenceModel> models,
        final List<ReferenceDecision> decisions,
        final NanoClock clock,
        final long latencyWindowNs)
    {
        if (latencyWindowNs <= 0)
        {
            throw new IllegalArgumentException("latency window must be > 0: " + latencyWindowNs);
        }
        this.clock = clock;
        this.latencyWindowNs = latencyWindowNs;
        for (final ReferenceModel model : models)
        {
            if (modelIds.put(model.name(), modelNames.size()) != null)
            {
                throw new IllegalArgumentException("duplicate model: " + model.name());
            }
            modelNames.add(model.name());
            ttftSamples.put(model.name(), new ArrayList<>());
            tpotSamples.put(model.name(), new ArrayList<>());
            inflight.put(model.name(), 0L);
        }
        for (final ReferenceDecision decision : decisions)
        {
            for (final ReferenceModel candidate : decision.candidates())
            {
                if (!modelIds.containsKey(candidate.name()))
                {
                    throw new IllegalArgumentException("decision " + decision.name() + ": unknown model " + candidate.name());
                }
            }
            if (this.decisions.put(decision.name(), decision) != null)
            {
                throw new IllegalArgumentException("duplicate decision: " + decision.name());
            }
        }
    }

    /**
     * @param name model name.
     * @return its handle, or {@link Handles#NONE} when unknown.
     */
    public synchronized int modelId(final String name)
    {
        final Integer id = modelIds.get(name);
        return id == null ? Handles.NONE : id;
    }

    @Override
    public synchronized int recordTtftMicros(final int modelId, final long ttftMicros)
    {
        return record(ttftSamples, modelId, ttftMicros);
    }

    @Override
    public synchronized int recordTpotMicros(final int modelId, final long tpotMicros)
    {
        return record(tpotSamples, modelId, tpotMicros);
    }

    @Override
    public synchronized long begin(final int modelId)
    {
        if (modelId < 0 || modelId >= modelNames.size())
        {
            return NO_LEASE;
        }
        final String model = modelNames.get(modelId);
        final long lease = nextLease++;
        leases.put(lease, model);
        inflight.merge(model, 1L, Long::sum);
        return lease;
    }

    @Override
    public synchronized boolean end(final long lease)
    {
        final String model = leases.remove(lease);
        if (model == null)
        {
            return false;
        }
        inflight.merge(model, -1L, Long::sum);
        return true;
    }

    /**
     * @param model model name.
     * @return its in-flight count, 0 for an unknown model.
     */
    public synchronized long inflight(final String model)
    {
        return inflight.getOrDefault(model, 0L);
    }

    /**
     * @param model model name.
     * @param percentile 1..100.
     * @return its TPOT percentile over the current window in milliseconds, {@code null} when it has no sample.
     */
    public synchronized Double tpotMs(final String model, final int percentile)
    {
        return percentileMs(tpotSamples.get(model), percentile);
    }

    /**
     * @param model model name.
     * @param percentile 1..100.
     * @return its TTFT percentile over the current window in milliseconds, {@code null} when it has no sample.
     */
    public synchronized Double ttftMs(final String model, final int percentile)
    {
        return percentileMs(ttftSamples.get(model), percentile);
    }

    /**
     * Selects a model for one request of a decision.
     *
     * @param decision decision name.
     * @param excluded names of the models this request leaves out.
     * @return the result; an unknown decision gives {@link Outcome#FAILED} with no candidate.
     */
    public synchronized ReferenceResult select(final String decision, final Set<String> excluded)
    {
        final ReferenceDecision plan = decisions.get(decision);
        if (plan == null)
        {
            return new ReferenceResult(decision, Outcome.FAILED, -1, null, Map.of(), List.of());
        }
        final Map<String, ReferenceObservation> observations = new HashMap<>();
        for (final ReferenceModel candidate : plan.candidates())
        {
            final String name = candidate.name();
            observations.put(name, new ReferenceObservation(
                percentileMs(tpotSamples.get(name), plan.percentile()),
                percentileMs(ttftSamples.get(name), plan.percentile()),
                inflight.get(name)));
        }
        return ReferenceScorer.select(new ReferenceCase(plan, new ReferenceRequest(observations, excluded)));
    }

    private int record(final Map<String, List<Sample>> samplesByModel, final int modelId, final long micros)
    {
        if (modelId < 0 || modelId >= modelNames.size())
        {
            return UNKNOWN_MODEL;
        }
        if (micros <= 0)
        {
            return REFUSED;
        }
        samplesByModel.get(modelNames.get(modelId)).add(new Sample(clock.nanoTime(), micros));
        return RECORDED;
    }

    private Double percentileMs(final List<Sample> samples, final int percentile)
    {
        if (samples == null)
        {
            return null;
        }
        final long now = clock.nanoTime();
        // Forget what left the window for good, then take the percentile of what remains.
        samples.removeIf(sample -> now - sample.atNs() >= latencyWindowNs);
        final List<Long> micros = new ArrayList<>();
        for (final Sample sample : samples)
        {
            micros.add(sample.micros());
        }
        final Long value = ReferencePercentiles.nearestRank(micros, percentile);
        return value == null ? null : value / 1000.0;
    }

    /** One latency sample and when it was recorded. */
    private record Sample(long atNs, long micros)
    {
    }
}
