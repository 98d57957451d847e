package io.multifactor.serving;

import io.multifactor.api.Handles;
import io.multifactor.api.Request;
import io.multifactor.config.LoadedConfig;
import io.multifactor.config.model.BackendRef;
import io.multifactor.config.model.ModelConfig;
import io.multifactor.config.model.PrefixAffinityConfig;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.plan.AlgorithmType;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.LlmdParameters;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.signal.ServerLoadTable;
import io.multifactor.kernel.signal.ServerSignals;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
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
 * With a model's {@code prefix_affinity} ({@link #choose(int, PromptBlocks, long, PrefixTicket)}), the choice follows
 * where the prompt's prefix is likely cached instead: wait(b) = the uncached prompt tokens of this process's requests
 * sent to b that have no first chunk yet / {@code prefill_tokens_per_s}; C = the backend with the smallest wait (ties:
 * the weighted pick among the tied); the warm set holds the backends whose index holds at least {@code min_match} of
 * the prompt's leading blocks, W its best (largest match; ties: smaller wait, then C when it is among them, else the
 * weighted pick among them); W when wait(W) - wait(C)
 * {@code <=} {@code max_ttft_penalty}, else C (the release); no warm backend: C. A model without {@code prefix_affinity} keeps
 * the choice above exactly. No clock and no I/O: a simulator can drive it.
 * <p>
 * With a model's {@code backend_choice: T}, the rule of {@code algorithm.type: T} chooses among its backends instead
 * ({@link BackendRules}), prefix-cache affinity and server signals aside.
 * <p>
 * This class is threadsafe and can be used across threads: a pick is one atomic increment and a scan (with prefix
 * affinity, one optimistic read of each backend's index, see {@link PrefixIndex}).
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
    private final PrefixAffinityConfig[] affinities;
    private final BackendPrefix[][] prefixOf;
    private final double[][] weights;
    private static final ThreadLocal<LlmdBackendRules.Scratch> LLMD_SCRATCH =
        ThreadLocal.withInitial(LlmdBackendRules.Scratch::new);
    private final boolean followsPrefixes;
    private final BackendRules rules;

    private BackendChooser(final Backend[][] backends, final double[][] cumulativeShares, final List<String> problems,
        final String[] modelNames, final ServerSignals serverSignalsOrNull, final LongSupplier clockNsOrNull,
        final PrefixAffinityConfig[] affinities, final BackendPrefix[][] prefixOf, final double[][] weights,
        final BackendRules rules)
    {
        this.rules = rules;
        this.affinities = affinities;
        this.prefixOf = prefixOf;
        this.weights = weights;
        boolean any = false;
        for (final PrefixAffinityConfig a : affinities)
        {
            any |= a != null;
        }
        this.followsPrefixes = any;
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
        return of(loaded.plans(), loaded.config().models(), environment::get, null, null, new PrefixBackends());
    }

    /**
     * A chooser without server signals whose prefix-cache affinity state lives in {@code prefixBackends} (so it
     * survives the next configuration's chooser): what a simulator drives.
     *
     * @param loaded a validated configuration and its plans.
     * @param environment where {@code api_key_env} variables are looked up.
     * @param prefixBackends the process's per-backend prefix state.
     * @return a chooser for the plans' model handles.
     */
    public static BackendChooser of(final LoadedConfig loaded, final Map<String, String> environment,
        final PrefixBackends prefixBackends)
    {
        return of(loaded.plans(), loaded.config().models(), environment::get, null, null, prefixBackends);
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
        return following(loaded, engine, new PrefixBackends(engine));
    }

    /**
     * As {@link #following(LoadedConfig, MultiFactorEngine)}, with the prefix-cache affinity state of the process
     * (kept across reloads: pass the same one to the next configuration's chooser).
     *
     * @param loaded a validated configuration and its plans.
     * @param engine the engine whose server signals it reads.
     * @param prefixBackends the process's per-backend prefix state.
     * @return a chooser for the plans' model handles, reading API keys from the process's environment.
     */
    public static BackendChooser following(final LoadedConfig loaded, final MultiFactorEngine engine,
        final PrefixBackends prefixBackends)
    {
        return of(loaded.plans(), loaded.config().models(), System.getenv()::get, engine.serverSignals(),
            engine.clock()::nanoTime, prefixBackends);
    }

    /**
     * As {@link #following(LoadedConfig, MultiFactorEngine, PrefixBackends)} with API keys looked up in
     * {@code environment}: what a simulator drives, over an engine on its simulated clock whose server signals its
     * simulated scrapes feed.
     *
     * @param loaded a validated configuration and its plans.
     * @param environment where {@code api_key_env} variables are looked up.
     * @param engine the engine whose server signals it reads, on that engine's clock.
     * @param prefixBackends the per-backend prefix state.
     * @return a chooser for the plans' model handles.
     */
    public static BackendChooser following(final LoadedConfig loaded, final Map<String, String> environment,
        final MultiFactorEngine engine, final PrefixBackends prefixBackends)
    {
        return of(loaded.plans(), loaded.config().models(), environment::get, engine.serverSignals(),
            engine.clock()::nanoTime, prefixBackends);
    }

    private static BackendChooser of(
        final Plans plans, final List<ModelConfig> models, final Function<String, String> environment,
        final ServerSignals serverSignalsOrNull, final LongSupplier clockNsOrNull, final PrefixBackends prefixBackends)
    {
        final String[] names = new String[plans.modelCapacity()];
        final Backend[][] backends = new Backend[plans.modelCapacity()][];
        final double[][] shares = new double[plans.modelCapacity()][];
        final PrefixAffinityConfig[] affinities = new PrefixAffinityConfig[plans.modelCapacity()];
        final BackendPrefix[][] prefixOf = new BackendPrefix[plans.modelCapacity()][];
        final double[][] weights = new double[plans.modelCapacity()][];
        final BackendRules rules = new BackendRules(plans.modelCapacity(),
            clockNsOrNull != null ? clockNsOrNull : System::nanoTime);
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
            final double[] weight = new double[refs.size()];
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
                weight[i] = ref.weight();
            }
            if (cumulative.length > 0)
            {
                cumulative[cumulative.length - 1] = 1.0;
            }
            backends[id] = list;
            shares[id] = cumulative;
            weights[id] = weight;
            names[id] = model.name();
            final PrefixAffinityConfig affinity = model.prefixAffinity();
            if (model.backendChoice().isSet() && list.length > 0)
            {
                // backend_choice replaces the default choice, prefix-cache affinity included.
                rules.model(id, model.backendChoice(), list);
                if (isLlmd(model.backendChoice().type()))
                {
                    // llm-d's rules read each backend's prefix index (sized by prefix_affinity when the model has it).
                    final int blockBytes = affinity.enabled() ? affinity.blockBytes() :
                        PrefixAffinityConfig.DEFAULT_BLOCK_BYTES;
                    final int capacity = affinity.enabled() ? affinity.capacityBlocks() :
                        PrefixAffinityConfig.DEFAULT_CAPACITY_BLOCKS;
                    prefixOf[id] = new BackendPrefix[list.length];
                    for (int i = 0; i < list.length; i++)
                    {
                        prefixOf[id][i] = prefixBackends.backend(RequestLifecycle.backendKey(list[i]), blockBytes,
                            capacity);
                    }
                }
            }
            else if (affinity.enabled() && list.length > 0)
            {
                affinities[id] = affinity;
                prefixOf[id] = new BackendPrefix[list.length];
                for (int i = 0; i < list.length; i++)
                {
                    prefixOf[id][i] = prefixBackends.backend(
                        RequestLifecycle.backendKey(list[i]), affinity.blockBytes(), affinity.capacityBlocks());
                }
            }
        }
        return new BackendChooser(backends, shares, problems, names, serverSignalsOrNull, clockNsOrNull, affinities,
            prefixOf, weights, rules);
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
        if (rules.has(modelId))
        {
            return list[rules.choose(modelId, picks[modelId], cumulativeShares[modelId], false, 0L, null)];
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

    /** @return whether some model has {@code prefix_affinity} (then requests should capture their prompt bytes). */
    public boolean followsPrefixes()
    {
        return followsPrefixes;
    }

    /**
     * @param modelId a model handle.
     * @return whether that model's backends are chosen by prefix-cache affinity.
     */
    public boolean followsPrefixes(final int modelId)
    {
        return modelId >= 0 && modelId < affinities.length && affinities[modelId] != null;
    }

    /**
     * @param modelId a model handle.
     * @return whether the model has a {@code backend_choice} rule, whose choices need an attempt's
     *     {@link PrefixTicket} (its in-flight count, TTFT and session key) through
     *     {@link #choose(int, PromptBlocks, long, PrefixTicket)}.
     */
    public boolean followsRule(final int modelId)
    {
        return modelId >= 0 && modelId < affinities.length && rules.has(modelId);
    }

    /**
     * Chooses a backend of the model for a request with this prompt: by prefix-cache affinity when the model has
     * {@code prefix_affinity} (see the class comment), else as {@link #choose(int)}. With affinity, the choice is
     * counted on the chosen backend (its result, the prompt's blocks and those its index held) and the ticket is
     * opened: the request's uncached tokens join the backend's wait until the ticket is answered or abandoned
     * ({@link RequestLifecycle} does both). Allocates nothing once the prompt's arrays have grown.
     *
     * @param modelId a model handle of the plans this chooser was built for.
     * @param prompt the request's prompt ({@link OpenAiRequest#prompt()}, captured).
     * @param promptTokens the prompt token estimate ({@link OpenAiRequest#promptTokens()}), for the wait.
     * @param ticket the attempt's ticket ({@link RequestLifecycle#prefixTicket()}).
     * @return the backend, or {@code null} when the model has none (or the handle is unknown).
     */
    public Backend choose(final int modelId, final PromptBlocks prompt, final long promptTokens, final PrefixTicket ticket)
    {
        if (rules.has(modelId))
        {
            final Backend[] list = backends[modelId];
            if (isLlmd(rules.type(modelId)) && prefixOf[modelId] != null)
            {
                return list[chooseLlmd(modelId, prompt, promptTokens, ticket)];
            }
            return list[rules.choose(modelId, picks[modelId], cumulativeShares[modelId], ticket.hasSession(),
                ticket.sessionKey(), ticket)];
        }
        if (!followsPrefixes(modelId))
        {
            return choose(modelId);
        }
        final Backend[] list = backends[modelId];
        final PrefixAffinityConfig affinity = affinities[modelId];
        final int n = prompt.cut(affinity.blockBytes());
        final long decision = decide(modelId, prompt.hashes(), n, picks[modelId].getAndIncrement());
        final int chosen = (int)(decision & 0xFFFF);
        final int result = (int)((decision >>> 16) & 0xFF);
        final int matched = (int)(decision >>> 32);
        final double share = n == 0 ? 0.0 : (double)matched / n;
        final BackendPrefix backend = prefixOf[modelId][chosen];
        backend.count(result, n, matched);
        final long uncached = (long)Math.ceil(Math.max(0, promptTokens) * (1.0 - share));
        ticket.open(backend, prompt, n, uncached, result, share);
        return list[chosen];
    }

    // backend_choice: llmd_weighted or llmd_sticky, by LlmdBackendRules over the backends' prefix indexes and
    // scraped load; counted and ticketed as 4.7's choice is, so the chosen backend's index fills when it answers.
    private int chooseLlmd(final int modelId, final PromptBlocks prompt, final long promptTokens, final PrefixTicket ticket)
    {
        final BackendPrefix[] prefixes = prefixOf[modelId];
        final int count = prefixes.length;
        final LlmdBackendRules.Scratch scratch = LLMD_SCRATCH.get().ensure(count);
        final LlmdParameters parameters = rules.parameters(modelId).llmd();
        final long bits = ThreadLocalRandom.current().nextLong();
        final int chosen;
        if (rules.type(modelId) == AlgorithmType.LLMD_WEIGHTED)
        {
            serverLoad(modelId, scratch.waiting(), scratch.kvCacheUse());
            chosen = LlmdBackendRules.weighted(parameters, count, prefixes, prompt, scratch, bits);
        }
        else
        {
            chosen = LlmdBackendRules.sticky(parameters, count, prefixes, prompt, promptTokens, scratch, bits);
        }
        final int n = prompt.cut(prefixes[0].blockBytes());
        final double share = scratch.match()[chosen];
        final int matched = (int)Math.round(share * n);
        final int result = matched > 0 ? PrefixTicket.WARM : PrefixTicket.COLD;
        prefixes[chosen].count(result, n, matched);
        ticket.open(prefixes[chosen], prompt, n, (long)Math.ceil(Math.max(0, promptTokens) * (1.0 - share)), result,
            share);
        return chosen;
    }

    private static boolean isLlmd(final int type)
    {
        return type == AlgorithmType.LLMD_WEIGHTED || type == AlgorithmType.LLMD_STICKY;
    }

    /**
     * P(m) of the {@code prefix} factor: the share of the prompt's leading blocks held by the backend that
     * {@link #choose(int, PromptBlocks, long, PrefixTicket)} would pick for this model now (nothing is counted or
     * taken). Allocates nothing once the prompt's arrays have grown.
     *
     * @param modelId a model handle.
     * @param prompt the request's captured prompt.
     * @return the share, 0..1 (0 for a prompt shorter than one block), or NaN when the model has no
     *     {@code prefix_affinity} (the factor is then missing).
     */
    public double shareFor(final int modelId, final PromptBlocks prompt)
    {
        if (!followsPrefixes(modelId))
        {
            return Double.NaN;
        }
        final int n = prompt.cut(affinities[modelId].blockBytes());
        if (n == 0)
        {
            return 0.0;
        }
        final long decision = decide(modelId, prompt.hashes(), n, picks[modelId].get());
        return (double)(decision >>> 32) / n;
    }

    /**
     * Supplies P(m) of the {@code prefix} factor for each candidate of a decision ({@link #shareFor}) to the request
     * that selects among them: the one home of that loop, for the gateway's {@link RequestLifecycle} and the simulator.
     * A candidate without {@code prefix_affinity} gets nothing (its factor is missing). Allocates nothing once the
     * prompt's arrays have grown.
     *
     * @param plan the decision the request selects in.
     * @param prompt the request's captured prompt.
     * @param request the request, given each candidate's share by {@link Request#prefixMatch(int, double)}.
     */
    public void prefixMatches(final DecisionPlan plan, final PromptBlocks prompt, final Request request)
    {
        for (int i = 0; i < plan.candidateCount(); i++)
        {
            final int candidate = plan.candidateModelId(i);
            final double share = shareFor(candidate, prompt);
            if (share == share)
            {
                request.prefixMatch(candidate, share);
            }
        }
    }

    // 4.7's rule. Returns the chosen index (bits 0-15), the result (16-23) and the chosen backend's matched blocks
    // (32-63). Two passes over the backends, no scratch: the first finds the smallest pending count and W, the second
    // the weighted pick among those whose pending count is that smallest (read again; a count that moved meanwhile
    // leaves the set, and an empty set falls back to the first smallest of the first pass).
    private long decide(final int modelId, final long[] hashes, final int n, final long pickNumber)
    {
        final BackendPrefix[] prefixes = prefixOf[modelId];
        final PrefixAffinityConfig affinity = affinities[modelId];
        final double minMatch = affinity.minMatch();
        final double[] weight = weights[modelId];
        long smallest = Long.MAX_VALUE;
        int firstSmallest = 0;
        int warm = -1;
        int warmMatched = -1;
        long warmPending = 0;
        // The weight of the warm backends that tie with W on match and wait (W's included), and how many there are.
        double warmTiedWeight = 0;
        int warmTied = 0;
        for (int i = 0; i < prefixes.length; i++)
        {
            final long pending = Math.max(0, prefixes[i].pendingTokens());
            if (pending < smallest)
            {
                smallest = pending;
                firstSmallest = i;
            }
            final int matched = n == 0 ? 0 : prefixes[i].index().matchedBlocks(hashes, n);
            final double share = n == 0 ? 0.0 : (double)matched / n;
            if (share >= minMatch)
            {
                if (matched > warmMatched || matched == warmMatched && pending < warmPending)
                {
                    warm = i;
                    warmMatched = matched;
                    warmPending = pending;
                    warmTiedWeight = weight[i];
                    warmTied = 1;
                }
                else if (matched == warmMatched && pending == warmPending)
                {
                    warmTiedWeight += weight[i];
                    warmTied++;
                }
            }
        }
        double tiedWeight = 0;
        for (int i = 0; i < prefixes.length; i++)
        {
            if (Math.max(0, prefixes[i].pendingTokens()) == smallest)
            {
                tiedWeight += weight[i];
            }
        }
        int cold = firstSmallest;
        if (tiedWeight > 0)
        {
            final double target = (((pickNumber * GOLDEN_GAMMA) >>> 11) * 0x1.0p-53) * tiedWeight;
            double sum = 0;
            for (int i = 0; i < prefixes.length; i++)
            {
                if (Math.max(0, prefixes[i].pendingTokens()) == smallest)
                {
                    sum += weight[i];
                    cold = i;
                    if (target < sum)
                    {
                        break;
                    }
                }
            }
        }
        if (warm < 0)
        {
            return pack(cold, PrefixTicket.COLD, n == 0 ? 0 : prefixes[cold].index().matchedBlocks(hashes, n));
        }
        if (warm != cold && warmTied > 1)
        {
            // W's last tie: a warm backend with W's match and wait is as good as W. When C is one of them it is taken
            // (C is the weighted pick among the smallest waits), else the weighted pick among them, so that a hot
            // prefix cached on several backends spreads over them instead of piling onto the first in file order.
            final int coldMatched = warmPending != smallest ? -1 :
                n == 0 ? 0 : prefixes[cold].index().matchedBlocks(hashes, n);
            if (coldMatched == warmMatched)
            {
                warm = cold;
            }
            else if (warmTiedWeight > 0)
            {
                warm = weightedWarmTie(prefixes, weight, hashes, n, warm, warmMatched, warmPending,
                    warmTiedWeight, pickNumber);
            }
        }
        final double penaltyTokens = affinity.maxTtftPenaltyNs() * 1e-9 * affinity.prefillTokensPerS();
        if (warm == cold || warmPending - smallest <= penaltyTokens)
        {
            return pack(warm, PrefixTicket.WARM, warmMatched);
        }
        return pack(cold, PrefixTicket.RELEASE, n == 0 ? 0 : prefixes[cold].index().matchedBlocks(hashes, n));
    }

    // The weighted pick among the warm backends that tie with W (from W on: none before it ties), drawn from the
    // pick number's other half so that it does not follow C's draw. Reads the indexes again; a backend whose match or
    // wait moved meanwhile leaves the set, and W stays when the draw finds none.
    private static int weightedWarmTie(final BackendPrefix[] prefixes, final double[] weight, final long[] hashes,
        final int n, final int warm, final int warmMatched, final long warmPending, final double tiedWeight,
        final long pickNumber)
    {
        final double target = ((Long.rotateLeft(pickNumber * GOLDEN_GAMMA, 32) >>> 11) * 0x1.0p-53) * tiedWeight;
        double sum = 0;
        for (int i = warm; i < prefixes.length; i++)
        {
            if (Math.max(0, prefixes[i].pendingTokens()) == warmPending &&
                (n == 0 ? 0 : prefixes[i].index().matchedBlocks(hashes, n)) == warmMatched)
            {
                sum += weight[i];
                if (target < sum)
                {
                    return i;
                }
            }
        }
        return warm;
    }

    private static long pack(final int index, final int result, final int matched)
    {
        return ((long)matched << 32) | ((long)result << 16) | index;
    }

    /**
     * @param modelId a model handle.
     * @return that model's per-backend prefix state in file order, or {@code null} without {@code prefix_affinity}.
     */
    public List<BackendPrefix> prefixBackends(final int modelId)
    {
        return followsPrefixes(modelId) ? List.of(prefixOf[modelId]) : null;
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

    /**
     * @param modelId a model handle.
     * @return what its {@code backend_choice} rule reads of each backend, in file order, or {@code null} without one.
     */
    public List<BackendSignals> backendSignals(final int modelId)
    {
        return rules.signals(modelId);
    }

    /** @return what the configuration leaves unusable (a model without backends, an API key variable unset). */
    public List<String> problems()
    {
        return problems;
    }

    /**
     * Each backend's own server signals now, for the backend-level rules that read them ({@link LlmdBackendRules}):
     * its waiting requests and KV-cache use while its scrape is fresh (4.3), NaN otherwise (not scraped, stale, or a
     * chooser without server signals). Map lookups and table reads only: allocates nothing.
     *
     * @param modelId a model handle.
     * @param waitingOut per backend in file order, its waiting requests; at least as long as the model's backends.
     * @param kvCacheUseOut per backend in file order, its KV-cache use 0..1.
     * @return the model's backend count (0 for an unknown handle).
     */
    public int serverLoad(final int modelId, final double[] waitingOut, final double[] kvCacheUseOut)
    {
        if (modelId < 0 || modelId >= backends.length || backends[modelId] == null)
        {
            return 0;
        }
        final String[] keys = backendKeys[modelId];
        final ServerLoadTable tableOrNull = serverSignalsOrNull == null ? null : serverSignalsOrNull.table();
        final String name = modelNames[modelId];
        final long nowNs = tableOrNull == null ? 0L : clockNsOrNull.getAsLong();
        for (int i = 0; i < keys.length; i++)
        {
            final int b = tableOrNull == null ? ServerLoadTable.NOT_FOUND : tableOrNull.backendIndex(name, keys[i]);
            final boolean fresh = b != ServerLoadTable.NOT_FOUND && tableOrNull.isFresh(b, nowNs);
            waitingOut[i] = fresh ? tableOrNull.waiting(b) : Double.NaN;
            kvCacheUseOut[i] = fresh ? tableOrNull.kvUse(b) : Double.NaN;
        }
        return keys.length;
    }
}
