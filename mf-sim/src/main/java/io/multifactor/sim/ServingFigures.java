package io.multifactor.sim;

import java.util.ArrayList;
import java.util.List;

/**
 * What the simulated servers of the models with {@link BackendServers} measured: per server its model, name, requests,
 * prefix-cache queries and hits (tokens, as vLLM counts them: every prompt token is queried once) and p50/p90 TTFT; and the same summed per model and overall. The prefix hit rate is hits / queries; input tokens per second are
 * the prompt tokens of the requests that got a place, over the run's duration. Per server, the hit rate and p90 TTFT
 * of each report interval too, in the order of the report's rows (a TTFT counted in the interval its request started).
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param durationS the run's simulated seconds.
 * @param servers one row per server, by model then backend order.
 */
public record ServingFigures(double durationS, List<Server> servers)
{
    /** No model was simulated server by server. */
    public static final ServingFigures NONE = new ServingFigures(1.0, List.of());

    /**
     * One server's figures.
     *
     * @param model its model.
     * @param backend its backend's name.
     * @param requests requests that got a place.
     * @param queriedTokens prompt tokens looked up.
     * @param hitTokens prompt tokens found cached.
     * @param ttftP50Ms median TTFT of its requests (queue wait included), NaN without one.
     * @param ttftP90Ms p90 TTFT, NaN without one.
     * @param intervalHitRates per report interval, its hit rate (NaN without a query); not copied.
     * @param intervalTtftP90Ms per report interval, its p90 TTFT in milliseconds (NaN without one); not copied.
     */
    public record Server(String model, String backend, long requests, long queriedTokens, long hitTokens,
        double ttftP50Ms, double ttftP90Ms, double[] intervalHitRates, double[] intervalTtftP90Ms)
    {
        /** @return hits / queries, NaN without a query. */
        public double hitRate()
        {
            return queriedTokens == 0 ? Double.NaN : (double)hitTokens / queriedTokens;
        }
    }

    /**
     * @param durationS duration.
     * @param servers rows; copied.
     */
    public ServingFigures
    {
        servers = List.copyOf(servers);
    }

    /** @return whether any model was simulated server by server. */
    public boolean any()
    {
        return !servers.isEmpty();
    }

    /**
     * @param modelOrNull a model, or null for every server.
     * @return the prefix hit rate of its servers (hits / queries in tokens), NaN without a query.
     */
    public double hitRate(final String modelOrNull)
    {
        long queried = 0;
        long hit = 0;
        for (final Server server : servers)
        {
            if (modelOrNull == null || server.model().equals(modelOrNull))
            {
                queried += server.queriedTokens();
                hit += server.hitTokens();
            }
        }
        return queried == 0 ? Double.NaN : (double)hit / queried;
    }

    /**
     * @param modelOrNull a model, or null for every server.
     * @return prompt tokens per simulated second that its servers took in.
     */
    public double inputTokensPerS(final String modelOrNull)
    {
        long tokens = 0;
        for (final Server server : servers)
        {
            if (modelOrNull == null || server.model().equals(modelOrNull))
            {
                tokens += server.queriedTokens();
            }
        }
        return tokens / durationS;
    }

    /** @return the models that have servers, in row order. */
    public List<String> models()
    {
        final List<String> names = new ArrayList<>();
        for (final Server server : servers)
        {
            if (!names.contains(server.model()))
            {
                names.add(server.model());
            }
        }
        return names;
    }
}
