package io.multifactor.spring.boot;

import io.multifactor.config.reload.ReloadResult;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.serving.EngineHost;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * multi-factor's health: {@code UP} while the engine's refresh agent runs (latency windows and ejections move only
 * through it) and, with a fleet, while the last exchanges did not all fail; {@code DOWN} otherwise. Details: the
 * configuration generation (1 + reloads applied), reloads refused, the last reload's file and problems, whether the
 * refresh agent is alive, and for a fleet the exchanges done and failed, the remote replicas and whether it is
 * connected (an exchange has succeeded and the last one did not fail).
 * <p>
 * This class is threadsafe: it reads counters and volatile fields.
 */
public final class MultiFactorHealthIndicator implements HealthIndicator
{
    private final EngineHost host;
    private final MultiFactorReloads reloads;
    private long fleetFailedSeen;
    private long fleetDoneSeen;

    /**
     * @param host the running host.
     * @param reloads what the reloads did.
     */
    public MultiFactorHealthIndicator(final EngineHost host, final MultiFactorReloads reloads)
    {
        this.host = host;
        this.reloads = reloads;
    }

    @Override
    public Health health()
    {
        final MultiFactorEngine engine = host.engine();
        final boolean refreshAlive = host.refreshAgentAlive();
        final Health.Builder health = new Health.Builder()
            .withDetail("configurationGeneration", 1 + engine.reloadsApplied())
            .withDetail("reloadsRefused", engine.reloadsRefused())
            .withDetail("refreshAgentAlive", refreshAlive);
        final ReloadResult last = reloads.last();
        if (last != null)
        {
            health.withDetail("lastReload", last.applied() ? "applied " + last.file() :
                "refused " + last.file() + ": " + last.problems());
        }
        boolean up = refreshAlive;
        if (host.hasFleet())
        {
            final boolean connected = fleetConnected(engine);
            health.withDetail("fleetConnected", connected)
                .withDetail("fleetExchangesDone", engine.fleetCounters().exchangesDone())
                .withDetail("fleetExchangesFailed", engine.fleetCounters().exchangesFailed())
                .withDetail("fleetRemoteReplicas", engine.fleetCounters().remoteReplicas());
            up &= connected;
        }
        return (up ? health.up() : health.down()).build();
    }

    /** Connected: some exchange succeeded, and since the previous look more succeeded than failed, or none failed. */
    private synchronized boolean fleetConnected(final MultiFactorEngine engine)
    {
        final long done = engine.fleetCounters().exchangesDone();
        final long failed = engine.fleetCounters().exchangesFailed();
        final boolean connected = done > 0 && (failed == fleetFailedSeen || done - fleetDoneSeen > failed - fleetFailedSeen);
        fleetDoneSeen = done;
        fleetFailedSeen = failed;
        return connected;
    }
}
