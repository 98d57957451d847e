package io.multifactor.serving;

import io.multifactor.api.Handles;
import io.multifactor.config.LoadedConfig;
import io.multifactor.config.model.BackendRef;
import io.multifactor.config.model.ModelConfig;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.signal.ServerLoadTable;
import io.multifactor.kernel.signal.ServerSignals;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * Picks one of a model's {@code backend_refs} for each request, in proportion to their weights: the n-th pick of a
 * model takes the backend whose cumulative weight share holds {@code frac(n * golden ratio)}, a low-discrepancy
 * sequence, so any run of picks splits close to the weights without shared locks or random state. Built once per
 * configuration (API keys are read from the environment then); {@link #problems()} lists what it found wrong.
 * <p>
 * With the engine's server signals ({@link #following}), a model whose backends are scraped goes to the fresh backend
 * with the fewest waiting requests: the weighted pick when it is one of those with the fewest, else the first of them
 * in file order; with no fresh backend, the weighted pick.
 * <p>
 * This class is threadsafe and can be used across threads: a pick is one atomic increment and a scan.
 */
public final class BackendChooser
{
    private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

    private final Backend[][] backends;
    private final double[][] cumulativeShares;
    private final AtomicLong[] picks;
    private final List<String> problems;
    private final String[] modelNames;
    private final String[][] backendKeys;
    private final ServerSignals serverSignalsOrNull;
    private final LongSupplier clockNsOrNull;

    private BackendChooser(final Backend[][] backends, final double[][] cumulativeShares, final List<String> problems,
        final String[] modelNames, final ServerSignals serverSignalsOrNull, final LongSupplier clockNsOrNull)
    {
        this.modelNames = modelNames;
        this.serverSignalsOrNull = serverSignalsOrNull;
        this.clockNsOrNull = clockNsOrNull;
        this.backendKeys = new String[backends.length][];
        for (int m = 0; m < backends.length; m++)
        {
            if (backends[m] != null)
            {
                backendKeys[m] = new String[backends[m].length];
                for (int i = 0; i < backends[m].length; i++)
                {
                    backendKeys[m][i] = RequestLifecycle.backendKey(backends[m][i]);
                }
            }
        }
        this.backends = backends;
        this.cumulativeShares = cumulativeShares;
        this.problems = List.copyOf(problems);
        this.picks = new AtomicLong[backends.length];
        for (int i = 0; i < picks.length; i++)
        {
            picks[i] = new AtomicLong();
        }
    }

    /**
     * @param loaded a validated configuration and its plans.
     * @return a chooser for the plans' model handles, reading API keys from the process's environment.
     */
    public static BackendChooser of(final LoadedConfig loaded)
    {
        return of(loaded, System.getenv());
    }

    /**
     * @param loaded a validated configuration and its plans.
     * @param environment where {@code api_key_env} variables are looked up.
     * @return a chooser for the plans' model handles.
     */
    public static BackendChooser of(final LoadedConfig loaded, final Map<String, String> environment)
    {
        return of(loaded.plans(), loaded.config().models(), environment::get, null, null);
    }

    /**
     * A chooser that sends a scraped model's requests to its fresh backend with the fewest waiting requests.
     *
     * @param loaded a validated configuration and its plans.
     * @param engine the engine whose server signals it reads ({@link MultiFactorEngine#serverSignals()}).
     * @return a chooser for the plans' model handles, reading API keys from the process's environment.
     */
    public static BackendChooser following(final LoadedConfig loaded, final MultiFactorEngine engine)
    {
        return of(loaded.plans(), loaded.config().models(), System.getenv()::get, engine.serverSignals(),
            engine.clock()::nanoTime);
    }

    private static BackendChooser of(
        final Plans plans, final List<ModelConfig> models, final Function<String, String> environment,
        final ServerSignals serverSignalsOrNull, final LongSupplier clockNsOrNull)
    {
        final String[] names = new String[plans.modelCapacity()];
        final Backend[][] backends = new Backend[plans.modelCapacity()][];
        final double[][] shares = new double[plans.modelCapacity()][];
        final List<String> problems = new ArrayList<>();
        for (final ModelConfig model : models)
        {
            final int id = plans.modelId(model.name());
            if (id == Handles.NONE)
            {
                continue;
            }
            final List<BackendRef> refs = model.backendRefs();
            if (refs.isEmpty())
            {
                problems.add("model " + model.name() + " has no backend_refs: its requests fail (502)");
            }
            final Backend[] list = new Backend[refs.size()];
            final double[] cumulative = new double[refs.size()];
            double total = 0;
            for (final BackendRef ref : refs)
            {
                total += ref.weight();
            }
            double sum = 0;
            for (int i = 0; i < list.length; i++)
            {
                final BackendRef ref = refs.get(i);
                String authorization = null;
                if (ref.apiKeyEnv() != null)
                {
                    final String key = environment.apply(ref.apiKeyEnv());
                    if (key == null || key.isEmpty())
                    {
                        problems.add("model " + model.name() + ", backend " + ref.name() + ": api_key_env " +
                            ref.apiKeyEnv() + " is not set: requests go without Authorization");
                    }
                    else
                    {
                        authorization = "Bearer " + key;
                    }
                }
                list[i] = new Backend(ref.name(), ref.https(), ref.host(), ref.port(), ref.basePath(), authorization,
                    model.providerModelId());
                sum += ref.weight();
                cumulative[i] = sum / total;
            }
            if (cumulative.length > 0)
            {
                cumulative[cumulative.length - 1] = 1.0;
            }
            backends[id] = list;
            shares[id] = cumulative;
            names[id] = model.name();
        }
        return new BackendChooser(backends, shares, problems, names, serverSignalsOrNull, clockNsOrNull);
    }

    /**
     * Lock-free; allocates nothing.
     *
     * @param modelId a model handle of the plans this chooser was built for.
     * @return the next backend of that model, or {@code null} when it has none (or the handle is unknown).
     */
    public Backend choose(final int modelId)
    {
        if (modelId < 0 || modelId >= backends.length)
        {
            return null;
        }
        final Backend[] list = backends[modelId];
        if (list == null || list.length == 0)
        {
            return null;
        }
        if (list.length == 1)
        {
            return list[0];
        }
        final long n = picks[modelId].getAndIncrement();
        final double u = ((n * GOLDEN_GAMMA) >>> 11) * 0x1.0p-53;
        final double[] cumulative = cumulativeShares[modelId];
        int weighted = list.length - 1;
        for (int i = 0; i < cumulative.length; i++)
        {
            if (u < cumulative[i])
            {
                weighted = i;
                break;
            }
        }
        return serverSignalsOrNull == null ? list[weighted] : list[fewestWaiting(modelId, weighted)];
    }

    // The fresh backend with the fewest waiting requests (the weighted pick among equals), else the weighted pick.
    // Map lookups and table reads only: allocates nothing.
    private int fewestWaiting(final int modelId, final int weighted)
    {
        final ServerLoadTable table = serverSignalsOrNull.table();
        final String name = modelNames[modelId];
        if (table.modelIndex(name) == ServerLoadTable.NOT_FOUND)
        {
            return weighted;
        }
        final long nowNs = clockNsOrNull.getAsLong();
        final String[] keys = backendKeys[modelId];
        int best = -1;
        double fewest = Double.POSITIVE_INFINITY;
        double weightedWaiting = Double.NaN;
        for (int i = 0; i < keys.length; i++)
        {
            final int b = table.backendIndex(name, keys[i]);
            if (b == ServerLoadTable.NOT_FOUND || !table.isFresh(b, nowNs))
            {
                continue;
            }
            final double waiting = table.waiting(b);
            if (i == weighted)
            {
                weightedWaiting = waiting;
            }
            if (waiting < fewest)
            {
                fewest = waiting;
                best = i;
            }
        }
        return best < 0 || weightedWaiting == fewest ? weighted : best;
    }

    /**
     * @param modelId a model handle.
     * @return that model's backends in file order (empty when none).
     */
    public List<Backend> backends(final int modelId)
    {
        return modelId < 0 || modelId >= backends.length || backends[modelId] == null
            ? List.of() : List.of(backends[modelId]);
    }

    /** @return what the configuration leaves unusable (a model without backends, an API key variable unset). */
    public List<String> problems()
    {
        return problems;
    }
}
