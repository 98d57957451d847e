package io.multifactor.sim;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One simulated model server of {@link BackendServers}: its places, its queue, its LRU of prompt block hashes and its
 * counters (vLLM's prefix-cache queries and hits, in tokens).
 * <p>
 * This class is not threadsafe: the event loop owns it.
 */
final class SimulatedServer
{
    final String name;
    /** Its backend's origin ({@code http://host:port}), the key of its scraped signals. */
    final String key;
    final BackendServers shape;
    final ArrayDeque<EventLoop.Queued> waiting = new ArrayDeque<>();
    final SampleBuffer ttft = new SampleBuffer();
    private final SampleBuffer intervalTtft = new SampleBuffer();
    private long intervalQueried;
    private long intervalHits;
    private double[] intervalHitRates = new double[16];
    private double[] intervalTtftP90Ms = new double[16];
    private int intervals;
    int running;
    long requests;
    long queriedTokens;
    long hitTokens;
    private final LinkedHashMap<Long, Boolean> blocks;

    SimulatedServer(final String name, final String key, final BackendServers shape)
    {
        this.name = name;
        this.key = key;
        this.shape = shape;
        final int capacity = shape.gpuBlocks();
        this.blocks = new LinkedHashMap<>(16, 0.75f, true)
        {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(final Map.Entry<Long, Boolean> eldest)
            {
                return size() > capacity;
            }
        };
    }

    /**
     * Looks a prompt up (its leading blocks found, up to the first miss, are hits), then caches all its blocks and
     * counts the query.
     *
     * @param hashes the prompt's chained block hashes at this server's block size.
     * @param promptTokens the prompt's tokens.
     * @return its tokens found cached.
     */
    long admit(final long[] hashes, final long promptTokens)
    {
        int leading = 0;
        while (leading < hashes.length && blocks.containsKey(hashes[leading]))
        {
            leading++;
        }
        for (final long hash : hashes)
        {
            blocks.put(hash, Boolean.TRUE);
        }
        final long hit = Math.min(promptTokens, (long)leading * shape.blockTokens());
        requests++;
        queriedTokens += promptTokens;
        hitTokens += hit;
        intervalQueried += promptTokens;
        intervalHits += hit;
        return hit;
    }

    /** @param ttftMicros a request's TTFT, queue wait included. */
    void ttft(final long ttftMicros)
    {
        ttft.add(ttftMicros);
        intervalTtft.add(ttftMicros);
    }

    /** Closes a report interval: keeps its hit rate and p90 TTFT (NaN when it had none), starts the next. */
    void closeInterval()
    {
        if (intervals == intervalHitRates.length)
        {
            intervalHitRates = Arrays.copyOf(intervalHitRates, intervals * 2);
            intervalTtftP90Ms = Arrays.copyOf(intervalTtftP90Ms, intervals * 2);
        }
        intervalHitRates[intervals] = intervalQueried == 0 ? Double.NaN : (double)intervalHits / intervalQueried;
        intervalTtftP90Ms[intervals] = intervalTtft.size() == 0 ? Double.NaN :
            intervalTtft.percentileMicros(90) / 1000.0;
        intervals++;
        intervalQueried = 0;
        intervalHits = 0;
        intervalTtft.clear();
    }

    /** @return the hit rate of each closed interval. */
    double[] intervalHitRates()
    {
        return Arrays.copyOf(intervalHitRates, intervals);
    }

    /** @return the p90 TTFT in milliseconds of each closed interval. */
    double[] intervalTtftP90Ms()
    {
        return Arrays.copyOf(intervalTtftP90Ms, intervals);
    }

    /** @return blocks cached now. */
    int cachedBlocks()
    {
        return blocks.size();
    }
}
