package io.multifactor.sim.load;

import io.multifactor.servers.PrometheusTextParser;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The model servers' own prefix-cache counters, summed over servers: vLLM's {@code vllm:prefix_cache_queries_total}
 * and {@code vllm:prefix_cache_hits_total} (prompt tokens looked up and found cached), read from each server's
 * {@code /metrics} with mf-servers' Prometheus parser. A load run reads them before and after; the difference gives
 * the run's prefix hit rate, hits / queries.
 * <p>
 * Instances are immutable and threadsafe; {@link #read} blocks the calling thread (about one request per server).
 *
 * @param serversReporting servers whose page had both counters.
 * @param queriedTokens prompt tokens looked up.
 * @param hitTokens prompt tokens found cached.
 */
public record PrefixCacheCounters(int serversReporting, double queriedTokens, double hitTokens)
{
    /** The query counter's name. */
    public static final String QUERIES = "vllm:prefix_cache_queries_total";
    /** The hit counter's name. */
    public static final String HITS = "vllm:prefix_cache_hits_total";

    private static final int MAX_PAGE_BYTES = 4 << 20;

    /**
     * Reads each server's {@code /metrics} once; a server that does not answer 200 within 5 s, or whose page lacks
     * either counter, counts as not reporting.
     *
     * @param servers base URLs of the servers ({@code http://host:port}; a path is ignored: {@code /metrics} is at the
     *     root, as vLLM serves it).
     * @return the sums.
     */
    public static PrefixCacheCounters read(final List<URI> servers)
    {
        final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        final PrometheusTextParser parser = new PrometheusTextParser(new String[] { QUERIES, HITS },
            new double[] { Double.MAX_VALUE, Double.MAX_VALUE });
        int reporting = 0;
        double queried = 0.0;
        double hit = 0.0;
        for (final URI server : servers)
        {
            final byte[] page = page(http, server.resolve("/metrics"));
            if (page == null)
            {
                continue;
            }
            parser.parse(page, 0, page.length);
            if (parser.seriesCount(0) > 0 && parser.seriesCount(1) > 0)
            {
                reporting++;
                queried += parser.sum(0);
                hit += parser.sum(1);
            }
        }
        return new PrefixCacheCounters(reporting, queried, hit);
    }

    private static byte[] page(final HttpClient http, final URI metrics)
    {
        try
        {
            final HttpResponse<byte[]> response = http.send(HttpRequest.newBuilder(metrics)
                .timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.ofByteArray());
            return response.statusCode() == 200 && response.body().length <= MAX_PAGE_BYTES ? response.body() : null;
        }
        catch (final IOException | IllegalArgumentException ex)
        {
            return null;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /**
     * @param before the counters read before the run.
     * @return what the run added (the servers reporting now).
     */
    public PrefixCacheCounters since(final PrefixCacheCounters before)
    {
        return new PrefixCacheCounters(serversReporting, queriedTokens - before.queriedTokens,
            hitTokens - before.hitTokens);
    }

    /** @return hits / queries, NaN when nothing was queried. */
    public double hitRate()
    {
        return queriedTokens > 0.0 ? hitTokens / queriedTokens : Double.NaN;
    }

    /** @return one line for a report: the hit rate and its counts, or why there is none. */
    public String line()
    {
        if (serversReporting == 0)
        {
            return "prefix cache: the servers report no " + QUERIES + " / " + HITS;
        }
        return String.format(Locale.ROOT, "prefix cache hit rate: %.1f%% (%.0f of %.0f prompt tokens, %d %s)",
            100.0 * hitRate(), hitTokens, queriedTokens, serversReporting, serversReporting == 1 ? "server" : "servers");
    }
}
