package io.multifactor.sim;

import java.util.ArrayDeque;
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
    final BackendServers shape;
    final ArrayDeque<EventLoop.Queued> waiting = new ArrayDeque<>();
    final SampleBuffer ttft = new SampleBuffer();
    int running;
    long requests;
    long queriedTokens;
    long hitTokens;
    private final LinkedHashMap<Long, Boolean> blocks;

    SimulatedServer(final String name, final BackendServers shape)
    {
        this.name = name;
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
        return hit;
    }

    /** @return blocks cached now. */
    int cachedBlocks()
    {
        return blocks.size();
    }
}
