package io.multifactor.kernel.engine;

/**
 * The start stamps of leases, so that a lease's age is measured from its own {@code begin} without reading the clock
 * on every {@code begin}: time is cut into epochs of at least one granule, each remembered with the time it began;
 * {@code begin} stamps a lease with the current epoch number (one volatile load), and the sweep reclaims a lease only
 * when the epoch after its own began more than the max age ago, so that its age, from its own begin, surely exceeds the
 * max age.
 * <pre>
 *   epoch e began at t(e); a lease stamped e began in [t(e), t(e + 1))
 *   reclaim a lease stamped e  iff  now - t(e + 1) &gt; maxAge    (never early, even after a refresh stall)
 * </pre>
 * A refresh stall makes the running epoch last as long as the stall: a lease begun during it is aged from the stall's
 * end, never from a tick long past. Epochs advance only on the refresh thread, at most one per granule, so the remembered
 * {@link #RING} epochs always span more than the max age when the granule is at least {@code maxAge / 64}.
 * <p>
 * {@link #currentEpoch()} may be called from any thread; {@link #advance(long)} and {@link #cutoff(long, long)} belong to
 * one thread at a time (the engine calls them under its lock). This class is threadsafe under that contract.
 */
final class LeaseEpochs
{
    /** Epoch start times remembered: more than the 64 granules of a max age, plus the running and the next epoch. */
    static final int RING = 128;

    private static final int MASK = RING - 1;

    private final long granuleNs;
    private final long[] startNs = new long[RING];
    private long epoch;
    private volatile long published;

    /**
     * @param originNs start of epoch 0.
     * @param granuleNs shortest epoch, at least {@code maxAge / 64}.
     */
    LeaseEpochs(final long originNs, final long granuleNs)
    {
        this.granuleNs = granuleNs;
        startNs[0] = originNs;
    }

    /** @return the running epoch, the stamp of a lease begun now. One volatile load; allocates nothing. */
    long currentEpoch()
    {
        return published;
    }

    /**
     * Starts a new epoch when a granule has passed since the running one began.
     *
     * @param nowNs the current time.
     * @return whether a new epoch began.
     */
    boolean advance(final long nowNs)
    {
        if (nowNs - startNs[(int)(epoch & MASK)] < granuleNs)
        {
            return false;
        }
        epoch++;
        startNs[(int)(epoch & MASK)] = nowNs;
        // Release the start time before the epoch number that lets a begin stamp it.
        published = epoch;
        return true;
    }

    /**
     * @param nowNs the current time.
     * @param maxAgeNs the age beyond which a lease is reclaimed.
     * @return the smallest epoch that is not surely too old: every lease stamped with an epoch below it began more
     *     than {@code maxAgeNs} before {@code nowNs}; 0 when none is.
     */
    long cutoff(final long nowNs, final long maxAgeNs)
    {
        final long oldest = Math.max(0, epoch - MASK);
        for (long k = epoch; k >= oldest; k--)
        {
            if (nowNs - startNs[(int)(k & MASK)] > maxAgeNs)
            {
                return k;
            }
        }
        // Only when the granule is shorter than maxAge / 64: the ring no longer reaches back a whole max age.
        return oldest;
    }
}
