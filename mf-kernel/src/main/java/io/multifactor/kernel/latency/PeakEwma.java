package io.multifactor.kernel.latency;

import io.multifactor.api.LatencyRecorder;
import org.agrona.concurrent.NanoClock;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Finagle's peak-EWMA latency of one model and one metric ({@code latency_estimator: peak_ewma}), in microseconds.
 * <p>
 * The estimate E starts at the first sample; each sample x at time t sets {@code E = max(x, E*w + x*(1-w))} with
 * {@code w = exp(-(t - t_prev) / tau)}, tau = {@code ewma_decay}: a slow sample counts at once, a recovery decays.
 * Read at {@code now}, the estimate is {@code E * exp(-(now - t_last) / tau)}: without new samples it decays toward 0.
 * When {@code latency_window} has passed since the last sample, the estimate is missing, and the next sample starts it
 * again (as the first one did). Samples above {@link LatencyWindow#MAX_TRACKABLE_MICROS} count as that maximum.
 * <p>
 * State is one 64-bit word, so that a sample updates it with one compare-and-set:
 * <pre>
 *   | E as float bits (32) | t_last: milliseconds since the origin, modulo 2^32 (32) |      0 = no estimate
 * </pre>
 * E is therefore kept to float precision (relative 6e-8) and times to the millisecond; time differences are taken
 * modulo 2^32 ms as signed ints, which is exact while they are below 24 days (the window resets the word long before).
 * A sample that arrives with an earlier time than the word's (two threads racing) counts with a gap of 0.
 * <p>
 * This class is threadsafe: {@link #record} is lock-free (a CAS retried only when another sample landed in between)
 * and allocation-free from any number of threads, and never throws; {@link #refresh} and {@link #estimateMicros}
 * belong to one thread at a time.
 */
public final class PeakEwma implements LatencyEstimator
{
    private static final VarHandle STATE;
    private static final long EMPTY = 0L;
    private static final long TIME_MASK = 0xFFFF_FFFFL;
    private static final long NS_PER_MS = 1_000_000L;

    static
    {
        try
        {
            STATE = MethodHandles.lookup().findVarHandle(PeakEwma.class, "state", long.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final NanoClock clock;
    private final long originNs;
    private final double tauMs;
    private final int windowMs;
    @SuppressWarnings("unused") // accessed through STATE
    private volatile long state;

    /**
     * @param clock the engine's clock, read once per sample.
     * @param originNs the engine clock's time that counts as 0 ms.
     * @param decayNs tau, {@code ewma_decay}, positive.
     * @param windowNs {@code latency_window}: how long the estimate lasts without samples, positive.
     * @throws IllegalArgumentException when a duration is not positive.
     */
    public PeakEwma(final NanoClock clock, final long originNs, final long decayNs, final long windowNs)
    {
        if (decayNs <= 0 || windowNs <= 0)
        {
            throw new IllegalArgumentException("ewma_decay and latency_window must be positive: " + decayNs + ", " +
                windowNs + " ns");
        }
        this.clock = clock;
        this.originNs = originNs;
        this.tauMs = decayNs / (double)NS_PER_MS;
        this.windowMs = (int)Math.max(1L, Math.min(Integer.MAX_VALUE, windowNs / NS_PER_MS));
    }

    /** {@inheritDoc} Reads the clock once. */
    @Override
    public int record(final long micros)
    {
        return record(micros, clock.nanoTime());
    }

    /**
     * Records one sample taken at {@code nowNs} (explain's replay, tests). Lock-free, allocates nothing, never throws.
     *
     * @param micros the sample in microseconds, positive.
     * @param nowNs the engine clock's time of the sample.
     * @return {@link LatencyRecorder#RECORDED} or {@link LatencyRecorder#CLAMPED}.
     */
    public int record(final long micros, final long nowNs)
    {
        final boolean clamped = micros > LatencyWindow.MAX_TRACKABLE_MICROS;
        final double x = clamped ? LatencyWindow.MAX_TRACKABLE_MICROS : micros;
        final int t = timeMs(nowNs);
        while (true)
        {
            final long previous = (long)STATE.getVolatile(this);
            final long next;
            if (previous == EMPTY)
            {
                next = pack(x, t);
            }
            else
            {
                final int gapMs = t - (int)previous;
                if (gapMs >= windowMs)
                {
                    next = pack(x, t);
                }
                else if (gapMs <= 0)
                {
                    // Same millisecond, or a racing sample stamped later: w = 1, the estimate keeps its time.
                    next = pack(Math.max(x, estimate(previous)), (int)previous);
                }
                else
                {
                    final double w = Math.exp(-gapMs / tauMs);
                    next = pack(Math.max(x, estimate(previous) * w + x * (1.0 - w)), t);
                }
            }
            if (STATE.compareAndSet(this, previous, next))
            {
                return clamped ? LatencyRecorder.CLAMPED : LatencyRecorder.RECORDED;
            }
        }
    }

    /** {@inheritDoc} Forgets an estimate whose last sample is {@code latency_window} old or older. */
    @Override
    public void refresh(final long sliceIndex, final long nowNs)
    {
        final long current = (long)STATE.getVolatile(this);
        if (current != EMPTY && timeMs(nowNs) - (int)current >= windowMs)
        {
            // A sample that lands meanwhile wins: the CAS fails and its estimate stays.
            STATE.compareAndSet(this, current, EMPTY);
        }
    }

    /** {@inheritDoc} The estimate decayed to {@code nowNs}; the percentile is ignored. */
    @Override
    public long estimateMicros(final int percentile, final long nowNs)
    {
        final double micros = estimateMicrosExact(nowNs);
        return micros != micros ? NO_OBSERVATION : Math.max(1L, Math.round(micros));
    }

    /**
     * @param nowNs the engine clock's time.
     * @return the estimate decayed to {@code nowNs} in microseconds, unrounded; NaN when missing.
     */
    public double estimateMicrosExact(final long nowNs)
    {
        final long current = (long)STATE.getVolatile(this);
        if (current == EMPTY)
        {
            return Double.NaN;
        }
        final int ageMs = timeMs(nowNs) - (int)current;
        if (ageMs >= windowMs)
        {
            return Double.NaN;
        }
        return ageMs <= 0 ? estimate(current) : estimate(current) * Math.exp(-ageMs / tauMs);
    }

    @Override
    public long footprintBytes()
    {
        // Header, clock reference, origin, tau, window, state.
        return 16 + 8 + 8 + 8 + 4 + 8;
    }

    private int timeMs(final long nowNs)
    {
        return (int)Math.floorDiv(nowNs - originNs, NS_PER_MS);
    }

    private static long pack(final double estimateMicros, final int timeMs)
    {
        return (long)Float.floatToRawIntBits((float)estimateMicros) << 32 | (timeMs & TIME_MASK);
    }

    private static double estimate(final long word)
    {
        return Float.intBitsToFloat((int)(word >>> 32));
    }
}
