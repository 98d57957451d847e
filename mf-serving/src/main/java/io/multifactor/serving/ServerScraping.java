package io.multifactor.serving;

import io.multifactor.config.LoadedConfig;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.servers.ServerScrapeAgent;

/**
 * The scrape agent of a serving process (the gateway, the Envoy service): started the first time a configuration has
 * {@code signals.server_metrics}, then left to follow the engine's server signals (which the engine's builder and each
 * reload configure, {@link MultiFactorEngine#configureServers}), closed with the process. A configuration without
 * {@code signals.server_metrics} starts nothing. The servers' KV-cache sizes it reads ({@code vllm:cache_config_info})
 * size the prefix-cache affinity indexes of their backends.
 * <p>
 * This class is threadsafe: {@link #follow} and {@link #close} serialize on this object.
 */
public final class ServerScraping implements AutoCloseable
{
    private final MultiFactorEngine engine;
    private final PrefixBackends prefixBackends;
    private ServerScrapeAgent agent;
    private boolean closed;

    /**
     * @param engine the engine whose server signals the agent feeds.
     * @param prefixBackends the prefix-cache affinity state whose indexes the servers' cache sizes size.
     */
    public ServerScraping(final MultiFactorEngine engine, final PrefixBackends prefixBackends)
    {
        this.engine = engine;
        this.prefixBackends = prefixBackends;
    }

    /**
     * Starts the agent if this configuration scrapes servers and it is not running yet.
     *
     * @param loaded the configuration being applied.
     */
    public synchronized void follow(final LoadedConfig loaded)
    {
        if (!closed && agent == null && loaded.serverMetrics() != null)
        {
            agent = new ServerScrapeAgent(engine.serverSignals(), engine.clock()::nanoTime)
                .cacheSizes(prefixBackends::reportCacheSize).start();
        }
    }

    /** @return the running agent, or {@code null} when none was started. */
    public synchronized ServerScrapeAgent agent()
    {
        return agent;
    }

    /** Stops the agent, if one runs. Idempotent. */
    @Override
    public synchronized void close()
    {
        closed = true;
        if (agent != null)
        {
            agent.close();
            agent = null;
        }
    }
}
