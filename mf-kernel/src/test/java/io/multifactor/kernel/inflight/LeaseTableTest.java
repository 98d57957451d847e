package io.multifactor.kernel.inflight;

import io.multifactor.api.InflightTracker;
import io.multifactor.kernel.metrics.CounterBuffers;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class LeaseTableTest
{
    private final CounterBuffers counters = CounterBuffers.inMemory(8);
    private final int modelA = CounterBuffers.valueOffset(counters.allocate("inflight a", CounterBuffers.INFLIGHT_TYPE_ID));
    private final int modelB = CounterBuffers.valueOffset(counters.allocate("inflight b", CounterBuffers.INFLIGHT_TYPE_ID));
    private final int full = CounterBuffers.valueOffset(counters.allocate("full", CounterBuffers.EVENT_TYPE_ID));
    private final int reclaimed = CounterBuffers.valueOffset(counters.allocate("reclaimed", CounterBuffers.EVENT_TYPE_ID));

    private LeaseTable table(final int capacity)
    {
        return new LeaseTable(capacity, counters.values(), full, reclaimed);
    }

    private long count(final int offset)
    {
        return counters.values().getLongVolatile(offset);
    }

    @Test
    void shouldCountOutOnceOnDoubleEnd()
    {
        final LeaseTable table = table(16);
        final long lease = table.acquire(modelA, 0);
        assertThat(lease).isNotEqualTo(InflightTracker.NO_LEASE);
        assertThat(count(modelA)).isEqualTo(1);
        assertThat(table.release(lease)).isTrue();
        assertThat(count(modelA)).isZero();
        assertThat(table.release(lease)).isFalse();
        assertThat(count(modelA)).isZero();
    }

    @Test
    void shouldNotReleaseStaleLeaseOfReusedSlot()
    {
        final LeaseTable table = table(2);
        final long first = table.acquire(modelA, 0);
        assertThat(table.release(first)).isTrue();
        // Fill the table so the slot of the first lease is held again, by a new generation.
        final long second = table.acquire(modelB, 0);
        final long third = table.acquire(modelB, 0);
        assertThat(second).isNotEqualTo(first);
        assertThat(third).isNotEqualTo(first);
        assertThat(table.release(first)).isFalse();
        assertThat(count(modelA)).isZero();
        assertThat(count(modelB)).isEqualTo(2);
        assertThat(table.release(second)).isTrue();
        assertThat(table.release(third)).isTrue();
        assertThat(count(modelB)).isZero();
    }

    @Test
    void shouldReclaimOnlyLeasesStampedBeforeTheCutoffAndIgnoreTheirLateEnd()
    {
        final LeaseTable table = table(16);
        final long old = table.acquire(modelA, 1_000);
        final long young = table.acquire(modelA, 5_000);
        assertThat(table.sweep(1_000)).isZero();
        assertThat(table.sweep(1_001)).isEqualTo(1);
        assertThat(count(modelA)).isEqualTo(1);
        assertThat(table.reclaimedCount()).isEqualTo(1);
        assertThat(table.release(old)).isFalse();
        assertThat(count(modelA)).isEqualTo(1);
        assertThat(table.release(young)).isTrue();
        assertThat(count(modelA)).isZero();
        assertThat(table.sweep(995_000)).isZero();
        assertThat(table.liveCount()).isZero();
    }

    @Test
    void shouldIgnoreGarbageLeases()
    {
        final LeaseTable table = table(64);
        final long lease = table.acquire(modelA, 0);
        final long[] garbage = {
            InflightTracker.NO_LEASE, 1, -1, 2, 1L << 24, (1L << 24) | 1, Long.MAX_VALUE, Long.MIN_VALUE,
            lease + 1, lease - 1, lease ^ (1L << 24), lease ^ (1L << 40), lease ^ (1L << 62), lease ^ (1L << 63), ~lease,
        };
        for (final long value : garbage)
        {
            assertThat(table.release(value)).as("release(%d)", value).isFalse();
        }
        final SplittableRandom random = new SplittableRandom(42);
        for (int i = 0; i < 100_000; i++)
        {
            final long value = random.nextLong();
            if (value != lease)
            {
                assertThat(table.release(value)).isFalse();
            }
        }
        assertThat(count(modelA)).isEqualTo(1);
        assertThat(table.release(lease)).isTrue();
        assertThat(count(modelA)).isZero();
    }

    @Test
    void shouldDegradeWithoutThrowingWhenFull()
    {
        final LeaseTable table = table(4);
        final long[] leases = new long[4];
        for (int i = 0; i < 4; i++)
        {
            leases[i] = table.acquire(modelA, 0);
            assertThat(leases[i]).isNotEqualTo(InflightTracker.NO_LEASE);
        }
        assertThat(table.acquire(modelA, 0)).isEqualTo(InflightTracker.NO_LEASE);
        assertThat(table.acquire(modelB, 0)).isEqualTo(InflightTracker.NO_LEASE);
        assertThat(table.fullCount()).isEqualTo(2);
        assertThat(count(modelA)).isEqualTo(4);
        assertThat(count(modelB)).isZero();
        assertThat(table.release(InflightTracker.NO_LEASE)).isFalse();

        assertThat(table.release(leases[2])).isTrue();
        final long again = table.acquire(modelB, 0);
        assertThat(again).isNotEqualTo(InflightTracker.NO_LEASE);
        assertThat(count(modelB)).isEqualTo(1);
        assertThat(table.liveCount()).isEqualTo(4);
    }

    @Test
    void shouldFillLargeTableAlmostCompletelyAndCountEveryRefusal()
    {
        final int capacity = 1 << 12;
        final LeaseTable table = table(capacity);
        final long[] leases = new long[capacity + 100];
        int granted = 0;
        for (int i = 0; i < leases.length; i++)
        {
            leases[i] = table.acquire(modelA, 0);
            if (leases[i] != InflightTracker.NO_LEASE)
            {
                granted++;
            }
        }
        assertThat(granted).isBetween(capacity - 64, capacity);
        assertThat(table.fullCount()).isEqualTo(leases.length - granted);
        assertThat(count(modelA)).isEqualTo(granted);
        assertThat(table.liveCount()).isEqualTo(granted);
        int released = 0;
        for (final long lease : leases)
        {
            released += table.release(lease) ? 1 : 0;
        }
        assertThat(released).isEqualTo(granted);
        assertThat(count(modelA)).isZero();
    }

    @Test
    void shouldRefuseCapacityThatIsNotPowerOfTwo()
    {
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException().isThrownBy(() -> table(3));
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException().isThrownBy(() -> table(0));
    }

    @Test
    void shouldReserveOnlyWhileTheCounterStaysWithinItsMaximum()
    {
        final LeaseTable table = table(16);
        final long first = table.acquireWithin(modelA, 2, 0);
        final long second = table.acquireWithin(modelA, 2, 0);
        assertThat(first).isPositive();
        assertThat(second).isPositive().isNotEqualTo(first);
        assertThat(table.acquireWithin(modelA, 2, 0)).isEqualTo(LeaseTable.AT_LIMIT);
        assertThat(count(modelA)).isEqualTo(2);
        assertThat(table.liveCount()).isEqualTo(2);

        // Another model's counter is its own; an unchecked acquire may go past the maximum, a checked one then refuses.
        assertThat(table.acquireWithin(modelB, 2, 0)).isPositive();
        final long over = table.acquire(modelA, 0);
        assertThat(count(modelA)).isEqualTo(3);
        assertThat(table.acquireWithin(modelA, 3, 0)).isEqualTo(LeaseTable.AT_LIMIT);

        assertThat(table.release(first)).isTrue();
        assertThat(table.release(over)).isTrue();
        assertThat(table.acquireWithin(modelA, 2, 0)).isPositive();
        assertThat(count(modelA)).isEqualTo(2);
        assertThat(table.release(LeaseTable.AT_LIMIT)).isFalse();
    }

    @Test
    void shouldTakeTheReservationBackWhenTheTableIsFull()
    {
        final LeaseTable table = table(2);
        assertThat(table.acquireWithin(modelA, 10, 0)).isPositive();
        assertThat(table.acquireWithin(modelB, 10, 0)).isPositive();
        assertThat(table.acquireWithin(modelA, 10, 0)).isEqualTo(InflightTracker.NO_LEASE);
        assertThat(table.acquire(modelA, 0)).isEqualTo(InflightTracker.NO_LEASE);
        assertThat(count(modelA)).isEqualTo(1);
        assertThat(count(modelB)).isEqualTo(1);
        assertThat(table.fullCount()).isEqualTo(2);
    }

    @Test
    void shouldClaimTheThreadsHomeSlotAgainAndAgainWhenItHoldsOneLeaseAtATime()
    {
        final LeaseTable table = table(1 << 16);
        final int home = table.homeSlot();
        assertThat(home % (LeaseTable.LINE_LENGTH / LeaseTable.SLOT_LENGTH)).as("a home is a line's first slot").isZero();
        for (int i = 0; i < 1_000; i++)
        {
            final long lease = table.acquire(i % 2 == 0 ? modelA : modelB, i);
            assertThat(LeaseTable.slotOf(lease)).isEqualTo(home);
            assertThat(table.release(lease)).isTrue();
        }
        assertThat(count(modelA)).isZero();
        assertThat(count(modelB)).isZero();
    }

    @Test
    void shouldGiveThreadsWithNearbyIdsHomesFarApart()
    {
        final int capacity = 1 << 16;
        final LeaseTable table = table(capacity);
        final int threads = 16;
        int closest = capacity;
        for (long a = 1; a <= threads; a++)
        {
            for (long b = a + 1; b <= threads; b++)
            {
                final int distance = Math.abs(table.homeSlot(a) - table.homeSlot(b));
                closest = Math.min(closest, Math.min(distance, capacity - distance));
            }
        }
        // Fibonacci hashing keeps 16 consecutive ids at least capacity / 42 apart (three gap sizes, the smallest ~0.024).
        assertThat(closest).isGreaterThan(capacity / 64);
        assertThat(table.homeSlot(7)).isEqualTo(table.homeSlot(7));
    }

    @Test
    void shouldGrantEveryLeaseOfAThreadThatHoldsMoreThanItsHomeNeighbourhood()
    {
        final LeaseTable table = table(256);
        final long[] leases = new long[200];
        for (int i = 0; i < leases.length; i++)
        {
            leases[i] = table.acquire(modelA, 0);
            assertThat(leases[i]).isNotEqualTo(InflightTracker.NO_LEASE);
        }
        assertThat(count(modelA)).isEqualTo(leases.length);
        assertThat(table.liveCount()).isEqualTo(leases.length);
        assertThat(table.fullCount()).isZero();
        for (final long lease : leases)
        {
            assertThat(table.release(lease)).isTrue();
        }
        assertThat(count(modelA)).isZero();
        assertThat(table.liveCount()).isZero();
    }

    @Test
    void shouldCountEachLeaseOutOfTheCounterItCountedIn()
    {
        final CounterBuffers many = CounterBuffers.inMemory(4_096);
        final int[] offsets = new int[many.capacity()];
        for (int i = 0; i < offsets.length; i++)
        {
            offsets[i] = CounterBuffers.valueOffset(many.allocate("c" + i, CounterBuffers.INFLIGHT_TYPE_ID));
        }
        final LeaseTable table = new LeaseTable(1 << 13, many.values(), offsets[0], offsets[1]);
        final long[] leases = new long[offsets.length];
        for (int i = 2; i < offsets.length; i++)
        {
            leases[i] = table.acquire(offsets[i], i);
        }
        for (int i = 2; i < offsets.length; i++)
        {
            assertThat(many.values().getLongVolatile(offsets[i])).as("counter %d", i).isEqualTo(1);
        }
        final int[] reclaimedOffsets = new int[offsets.length];
        final int[] reclaimedCount = new int[1];
        // Stamps are the counter numbers: reclaim the first half by epoch, end the rest.
        assertThat(table.sweep(offsets.length / 2, offset -> reclaimedOffsets[reclaimedCount[0]++] = offset))
            .isEqualTo(offsets.length / 2 - 2);
        for (int i = 0; i < reclaimedCount[0]; i++)
        {
            assertThat(reclaimedOffsets[i] / (offsets[1] - offsets[0])).isLessThan(offsets.length / 2);
        }
        for (int i = 2; i < offsets.length; i++)
        {
            assertThat(table.release(leases[i])).as("lease %d", i).isEqualTo(i >= offsets.length / 2);
            assertThat(many.values().getLongVolatile(offsets[i])).as("counter %d", i).isZero();
        }
    }

    @Test
    void shouldRefuseAValuesBufferOfMoreCountersThanAClaimWordNames()
    {
        // Only the length is looked at: a view of a small buffer that claims more counters than 22 bits name.
        final java.nio.ByteBuffer small = org.agrona.BufferUtil.allocateDirectAligned(64, 64);
        final org.agrona.concurrent.UnsafeBuffer tooMany = new org.agrona.concurrent.UnsafeBuffer(
            org.agrona.BufferUtil.address(small), (LeaseTable.MAX_COUNTERS + 1) * org.agrona.concurrent.status.CountersReader.COUNTER_LENGTH);
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
            .isThrownBy(() -> new LeaseTable(2, tooMany, 0, 128))
            .withMessageContaining("at most " + LeaseTable.MAX_COUNTERS + " counters");
    }
}
