package io.multifactor.sim.scenario;

import io.multifactor.api.Exclusions;
import io.multifactor.api.InflightTracker;
import io.multifactor.api.LatencyRecorder;
import io.multifactor.api.Request;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.signal.ServerBackend;
import io.multifactor.kernel.signal.ServerKind;
import io.multifactor.kernel.signal.ServerMetricsSettings;
import io.multifactor.kernel.signal.WhenStale;

import io.multifactor.kernel.latency.LatencyEstimatorType;
import java.util.ArrayList;
import java.util.List;
import org.agrona.concurrent.CachedNanoClock;

/**
 * Feeds a {@link Scenario} into a real engine through its public recording API: every latency sample with
 * {@code recordTpotMs}/{@code recordTtftMs}, every in-flight request with {@code begin}, its {@code inflight_tokens}
 * spread over those leases' weights (0 when absent, not {@code default_request_tokens}), an ejection with
 * {@code ejectForMillis}; then the caller refreshes and
 * selects with the scenario's exclusions.
 * <p>
 * With {@code latency_estimator: peak_ewma} and the engine's clock in hand ({@link #apply(Scenario, MultiFactorEngine,
 * Request, CachedNanoClock)}), each model's samples of a metric are recorded in file order one second apart, the last
 * one at the request's time (the clock's time on entry, where the clock is left), so that the estimate read then is
 * the formula's over that sequence.
 * <p>
 * This class is stateless and threadsafe; the engine it feeds is.
 */
public final class ScenarioReplay
{
    /** The host of the stand-in backend that gives a model the scenario's queue and KV-cache use. */
    static final String SCENARIO_HOST = "scenario.invalid";

    /** The session key of a scenario's request with {@code session:}. */
    public static final long SCENARIO_SESSION_KEY = 0x5CE7A1L;

    /** A replayed server answer stays fresh this long (engine clock): longer than any replay and explain. */
    static final long REPLAY_FRESH_NS = 3_600_000_000_000L;

    private ScenarioReplay()
    {
    }

    /**
     * @param scenario a scenario.
     * @param minimum the engine's default lease capacity.
     * @return a power-of-two lease capacity large enough for every in-flight request of the scenario.
     */
    public static int leaseCapacityFor(final Scenario scenario, final int minimum)
    {
        long total = 1;
        for (final ModelObservations model : scenario.models())
        {
            total += model.inflight();
        }
        long capacity = Math.max(1, minimum);
        while (capacity < total && capacity < (1 << 30))
        {
            capacity <<= 1;
        }
        return (int)capacity;
    }

    /**
     * Records the scenario's samples and begins its in-flight requests (their leases stay open).
     *
     * @param scenario a scenario checked against the engine's plans.
     * @param engine the engine to feed.
     * @param exclusions filled with the models the scenario excludes.
     * @return the number of samples the engine clamped to its trackable maximum.
     * @throws IllegalStateException when the engine refuses a sample or a lease (a scenario it was not sized for).
     * @throws IllegalArgumentException when a model has {@code inflight_tokens} but no request in flight to carry them.
     */
    public static int apply(final Scenario scenario, final MultiFactorEngine engine, final Exclusions exclusions)
    {
        return apply(scenario, engine, exclusions, null);
    }

    private static int apply(
        final Scenario scenario,
        final MultiFactorEngine engine,
        final Exclusions exclusions,
        final CachedNanoClock clockOrNull)
    {
        final CachedNanoClock clock =
            engine.settings().latencyEstimator() == LatencyEstimatorType.PEAK_EWMA ? clockOrNull : null;
        final long requestNs = clock == null ? 0L : clock.nanoTime();
        int clamped = 0;
        for (final ModelObservations model : scenario.models())
        {
            final int modelId = engine.modelId(model.model().name());
            final double[] tpot = model.tpotMs();
            for (int i = 0; i < tpot.length; i++)
            {
                at(clock, requestNs, tpot.length - 1 - i);
                clamped += check(engine.recordTpotMs(modelId, tpot[i]), model, tpot[i]);
            }
            final double[] ttft = model.ttftMs();
            for (int i = 0; i < ttft.length; i++)
            {
                at(clock, requestNs, ttft.length - 1 - i);
                clamped += check(engine.recordTtftMs(modelId, ttft[i]), model, ttft[i]);
            }
            if (model.ejectedMs() > 0)
            {
                // As given, whatever the model's reliability: ejected for this long from the engine's now.
                engine.ejectForMillis(modelId, (long)Math.ceil(model.ejectedMs()));
            }
            final long inflight = model.inflight();
            final long tokens = model.inflightTokens();
            if (inflight == 0 && tokens > 0)
            {
                throw new IllegalArgumentException("models." + model.model().name() + ".inflight_tokens: " + tokens +
                    " tokens need requests to carry them, but inflight is 0 (set inflight >= 1)");
            }
            for (long i = 0; i < inflight; i++)
            {
                // The scenario's in-flight tokens spread over its in-flight requests, the last taking the remainder.
                final long weight = i < inflight - 1 ? tokens / inflight : tokens - (inflight - 1) * (tokens / inflight);
                if (engine.begin(modelId, weight) == InflightTracker.NO_LEASE)
                {
                    throw new IllegalStateException("the engine refused an in-flight lease for " + model.model().name());
                }
            }
        }
        if (clock != null)
        {
            clock.update(requestNs);
        }
        feedServerLoad(scenario, engine);
        exclusions.clear();
        for (final LocatedName excluded : scenario.exclude())
        {
            exclusions.add(engine.modelId(excluded.name()));
        }
        return clamped;
    }

