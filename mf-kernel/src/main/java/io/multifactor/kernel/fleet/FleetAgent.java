package io.multifactor.kernel.fleet;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.NanoClock;

import java.util.Objects;

/**
 * Runs a {@link FleetExchange} beside an engine, as an Agrona {@link Agent} on its own thread (an
 * {@link org.agrona.concurrent.AgentRunner}, or a simulator calling {@link #doWork()}): every
 * {@link FleetExchange#tickNs()} it collects the engine's local counts and new latency samples
 * ({@link FleetMember#collectFleet}), exchanges them, and merges the other replicas' counts and intervals
 * ({@link FleetMember#mergeFleet}). When no exchange has succeeded for {@link FleetExchange#EXPIRY_PERIODS}
 * periods, the other replicas' counts are forgotten and the engine runs on its own signals until the transport
 * recovers. A transport that throws is counted as a failed exchange. {@link #onClose()} removes the remote counts.
 * <p>
 * {@code select}, {@code begin}, {@code end} and {@code record*} never wait for it: the engine's hot paths read only
 * the counters and published percentiles that this agent updates under the engine's lock.
 * <p>
 * This class is not threadsafe: {@link #doWork()} runs on one thread at a time; the count accessors may be read from
 * any thread.
 */
public final class FleetAgent implements Agent
{
    /** Default most model names held per exchange (local or remote): bounds memory against untrusted input. */
    public static final int DEFAULT_MODEL_CAPACITY = 256;

    private final FleetMember engine;
    private final FleetExchange exchange;
    private final NanoClock clock;
    private final FleetSignals local;
    private final FleetSignals remote;
    private final long tickNs;
    private final long expiryNs;
    private long nextTickNs;
    private long lastSuccessNs;
    private volatile long exchangedCount;
    private volatile long failedCount;
    private volatile int liveRemoteReplicas;

    /**
     * @param engine the engine whose signals are shared (a {@code MultiFactorEngine}).
     * @param exchange the transport.
     * @param clock the agent's time source (the engine's clock in a simulation).
     * @param modelCapacity the most model names held per exchange, at least 1.
     */
    public FleetAgent(
        final FleetMember engine, final FleetExchange exchange, final NanoClock clock, final int modelCapacity)
    {
        this.engine = Objects.requireNonNull(engine, "engine");
        this.exchange = Objects.requireNonNull(exchange, "exchange");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.local = new FleetSignals(modelCapacity);
        this.remote = new FleetSignals(modelCapacity);
        this.tickNs = Math.max(1L, Math.min(exchange.tickNs(), exchange.periodNs()));
        this.expiryNs = FleetExchange.EXPIRY_PERIODS * exchange.periodNs();
        engine.attachFleet();
        final long nowNs = clock.nanoTime();
        this.nextTickNs = nowNs;
        this.lastSuccessNs = nowNs;
    }

    /**
     * An agent on the engine's clock with {@link #DEFAULT_MODEL_CAPACITY}.
     *
     * @param engine the engine whose signals are shared.
     * @param exchange the transport.
     * @return the agent, to run on an {@link org.agrona.concurrent.AgentRunner}.
     */
    public static FleetAgent of(final FleetMember engine, final FleetExchange exchange)
    {
        return new FleetAgent(engine, exchange, engine.clock(), DEFAULT_MODEL_CAPACITY);
    }

    @Override
    public int doWork()
    {
        final long nowNs = clock.nanoTime();
        if (nowNs - nextTickNs < 0)
        {
            return 0;
        }
        nextTickNs = nowNs + tickNs;
        exchangeNow(nowNs);
        return 1;
    }

    /**
     * One exchange now, due or not (simulators and tests).
     *
     * @param nowNs the agent's clock.
     * @return the transport's result: {@link FleetExchange#EXCHANGED}, {@link FleetExchange#IDLE} or
     *     {@link FleetExchange#FAILED}.
     */
    public int exchangeNow(final long nowNs)
    {
        local.clear();
        engine.collectFleet(local);
        int result;
        try
        {
            result = exchange.exchange(nowNs, local, remote);
        }
        catch (final RuntimeException ex)
        {
            result = FleetExchange.FAILED;
        }
        if (result == FleetExchange.EXCHANGED)
        {
            lastSuccessNs = nowNs;
            exchangedCount++;
            liveRemoteReplicas = exchange.liveRemoteReplicas();
            // The same figures in the engine's counters: mf.fleet.exchanges and mf.fleet.replicas.
            engine.fleetCounters().exchangeDone();
        }
        else if (result == FleetExchange.FAILED)
        {
            failedCount++;
            engine.fleetCounters().exchangeFailed();
            remote.clearIntervals();
        }
        if (nowNs - lastSuccessNs > expiryNs)
        {
            // The transport has been failing for EXPIRY_PERIODS: every remote contribution has expired.
            remote.clear();
            liveRemoteReplicas = 0;
        }
        engine.fleetCounters().remoteReplicas(liveRemoteReplicas);
        engine.mergeFleet(remote);
        remote.clearIntervals();
        return result;
    }

    @Override
    public void onClose()
    {
        engine.detachFleet();
    }

    @Override
    public String roleName()
    {
        return "multi-factor-fleet";
    }

    /** @return exchanges that succeeded. */
    public long exchangedCount()
    {
        return exchangedCount;
    }

    /** @return exchanges that failed (network, timeout, a transport that threw). */
    public long failedCount()
    {
        return failedCount;
    }

    /** @return other replicas that counted in the last successful exchange (0 once they expired). */
    public int liveRemoteReplicas()
    {
        return liveRemoteReplicas;
    }

    /** @return the transport. */
    public FleetExchange exchange()
    {
        return exchange;
    }
}
