package io.multifactor.micrometer;

import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import org.agrona.concurrent.status.CountersReader;

import java.util.Arrays;

/**
 * One meter the engine's counters call for: its name, tags, kind, and the counters whose sum it reads. The object is
 * the state a registered {@code FunctionCounter} or {@code Gauge} reads, so the binder keeps it strongly referenced.
 * <p>
 * Immutable apart from the reader's live values; {@link #value()} is threadsafe and allocates nothing.
 */
final class MeterSpec
{
    /** A monotonic count: a {@code FunctionCounter}. */
    static final int COUNTER = 0;

    /** A current value: a {@code Gauge}. */
    static final int GAUGE = 1;

    /** A published percentile in microseconds, exposed as a {@code Gauge} in seconds (NaN when there is none). */
    static final int LATENCY_SECONDS = 2;

    /** A current count that is -1 when missing (a model's server queue): a {@code Gauge}, NaN when missing. */
    static final int GAUGE_OR_MISSING = 3;

    /** A fraction kept in millionths, -1 when missing (a model's KV-cache use): a {@code Gauge}, NaN when missing. */
    static final int MILLIONTHS = 4;

    /** A state read as 0 or 1 (a {@code Gauge}): 1 when the counter is not 0 (a model's {@code mf.ejected}). */
    static final int FLAG = 5;

    final String name;
    final Tags tags;
    final int kind;
    final String key;
    private final CountersReader reader;
    private final int[] counterIds;

    MeterSpec(final CountersReader reader, final String name, final Tags tags, final int kind, final int[] counterIds)
    {
        this.reader = reader;
        this.name = name;
        this.tags = tags;
        this.kind = kind;
        this.counterIds = counterIds;
        this.key = key(name, tags);
    }

    static String key(final String name, final Tags tags)
    {
        final StringBuilder key = new StringBuilder(name);
        for (final Tag tag : tags)
        {
            key.append('\u0000').append(tag.getKey()).append('\u0000').append(tag.getValue());
        }
        return key.toString();
    }

    MeterSpec plus(final int counterId)
    {
        final int[] ids = Arrays.copyOf(counterIds, counterIds.length + 1);
        ids[counterIds.length] = counterId;
        return new MeterSpec(reader, name, tags, kind, ids);
    }

    boolean readsSameCountersAs(final MeterSpec other)
    {
        final int[] mine = counterIds.clone();
        final int[] theirs = other.counterIds.clone();
        Arrays.sort(mine);
        Arrays.sort(theirs);
        return kind == other.kind && Arrays.equals(mine, theirs);
    }

    /**
     * @return the current value: the sum of the counters; for a latency the percentile in seconds; for a server queue
     *     or KV-cache use the value, NaN when missing.
     */
    double value()
    {
        if (kind == LATENCY_SECONDS || kind == MILLIONTHS)
        {
            final long millionths = reader.getCounterValue(counterIds[0]);
            return millionths < 0 ? Double.NaN : millionths / 1_000_000.0;
        }
        if (kind == GAUGE_OR_MISSING)
        {
            final long value = reader.getCounterValue(counterIds[0]);
            return value < 0 ? Double.NaN : value;
        }
        if (kind == FLAG)
        {
            return reader.getCounterValue(counterIds[0]) != 0 ? 1.0 : 0.0;
        }
        long sum = 0;
        for (final int counterId : counterIds)
        {
            sum += reader.getCounterValue(counterId);
        }
        return sum;
    }
}