    /**
     * The scenario's {@code queue} and {@code kv_cache}, as the model servers would give them, whatever the models'
     * {@code server} and {@code backend_refs}: the engine scrapes one stand-in backend per model that has either (its
     * server signals are replaced), fresh for as long as a replay lasts, and takes the values as its answer now.
     */
    private static void feedServerLoad(final Scenario scenario, final MultiFactorEngine engine)
    {
        final List<ServerBackend> backends = new ArrayList<>();
        final List<ModelObservations> observed = new ArrayList<>();
        for (final ModelObservations model : scenario.models())
        {
            if (!Double.isNaN(model.queue()) || !Double.isNaN(model.kvCache()))
            {
                backends.add(new ServerBackend(model.model().name(), false, SCENARIO_HOST, 1, ServerKind.VLLM));
                observed.add(model);
            }
        }
        if (backends.isEmpty())
        {
            return;
        }
        engine.configureServers(new ServerMetricsSettings(ServerMetricsSettings.MIN_EVERY_NS,
            ServerMetricsSettings.DEFAULT_PATH, ServerMetricsSettings.MIN_EVERY_NS, REPLAY_FRESH_NS, WhenStale.IGNORE),
            backends);
        for (int i = 0; i < backends.size(); i++)
        {
            final ServerBackend backend = backends.get(i);
            final ModelObservations model = observed.get(i);
            if (!engine.reportServerLoad(engine.modelId(backend.model()), backend.key(), model.queue(), Double.NaN,
                model.kvCache()))
            {
                throw new IllegalStateException("the engine refused the queue and kv_cache of " + backend.model());
            }
        }
    }

    /**
     * Records the scenario's samples and begins its in-flight requests, and fills a request with the scenario's
     * decision, exclusions, token counts and seed.
     *
     * @param scenario a scenario checked against the engine's plans.
     * @param engine the engine to feed.
     * @param request cleared, then filled.
     * @return the number of samples the engine clamped to its trackable maximum.
     * @throws IllegalStateException when the engine refuses a sample or a lease.
     */
    public static int apply(final Scenario scenario, final MultiFactorEngine engine, final Request request)
    {
        return apply(scenario, engine, request, null);
    }

    /**
     * As {@link #apply(Scenario, MultiFactorEngine, Request)}; with {@code latency_estimator: peak_ewma}, each model's
     * samples of a metric are recorded in file order one second apart, the last at the clock's time on entry, and the
     * clock is left at that time (where the caller refreshes and reads the estimate).
     *
     * @param scenario a scenario checked against the engine's plans.
     * @param engine the engine to feed, built on {@code clockOrNull}.
     * @param request cleared, then filled.
     * @param clockOrNull the engine's clock, or null to record every sample at the clock's current time.
     * @return the number of samples the engine clamped to its trackable maximum.
     * @throws IllegalStateException when the engine refuses a sample or a lease.
     */
    public static int apply(
        final Scenario scenario, final MultiFactorEngine engine, final Request request, final CachedNanoClock clockOrNull)
    {
        final int clamped = apply(scenario, engine, request.clear().exclusions(), clockOrNull);
        request.decision(engine.decisionId(scenario.decision().name()));
        if (scenario.promptTokens() != null)
        {
            request.promptTokens(scenario.promptTokens());
        }
        if (scenario.maxOutputTokens() != null)
        {
            request.maxOutputTokens(scenario.maxOutputTokens());
        }
        scenario.limits().applyTo(request);
        if (scenario.seed() != null)
        {
            request.seed(scenario.seed());
        }
        if (scenario.session() != null)
        {
            // A key the engine's table does not hold: the scenario states the entry (explain takes it as given).
            request.session(SCENARIO_SESSION_KEY);
        }
        for (final ModelObservations model : scenario.models())
        {
            if (!Double.isNaN(model.prefix()))
            {
                request.prefixMatch(engine.modelId(model.model().name()), model.prefix());
            }
        }
        return clamped;
    }

    // With peak-EWMA, the sample `secondsBeforeRequest` seconds before the request; the clock ends at the request.
    private static void at(final CachedNanoClock clockOrNull, final long requestNs, final int secondsBeforeRequest)
    {
        if (clockOrNull != null)
        {
            clockOrNull.update(requestNs - secondsBeforeRequest * 1_000_000_000L);
        }
    }

    private static int check(final int code, final ModelObservations model, final double sampleMs)
    {
        if (code == LatencyRecorder.CLAMPED)
        {
            return 1;
        }
        if (code != LatencyRecorder.RECORDED)
        {
            throw new IllegalStateException("the engine refused sample " + sampleMs + " ms of " + model.model().name() +
                " (code " + code + ')');
        }
        return 0;
    }
}
