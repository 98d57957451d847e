package io.multifactor.sim;

import io.multifactor.sim.prompt.PromptWorkload;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The traffic of one simulation run: how long it lasts, how often it reports, its seed, the Poisson arrival rate, how
 * arrivals spread over the decisions, request sizes, and how each model behaves.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param durationS simulated duration in seconds; positive.
 * @param intervalS length of one report interval in simulated seconds; positive.
 * @param seed seed of every random draw: the same seed gives the same run.
 * @param arrivalsPerS mean arrivals per simulated second over all decisions; positive.
 * @param promptTokens prompt tokens of every request (for cost); at least 0.
 * @param outputTokensMean mean output tokens per request; at least 1.
 * @param outputTokensSigma shape of the lognormal output length; at least 0.
 * @param decisionShares relative share of arrivals per decision name, in order; empty means equal shares over every
 *     decision of the configuration.
 * @param models behaviour per model name, in order.
 * @param tokensInRequest whether each request carries its token counts to the selection ({@code prompt_tokens} and
 *     its drawn output length as {@code max_output_tokens}), pricing the candidates by its own mix instead of the
 *     decision's {@code cost_mix}.
 * @param sizes long prompts and the token load of a request slot ({@link RequestSizes#NONE}: none).
 * @param prompts prompts that share prefixes: sessions and shared system prompts ({@link PromptWorkload#NONE}: none);
 *     when active, arrivals follow its sessions and each request's prompt tokens are its prompt's.
 * @param servers per model name, the servers behind it when the simulator models its backends one by one (empty:
 *     none).
 * @param bursts on/off arrivals ({@link ArrivalBursts#NONE}: plain Poisson arrivals).
 */
public record SimulationProfile(
    double durationS,
    double intervalS,
    long seed,
    double arrivalsPerS,
    int promptTokens,
    double outputTokensMean,
    double outputTokensSigma,
    Map<String, Double> decisionShares,
    Map<String, ModelBehaviour> models,
    boolean tokensInRequest,
    RequestSizes sizes,
    PromptWorkload prompts,
    Map<String, BackendServers> servers,
    ArrivalBursts bursts)
{
    /**
     * Checks ranges and freezes the maps, keeping their order.
     *
     * @throws IllegalArgumentException when a value is out of range.
     */
    public SimulationProfile
    {
        requirePositive("duration_s", durationS);
        requirePositive("interval_s", intervalS);
        requirePositive("arrivals_per_s", arrivalsPerS);
        if (promptTokens < 0)
        {
            throw new IllegalArgumentException("prompt_tokens must be >= 0: " + promptTokens);
        }
        if (!(outputTokensMean >= 1.0 && outputTokensMean < Double.POSITIVE_INFINITY))
        {
            throw new IllegalArgumentException("output_tokens.mean must be >= 1: " + outputTokensMean);
        }
        if (!(outputTokensSigma >= 0.0 && outputTokensSigma <= 3.0))
        {
            throw new IllegalArgumentException("output_tokens.sigma must be in [0, 3]: " + outputTokensSigma);
        }
        for (final Map.Entry<String, Double> share : decisionShares.entrySet())
        {
            final double value = share.getValue();
            if (!(value >= 0.0 && value < Double.POSITIVE_INFINITY))
            {
                throw new IllegalArgumentException("decision share must be finite and >= 0: " + share.getKey() + "=" + value);
            }
        }
        if (sizes == null)
        {
            sizes = RequestSizes.NONE;
        }
        decisionShares = Collections.unmodifiableMap(new LinkedHashMap<>(decisionShares));
        models = Collections.unmodifiableMap(new LinkedHashMap<>(models));
        prompts = prompts == null ? PromptWorkload.NONE : prompts;
        servers = servers == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(servers));
        bursts = bursts == null ? ArrivalBursts.NONE : bursts;
        if (bursts.active() && prompts.active())
        {
            throw new IllegalArgumentException("bursts apply to Poisson arrivals: a profile with prompts follows its " +
                "sessions' arrivals instead");
        }
    }

    /**
     * A profile with Poisson arrivals (no bursts).
     *
     * @param durationS simulated seconds.
     * @param intervalS report interval.
     * @param seed the seed.
     * @param arrivalsPerS Poisson arrival rate.
     * @param promptTokens prompt tokens per request.
     * @param outputTokensMean mean output length.
     * @param outputTokensSigma spread of the output length.
     * @param decisionShares share of arrivals per decision.
     * @param models behaviour per model.
     * @param tokensInRequest whether requests carry their token counts.
     * @param sizes long prompts and the token load of a request slot.
     * @param prompts prompts that share prefixes.
     * @param servers the servers behind each model simulated server by server.
     */
    public SimulationProfile(
        final double durationS,
        final double intervalS,
        final long seed,
        final double arrivalsPerS,
        final int promptTokens,
        final double outputTokensMean,
        final double outputTokensSigma,
        final Map<String, Double> decisionShares,
        final Map<String, ModelBehaviour> models,
        final boolean tokensInRequest,
        final RequestSizes sizes,
        final PromptWorkload prompts,
        final Map<String, BackendServers> servers)
    {
        this(durationS, intervalS, seed, arrivalsPerS, promptTokens, outputTokensMean, outputTokensSigma, decisionShares,
            models, tokensInRequest, sizes, prompts, servers, ArrivalBursts.NONE);
    }

    /**
     * A profile without shared prefixes or servers modelled one by one.
     *
     * @param durationS simulated seconds.
     * @param intervalS report interval.
     * @param seed the seed.
     * @param arrivalsPerS Poisson arrival rate.
     * @param promptTokens prompt tokens per request.
     * @param outputTokensMean mean output length.
     * @param outputTokensSigma spread of the output length.
     * @param decisionShares share of arrivals per decision.
     * @param models behaviour per model.
     * @param tokensInRequest whether requests carry their token counts.
     * @param sizes long prompts and the token load of a request slot.
     */
    public SimulationProfile(
        final double durationS,
        final double intervalS,
        final long seed,
        final double arrivalsPerS,
        final int promptTokens,
        final double outputTokensMean,
        final double outputTokensSigma,
        final Map<String, Double> decisionShares,
        final Map<String, ModelBehaviour> models,
        final boolean tokensInRequest,
        final RequestSizes sizes)
    {
        this(durationS, intervalS, seed, arrivalsPerS, promptTokens, outputTokensMean, outputTokensSigma, decisionShares,
            models, tokensInRequest, sizes, PromptWorkload.NONE, Map.of());
    }

    /**
     * A profile whose requests carry no token counts to the selection.
     *
     * @param durationS simulated duration in seconds.
     * @param intervalS report interval in simulated seconds.
     * @param seed seed of every random draw.
     * @param arrivalsPerS mean arrivals per simulated second.
     * @param promptTokens prompt tokens of every request.
     * @param outputTokensMean mean output tokens per request.
     * @param outputTokensSigma shape of the lognormal output length.
     * @param decisionShares relative share of arrivals per decision name.
     * @param models behaviour per model name.
     */
    public SimulationProfile(
        final double durationS,
        final double intervalS,
        final long seed,
        final double arrivalsPerS,
        final int promptTokens,
        final double outputTokensMean,
        final double outputTokensSigma,
        final Map<String, Double> decisionShares,
        final Map<String, ModelBehaviour> models)
    {
        this(durationS, intervalS, seed, arrivalsPerS, promptTokens, outputTokensMean, outputTokensSigma, decisionShares,
            models, false, RequestSizes.NONE);
    }

    /**
     * A profile whose prompts all have {@code promptTokens} and whose models slow down by requests in flight.
     *
     * @param durationS simulated seconds.
     * @param intervalS report interval.
     * @param seed the seed.
     * @param arrivalsPerS Poisson arrival rate.
     * @param promptTokens prompt tokens per request.
     * @param outputTokensMean mean output length.
     * @param outputTokensSigma spread of the output length.
     * @param decisionShares share of arrivals per decision.
     * @param models behaviour per model.
     * @param tokensInRequest whether requests carry their token counts.
     */
    public SimulationProfile(
        final double durationS,
        final double intervalS,
        final long seed,
        final double arrivalsPerS,
        final int promptTokens,
        final double outputTokensMean,
        final double outputTokensSigma,
        final Map<String, Double> decisionShares,
        final Map<String, ModelBehaviour> models,
        final boolean tokensInRequest)
    {
        this(durationS, intervalS, seed, arrivalsPerS, promptTokens, outputTokensMean, outputTokensSigma, decisionShares,
            models, tokensInRequest, RequestSizes.NONE);
    }

    /**
     * @param durationS the new duration in simulated seconds.
     * @return this profile with another duration.
     */
    public SimulationProfile withDurationS(final double durationS)
    {
        return new SimulationProfile(durationS, intervalS, seed, arrivalsPerS, promptTokens, outputTokensMean,
            outputTokensSigma, decisionShares, models, tokensInRequest, sizes, prompts, servers, bursts);
    }

    /**
     * @param seed the new seed.
     * @return this profile with another seed.
     */
    public SimulationProfile withSeed(final long seed)
    {
        return new SimulationProfile(durationS, intervalS, seed, arrivalsPerS, promptTokens, outputTokensMean,
            outputTokensSigma, decisionShares, models, tokensInRequest, sizes, prompts, servers, bursts);
    }

    /**
     * @param intervalS the new report interval in simulated seconds.
     * @return this profile with another report interval.
     */
    public SimulationProfile withIntervalS(final double intervalS)
    {
        return new SimulationProfile(durationS, intervalS, seed, arrivalsPerS, promptTokens, outputTokensMean,
            outputTokensSigma, decisionShares, models, tokensInRequest, sizes, prompts, servers, bursts);
    }

    /**
     * @param behaviour the new behaviour of the model it names.
     * @return this profile with that model's behaviour replaced (or added).
     */
    public SimulationProfile withModel(final ModelBehaviour behaviour)
    {
        final Map<String, ModelBehaviour> next = new LinkedHashMap<>(models);
        next.put(behaviour.name(), behaviour);
        return new SimulationProfile(durationS, intervalS, seed, arrivalsPerS, promptTokens, outputTokensMean,
            outputTokensSigma, decisionShares, next, tokensInRequest, sizes, prompts, servers, bursts);
    }

    /**
     * @param arrivalsPerS the new arrival rate, requests per simulated second (the load knee's bisection varies it).
     * @return this profile with another arrival rate.
     */
    public SimulationProfile withArrivalsPerS(final double arrivalsPerS)
    {
        return new SimulationProfile(durationS, intervalS, seed, arrivalsPerS, promptTokens, outputTokensMean,
            outputTokensSigma, decisionShares, models, tokensInRequest, sizes, prompts, servers, bursts);
    }

    /**
     * @param bursts the new arrival pattern.
     * @return this profile with on/off arrivals (or plain Poisson ones with {@link ArrivalBursts#NONE}).
     */
    public SimulationProfile withBursts(final ArrivalBursts bursts)
    {
        return new SimulationProfile(durationS, intervalS, seed, arrivalsPerS, promptTokens, outputTokensMean,
            outputTokensSigma, decisionShares, models, tokensInRequest, sizes, prompts, servers, bursts);
    }

    private static void requirePositive(final String what, final double value)
    {
        if (!(value > 0.0 && value < Double.POSITIVE_INFINITY))
        {
            throw new IllegalArgumentException(what + " must be finite and > 0: " + value);
        }
    }
}
