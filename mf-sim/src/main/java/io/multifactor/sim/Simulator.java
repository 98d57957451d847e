package io.multifactor.sim;

import io.multifactor.api.Handles;
import io.multifactor.config.RecipeDecisionNames;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.engine.SignalSettings;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.serving.BackendChooser;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * A discrete-event simulation that drives the real {@link MultiFactorEngine} on a simulated clock: one router replica,
 * run by the simulator's one event loop (requests, models, failures and the fixed order of events as that loop
 * describes; {@link FleetSimulator} runs the same loop with several replicas). The engine's {@code refresh()} runs
 * every {@value #REFRESH_TICK_MS} simulated milliseconds, as its agent would. A simulated minute takes well under a
 * second.
 * <p>
 * Every draw comes from one seeded {@link SplittableRandom} split per purpose, and simultaneous events run in a fixed
 * order, so the same plans, settings and profile give the same report, byte for byte.
 * <p>
 * This class is not threadsafe: run one simulation per instance, on one thread.
 */
public final class Simulator
{
    /** Simulated milliseconds between two calls of the engine's refresh. */
    public static final long REFRESH_TICK_MS = 100;

    // Read by the event loop: the checked plans, profile and models of the run.
    final Plans plans;
    final Plans enginePlans;
    final SignalSettings settings;
    final SimulationProfile profile;
    final int[] modelIndexById;
    final ModelBehaviour[] behaviours;
    final BackendChooser chooserOrNull;

    private final boolean ceilingsEnforced;
    private final List<String> modelNames;
    private final int[] decisionIds;
    private final double[] cumulativeShares;

    /**
     * A simulation whose engine applies the configured ceilings.
     *
     * @param plans the compiled configuration.
     * @param settings the engine's signal settings (window, refresh, in-flight age).
     * @param profile the traffic.
     * @throws IllegalArgumentException when the profile does not fit the plans (a model without behaviour, a share of
     *     an unknown decision, no decision with a positive share).
     */
    public Simulator(final Plans plans, final SignalSettings settings, final SimulationProfile profile)
    {
        this(plans, settings, profile, true);
    }

    /**
     * @param plans the compiled configuration; its ceilings are the SLO targets of the report.
     * @param settings the engine's signal settings (window, refresh, in-flight age).
     * @param profile the traffic.
     * @param ceilingsEnforced whether the engine gets the configured ceilings; false runs it with every ceiling off
     *     (for comparison), still measuring attainment against the configured ones.
     * @throws IllegalArgumentException when the profile does not fit the plans.
     */
    public Simulator(
        final Plans plans,
        final SignalSettings settings,
        final SimulationProfile profile,
        final boolean ceilingsEnforced)
    {
        this(plans, settings, profile, ceilingsEnforced, null);
    }

    /**
     * A simulation that models the backends of the models the profile gives {@code servers} one by one: each request
     * to such a model goes to the backend that mf-serving's backend choice picks among the model's
     * {@code backend_refs}, and waits, hits or misses that server's cache as {@link BackendServers} says.
     *
     * @param plans the compiled configuration; its ceilings are the SLO targets of the report.
     * @param settings the engine's signal settings (window, refresh, in-flight age).
     * @param profile the traffic.
     * @param ceilingsEnforced whether the engine gets the configured ceilings.
     * @param chooserOrNull the backend choice built from the same configuration, or null when no model has servers.
     * @throws IllegalArgumentException when the profile does not fit the plans, or gives servers to a model that has
     *     no backends in the chooser (or there is no chooser).
     */
    public Simulator(
        final Plans plans,
        final SignalSettings settings,
        final SimulationProfile profile,
        final boolean ceilingsEnforced,
        final BackendChooser chooserOrNull)
    {
        this.chooserOrNull = chooserOrNull;
        this.plans = plans;
        this.enginePlans = ceilingsEnforced ? plans : PlanEdits.withoutCeilings(plans);
        this.settings = settings;
        this.profile = profile;
        this.ceilingsEnforced = ceilingsEnforced;

        final List<String> names = new ArrayList<>();
        modelIndexById = new int[plans.modelCapacity()];
        Arrays.fill(modelIndexById, -1);
        final List<ModelBehaviour> found = new ArrayList<>();
        for (int id = 0; id < plans.modelCapacity(); id++)
        {
            final String name = plans.modelName(id);
            if (name == null)
            {
                continue;
            }
            final ModelBehaviour behaviour = profile.models().get(name);
            if (behaviour == null)
            {
                throw new IllegalArgumentException("the profile has no behaviour for model " + name +
                    " (add models." + name + " with ttft_ms and tpot_ms)");
            }
            modelIndexById[id] = names.size();
            names.add(name);
            found.add(behaviour);
        }
        modelNames = Collections.unmodifiableList(names);
        behaviours = found.toArray(new ModelBehaviour[0]);
        for (final String model : profile.servers().keySet())
        {
            final int id = plans.modelId(model);
            if (chooserOrNull == null)
            {
                throw new IllegalArgumentException("the profile gives servers to model " + model + ": simulating " +
                    "servers one by one needs the configuration's backends, which this simulation does not have");
            }
            if (id == Handles.NONE || chooserOrNull.backends(id).isEmpty())
            {
                throw new IllegalArgumentException("the profile gives servers to model " + model + ", which has no " +
                    "backend_refs in the configuration: list one per server");
            }
        }

        final List<Integer> ids = new ArrayList<>();
        final List<Double> shares = new ArrayList<>();
        if (profile.decisionShares().isEmpty())
        {
            for (int id = 0; id < plans.decisionCapacity(); id++)
            {
                if (plans.decision(id) != null)
                {
                    ids.add(id);
                    shares.add(1.0);
                }
            }
        }
        else
        {
            for (final Map.Entry<String, Double> share : profile.decisionShares().entrySet())
            {
                final int id = plans.decisionId(share.getKey());
                if (id == Handles.NONE)
                {
                    throw new IllegalArgumentException("the profile gives a share to unknown decision " + share.getKey() +
                        RecipeDecisionNames.hint(plans, share.getKey()));
                }
                if (share.getValue() > 0.0)
                {
                    ids.add(id);
                    shares.add(share.getValue());
                }
            }
        }
        if (ids.isEmpty())
        {
            throw new IllegalArgumentException("no decision gets any traffic: give at least one a positive share");
        }
        decisionIds = new int[ids.size()];
        cumulativeShares = new double[ids.size()];
        double total = 0.0;
        for (final double share : shares)
        {
            total += share;
        }
        double sum = 0.0;
        for (int i = 0; i < decisionIds.length; i++)
        {
            decisionIds[i] = ids.get(i);
            sum += shares.get(i);
            cumulativeShares[i] = sum / total;
        }
        cumulativeShares[cumulativeShares.length - 1] = 1.0;
    }

    /** @return the models of the run, in handle order: the indexes of the report's per-model values. */
    public List<String> modelNames()
    {
        return modelNames;
    }

    /**
     * Runs the simulation from simulated time 0 to the profile's duration.
     *
     * @param listener told about each interval and about progress; {@link SimulationListener#NONE} for nothing.
     * @return the report.
     */
    public SimulationReport run(final SimulationListener listener)
    {
        return run(listener, null);
    }

    /**
     * Runs the simulation from simulated time 0 to the profile's duration, with the engine's counters copied to a
     * counters file that {@code bin/mf stat} can read while it runs.
     *
     * @param listener told about each interval and about progress; {@link SimulationListener#NONE} for nothing.
     * @param countersFileOrNull the counters file (replaced if it exists), or null for counters in memory.
     * @return the report.
     */
    public SimulationReport run(final SimulationListener listener, final java.nio.file.Path countersFileOrNull)
    {
        final EventLoop loop = new EventLoop(this, 1, false, 0L, null, List.of(), countersFileOrNull, listener);
        loop.run();
        return new SimulationReport(profile.durationS(), profile.seed(), ceilingsEnforced, loop.requests, loop.failed,
            loop.fallbacks, loop.sloMet, loop.costUsd, modelNames, loop.selected, loop.sloDrops, loop.peakInflight,
            loop.rows, loop.backendErrors, loop.recoveryToTrafficS, loop.figures, loop.servingFigures());
    }

    /**
     * Runs the simulation from simulated time 0 to the profile's duration and keeps what the arrivals after a warm-up
     * measured (the policy comparison's figures).
     *
     * @param warmupS simulated seconds whose arrivals do not count, >= 0 and shorter than the profile's duration.
     * @param sloPlansOrNull the configuration whose decisions' TTFT and TPOT ceilings judge the requests (by decision
     *     name), or null for the run's own.
     * @return the figures of the arrivals after the warm-up.
     * @throws IllegalArgumentException when the warm-up is not shorter than the run.
     */
    public SteadyFigures runMeasured(final double warmupS, final Plans sloPlansOrNull)
    {
        final EventLoop loop = new EventLoop(this, 1, false, 0L, null, List.of(), null, SimulationListener.NONE);
        loop.steady = new SteadyFigures(warmupS, profile.durationS());
        if (sloPlansOrNull != null)
        {
            loop.steady.judgeBy(plans, sloPlansOrNull);
        }
        loop.run();
        return loop.steady;
    }

    /**
     * @param u a uniform draw in [0, 1).
     * @return the decision a request with that draw goes to, by the profile's shares.
     */
    int pickDecision(final double u)
    {
        for (int i = 0; i < cumulativeShares.length; i++)
        {
            if (u < cumulativeShares[i])
            {
                return decisionIds[i];
            }
        }
        return decisionIds[decisionIds.length - 1];
    }
}
