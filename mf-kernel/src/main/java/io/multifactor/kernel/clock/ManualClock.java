package io.multifactor.kernel.clock;

import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.NanoClock;

import java.util.concurrent.TimeUnit;

/**
 * A {@link NanoClock} that stands still until the test moves it: inject it into the engine
 * ({@code MultiFactorEngine.builder(plans).clock(clock)}) and advance it to make windows rotate, percentiles republish
 * and stale leases age, without sleeping.
 * <p>
 * It wraps Agrona's {@link CachedNanoClock} (a padded volatile value) and adds what tests need: time units, refusal to
 * go backwards, and a readable time. Reading it is threadsafe from any thread; move it from one thread at a time.
 */
public final class ManualClock implements NanoClock
{
    private final CachedNanoClock clock = new CachedNanoClock();

    /** A clock that reads 0 until moved. */
    public ManualClock()
    {
        this(0L);
    }

    /**
     * @param startNs the time it reads until moved, in nanoseconds.
     */
    public ManualClock(final long startNs)
    {
        clock.update(startNs);
    }

    /** @return the current time in nanoseconds; never allocates. */
    @Override
    public long nanoTime()
    {
        return clock.nanoTime();
    }

    /**
     * Moves the clock to an absolute time.
     *
     * @param timeNs the new time in nanoseconds, not before the current one.
     * @return this clock.
     * @throws IllegalArgumentException when {@code timeNs} is before the current time.
     */
    public ManualClock timeNs(final long timeNs)
    {
        final long nowNs = clock.nanoTime();
        if (timeNs < nowNs)
        {
            throw new IllegalArgumentException("a manual clock never goes backwards: " + timeNs + " ns < " + nowNs + " ns");
        }
        clock.update(timeNs);
        return this;
    }

    /**
     * Moves the clock forward.
     *
     * @param durationNs nanoseconds to add, at least 0.
     * @return this clock.
     * @throws IllegalArgumentException when {@code durationNs} is negative.
     */
    public ManualClock advanceNs(final long durationNs)
    {
        if (durationNs < 0)
        {
            throw new IllegalArgumentException("a manual clock never goes backwards: advance by " + durationNs + " ns");
        }
        clock.advance(durationNs);
        return this;
    }

    /**
     * Moves the clock forward.
     *
     * @param duration amount to add, at least 0.
     * @param unit unit of {@code duration}.
     * @return this clock.
     * @throws IllegalArgumentException when {@code duration} is negative.
     */
    public ManualClock advance(final long duration, final TimeUnit unit)
    {
        return advanceNs(unit.toNanos(duration));
    }

    /**
     * Moves the clock forward by a number of milliseconds.
     *
     * @param durationMs milliseconds to add, at least 0.
     * @return this clock.
     */
    public ManualClock advanceMs(final long durationMs)
    {
        return advance(durationMs, TimeUnit.MILLISECONDS);
    }

    @Override
    public String toString()
    {
        return "ManualClock{" + clock.nanoTime() + " ns}";
    }
}
