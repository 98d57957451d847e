package io.multifactor.serving;

import io.multifactor.config.model.BackendChoiceConfig;
import io.multifactor.kernel.plan.AlgorithmType;
import io.multifactor.kernel.plan.PeerParameters;
import io.multifactor.kernel.scoring.LiteLlmLatency;
import io.multifactor.kernel.scoring.ProdstackSession;

import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The {@code backend_choice} rules: for a model that sets one, the rule of that {@code algorithm.type} among the
 * model's backends, as the same type chooses among a decision's candidates (the peers pick endpoints among the
 * deployments of one model group). Each backend's {@link BackendSignals} hold what the rules read:
 * <ul>
 *   <li>{@code round_robin}: the backends in turn (the model's pick counter);</li>
 *   <li>{@code random}: one uniformly at random;</li>
 *   <li>{@code litellm_simple_shuffle}: one at random weighted by {@code weight} (LiteLLM's shuffle by deployment
 *       weight);</li>
 *   <li>{@code least_inflight}, {@code litellm_least_busy}: the fewest attempts this process sent and not yet ended,
 *       ties to the earlier in file order; {@code aibrix_least_request}: the same, ties at random;</li>
 *   <li>{@code lowest_latency}: the lowest mean of its last TTFT samples within {@code ttl} (an unobserved backend,
 *       mean 0, first; ties to the earlier);</li>
 *   <li>{@code litellm_latency}: {@link LiteLlmLatency} over those means;</li>
 *   <li>{@code prodstack_session}: {@link ProdstackSession} over the backends' origins and their request rates over
 *       {@code request_stats_window}, with the request's session key.</li>
 * </ul>
 * {@code llmd_weighted} and {@code llmd_sticky} are chosen by {@link BackendChooser} over the backends' prefix indexes
 * ({@link LlmdBackendRules}); here, without a prompt, they draw as {@code litellm_simple_shuffle}. In-flight counts and TTFT samples come from attempts that carry a
 * {@link PrefixTicket} (the gateway's, ext_proc's and the frameworks'); a choice without one is counted in no
 * in-flight count. The state lives as long as the chooser (a reload starts it afresh).
 * <p>
 * This class is threadsafe: the per-model arrays are written once while the chooser is built, before it is shared;
 * a choice reads them and the backends' atomic state, and draws from the thread's own generator. A choice allocates
 * nothing once the calling thread's scratch array is large enough for the model's backends.
 */
final class BackendRules
{
    private static final ThreadLocal<double[]> SCRATCH = ThreadLocal.withInitial(BackendRules::newScratch);

    private final int[] types;
    private final PeerParameters[] parameters;
    private final BackendSignals[][] signals;
    private final long[][] nodeHashes;
    private final LongSupplier clockNs;

    BackendRules(final int modelCapacity, final LongSupplier clockNs)
    {
        this.types = new int[modelCapacity];
        java.util.Arrays.fill(types, BackendChoiceConfig.DEFAULT);
        this.parameters = new PeerParameters[modelCapacity];
        this.signals = new BackendSignals[modelCapacity][];
        this.nodeHashes = new long[modelCapacity][];
        this.clockNs = clockNs;
    }

    // While the chooser is built: the model's rule and a fresh state for each of its backends.
    void model(final int modelId, final BackendChoiceConfig choice, final Backend[] backends)
    {
        types[modelId] = choice.type();
        parameters[modelId] = choice.parameters();
        signals[modelId] = new BackendSignals[backends.length];
        nodeHashes[modelId] = new long[backends.length];
        for (int i = 0; i < backends.length; i++)
        {
            final BackendSignals backend = new BackendSignals(RequestLifecycle.backendKey(backends[i]),
                choice.parameters().requestStatsWindowNs(), clockNs);
            signals[modelId][i] = backend;
            nodeHashes[modelId][i] = backend.nodeHash();
        }
    }

    int type(final int modelId)
    {
        return types[modelId];
    }

    PeerParameters parameters(final int modelId)
    {
        return parameters[modelId];
    }

    boolean has(final int modelId)
    {
        return types[modelId] != BackendChoiceConfig.DEFAULT;
    }

    List<BackendSignals> signals(final int modelId)
    {
        return modelId >= 0 && modelId < signals.length && signals[modelId] != null ? List.of(signals[modelId]) : null;
    }

    /**
     * @param modelId a model with a rule ({@link #has}) and at least one backend.
     * @param picks the model's pick counter.
     * @param cumulative the backends' cumulative weight shares, the last 1.
     * @param hasKey whether the request carries a session key.
     * @param sessionKey the key.
     * @param ticketOrNull the attempt's ticket, which counts the chosen backend in until the attempt ends; or null.
     * @return the chosen backend's position in file order.
     */
    int choose(final int modelId, final AtomicLong picks, final double[] cumulative, final boolean hasKey,
        final long sessionKey, final PrefixTicket ticketOrNull)
    {
        final BackendSignals[] backends = signals[modelId];
        final int n = backends.length;
        final PeerParameters p = parameters[modelId];
        int chosen;
        switch (types[modelId])
        {
            case AlgorithmType.ROUND_ROBIN:
                chosen = (int)Long.remainderUnsigned(picks.getAndIncrement(), n);
                break;
            case AlgorithmType.RANDOM:
                chosen = ThreadLocalRandom.current().nextInt(n);
                break;
            case AlgorithmType.LEAST_INFLIGHT:
            case AlgorithmType.LITELLM_LEAST_BUSY:
                chosen = fewestInflight(backends, false);
                break;
            case AlgorithmType.AIBRIX_LEAST_REQUEST:
                chosen = fewestInflight(backends, true);
                break;
            case AlgorithmType.LOWEST_LATENCY:
                chosen = lowestMean(backends, p.ttlNs());
                break;
            case AlgorithmType.LITELLM_LATENCY:
            {
                final double[] means = scratch(n);
                final long nowNs = clockNs.getAsLong();
                for (int i = 0; i < n; i++)
                {
                    means[i] = backends[i].ttft().meanMs(nowNs, p.ttlNs());
                }
                chosen = LiteLlmLatency.choose(means, n, p.lowestLatencyBuffer(), ThreadLocalRandom.current().nextLong());
                break;
            }
            case AlgorithmType.PRODSTACK_SESSION:
            {
                final double[] qps = scratch(n);
                final long nowNs = clockNs.getAsLong();
                for (int i = 0; i < n; i++)
                {
                    qps[i] = backends[i].routed().everRouted() ? backends[i].routed().qps(nowNs) :
                        ProdstackSession.NEVER_ROUTED;
                }
                chosen = ProdstackSession.choose(hasKey, sessionKey, nodeHashes[modelId], qps, n);
                backends[chosen].routed().record(nowNs);
                break;
            }
            default:
                chosen = weightedDraw(cumulative);
                break;
        }
        if (ticketOrNull != null)
        {
            ticketOrNull.openRule(backends[chosen]);
        }
        return chosen;
    }

    // litellm_simple_shuffle: a uniform draw against the cumulative weight shares.
    private static int weightedDraw(final double[] cumulative)
    {
        final double u = ThreadLocalRandom.current().nextDouble();
        for (int i = 0; i < cumulative.length; i++)
        {
            if (u < cumulative[i])
            {
                return i;
            }
        }
        return cumulative.length - 1;
    }

    // The fewest in flight: the first of a tie, or one of the tied at random (AIBrix's least-request).
    private static int fewestInflight(final BackendSignals[] backends, final boolean randomTies)
    {
        long fewest = Long.MAX_VALUE;
        int first = 0;
        int tied = 0;
        for (int i = 0; i < backends.length; i++)
        {
            final long inflight = backends[i].inflight();
            if (inflight < fewest)
            {
                fewest = inflight;
                first = i;
                tied = 1;
            }
            else if (inflight == fewest)
            {
                tied++;
            }
        }
        if (!randomTies || tied <= 1)
        {
            return first;
        }
        int left = ThreadLocalRandom.current().nextInt(tied);
        for (int i = first; i < backends.length; i++)
        {
            if (backends[i].inflight() == fewest && left-- == 0)
            {
                return i;
            }
        }
        return first;
    }

    // lowest_latency: the lowest mean TTFT within ttl (0 for an unobserved backend), ties to the earlier.
    private int lowestMean(final BackendSignals[] backends, final long ttlNs)
    {
        final long nowNs = clockNs.getAsLong();
        double lowest = Double.POSITIVE_INFINITY;
        int chosen = 0;
        for (int i = 0; i < backends.length; i++)
        {
            final double mean = backends[i].ttft().meanMs(nowNs, ttlNs);
            if (mean < lowest)
            {
                lowest = mean;
                chosen = i;
            }
        }
        return chosen;
    }

    private static double[] scratch(final int n)
    {
        final double[] kept = SCRATCH.get();
        if (kept.length >= n)
        {
            return kept;
        }
        final double[] grown = new double[Math.max(n, kept.length * 2)];
        SCRATCH.set(grown);
        return grown;
    }

    private static double[] newScratch()
    {
        return new double[16];
    }
}
