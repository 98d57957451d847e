package io.multifactor.kernel.metrics;

import org.agrona.concurrent.AtomicBuffer;

/**
 * The counters a fleet exchange reports into, in the engine's counters (and so in its counters file):
 * {@code mf.fleet.exchanges{result="done"}}, {@code mf.fleet.exchanges{result="failed"}} and the gauge
 * {@code mf.fleet.replicas} (live remote replicas). Get it from the engine's {@code fleetCounters()}.
 * <p>
 * This class is threadsafe: each method is one atomic operation on a counter; it allocates nothing.
 */
public final class FleetCounters
{
    private final AtomicBuffer values;
    private final int doneOffset;
    private final int failedOffset;
    private final int replicasOffset;

    /**
     * @param values the counters' values buffer.
     * @param doneOffset value offset of {@code mf.fleet.exchanges{result="done"}}.
     * @param failedOffset value offset of {@code mf.fleet.exchanges{result="failed"}}.
     * @param replicasOffset value offset of {@code mf.fleet.replicas}.
     */
    public FleetCounters(final AtomicBuffer values, final int doneOffset, final int failedOffset, final int replicasOffset)
    {
        this.values = values;
        this.doneOffset = doneOffset;
        this.failedOffset = failedOffset;
        this.replicasOffset = replicasOffset;
    }

    /** Counts one exchange period that published and read. */
    public void exchangeDone()
    {
        values.getAndAddLong(doneOffset, 1);
    }

    /** Counts one exchange period that failed (the replica went on with its own signals). */
    public void exchangeFailed()
    {
        values.getAndAddLong(failedOffset, 1);
    }

    /**
     * Sets the number of other replicas whose entries are live.
     *
     * @param count live remote replicas, at least 0.
     */
    public void remoteReplicas(final int count)
    {
        values.putLongRelease(replicasOffset, count);
    }

    /** @return exchanges done so far. */
    public long exchangesDone()
    {
        return values.getLongVolatile(doneOffset);
    }

    /** @return exchanges failed so far. */
    public long exchangesFailed()
    {
        return values.getLongVolatile(failedOffset);
    }

    /** @return live remote replicas at the last exchange. */
    public long remoteReplicas()
    {
        return values.getLongVolatile(replicasOffset);
    }
}
