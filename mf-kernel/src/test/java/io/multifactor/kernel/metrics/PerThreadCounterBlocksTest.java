package io.multifactor.kernel.metrics;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.ref.WeakReference;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PerThreadCounterBlocksTest
{
    private final CounterBuffers counters = CounterBuffers.inMemory(256);
    private final int first = counters.allocate("mf.selected{a}", CounterTypes.SELECTED);
    private final int second = counters.allocate("mf.drops{b}", CounterTypes.DROPS);
    private final PerThreadCounterBlocks blocks = new PerThreadCounterBlocks(counters.values());

    private long shared(final int counterId)
    {
        return counters.value(counterId);
    }

    @Test
    void shouldPublishCountsOnlyWhenAggregated()
    {
        final SingleWriterCounterBlock block = blocks.forCurrentThread();
        block.increment(first);
        block.increment(first);
        block.increment(second);
        assertThat(block.count(first)).isEqualTo(2);
        assertThat(shared(first)).isZero();
        assertThat(shared(second)).isZero();

        assertThat(blocks.aggregate()).isEqualTo(2);
        assertThat(shared(first)).isEqualTo(2);
        assertThat(shared(second)).isEqualTo(1);
    }

    @Test
    void shouldAddOnlyWhatWasCountedSinceThePreviousAggregation()
    {
        final SingleWriterCounterBlock block = blocks.forCurrentThread();
        block.increment(first);
        blocks.aggregate();
        assertThat(blocks.aggregate()).as("nothing new").isZero();
        assertThat(shared(first)).isEqualTo(1);
        block.increment(first);
        block.increment(first);
        assertThat(blocks.aggregate()).isEqualTo(1);
        assertThat(shared(first)).isEqualTo(3);
        // Another writer of the shared counter (a reload keeps its value) is added to, never overwritten.
        counters.values().getAndAddLong(CounterBuffers.valueOffset(first), 10);
        block.increment(first);
        blocks.aggregate();
        assertThat(shared(first)).isEqualTo(14);
    }

    @Test
    void shouldGiveTheSameThreadTheSameBlockAndAnotherThreadAnother() throws Exception
    {
        final SingleWriterCounterBlock mine = blocks.forCurrentThread();
        assertThat(blocks.forCurrentThread()).isSameAs(mine);
        final SingleWriterCounterBlock[] theirs = new SingleWriterCounterBlock[1];
        final Thread other = new Thread(() -> theirs[0] = blocks.forCurrentThread());
        other.start();
        other.join();
        assertThat(theirs[0]).isNotNull().isNotSameAs(mine);
        assertThat(blocks.blocksCreated()).isEqualTo(2);
    }

    @Test
    void shouldGrowABlockForAHigherCounterIdWithoutLosingCounts()
    {
        final SingleWriterCounterBlock block = blocks.forCurrentThread();
        block.increment(first);
        blocks.aggregate();
        block.increment(first);
        int last = -1;
        for (int i = 0; i < 200; i++)
        {
            last = counters.allocate("mf.drops{n" + i + "}", CounterTypes.DROPS);
        }
        block.increment(last);
        block.increment(last);
        block.increment(first);
        assertThat(block.count(last)).isEqualTo(2);
        blocks.aggregate();
        assertThat(shared(first)).isEqualTo(3);
        assertThat(shared(last)).isEqualTo(2);
    }

    @Test
    void shouldCountNothingForANegativeId()
    {
        final SingleWriterCounterBlock block = blocks.forCurrentThread();
        block.increment(-1);
        block.increment(Integer.MIN_VALUE);
        assertThat(block.count(-1)).isZero();
        assertThat(blocks.aggregate()).isZero();
    }

    @Test
    void shouldSizeNewBlocksForTheIdLimit() throws Exception
    {
        blocks.idLimit(200);
        final int high = 199;
        final int[] length = new int[1];
        final Thread thread = new Thread(() ->
        {
            final SingleWriterCounterBlock block = blocks.forCurrentThread();
            length[0] = block.current().length;
            block.increment(high);
        });
        thread.start();
        thread.join();
        assertThat(length[0]).isEqualTo(200 + 2 * SingleWriterCounterBlock.PADDING);
        blocks.aggregate();
        assertThat(shared(high)).isEqualTo(1);
    }

    @Test
    void shouldFoldTheLastCountsOfADeadThreadThenReuseItsBlock() throws Exception
    {
        final SingleWriterCounterBlock[] used = new SingleWriterCounterBlock[2];
        final Thread dying = new Thread(() ->
        {
            used[0] = blocks.forCurrentThread();
            for (int i = 0; i < 5; i++)
            {
                used[0].increment(first);
            }
        });
        dying.start();
        dying.join();
        assertThat(blocks.liveBlocks()).isEqualTo(1);

        assertThat(blocks.aggregate()).isEqualTo(1);
        assertThat(shared(first)).as("the dead thread's counts, folded before its block is freed").isEqualTo(5);
        assertThat(blocks.liveBlocks()).isZero();
        assertThat(blocks.freeBlocks()).isEqualTo(1);

        final Thread next = new Thread(() ->
        {
            used[1] = blocks.forCurrentThread();
            used[1].increment(first);
            used[1].increment(second);
        });
        next.start();
        next.join();
        assertThat(used[1]).isSameAs(used[0]);
        assertThat(blocks.blocksCreated()).isEqualTo(1);
        blocks.aggregate();
        assertThat(shared(first)).isEqualTo(6);
        assertThat(shared(second)).isEqualTo(1);
    }

    @Test
    void shouldTakeOverADeadOwnersBlockBetweenAggregationsWithoutLosingItsCounts() throws Exception
    {
        final SingleWriterCounterBlock[] used = new SingleWriterCounterBlock[2];
        final Thread dying = new Thread(() ->
        {
            used[0] = blocks.forCurrentThread();
            used[0].increment(first);
            used[0].increment(first);
        });
        dying.start();
        dying.join();
        // No aggregation in between: the next thread finds the dead owner's block among the live ones.
        final Thread next = new Thread(() ->
        {
            used[1] = blocks.forCurrentThread();
            used[1].increment(first);
        });
        next.start();
        next.join();
        assertThat(used[1]).isSameAs(used[0]);
        assertThat(blocks.blocksCreated()).isEqualTo(1);
        assertThat(shared(first)).as("folded when taken over").isEqualTo(2);
        blocks.aggregate();
        assertThat(shared(first)).isEqualTo(3);
        assertThat(blocks.liveBlocks()).isZero();
    }

    @Test
    void shouldKeepAtMostTheFreeBlocksItCanReuse() throws Exception
    {
        final int burst = PerThreadCounterBlocks.FREE_BLOCKS_KEPT + 36;
        final java.util.concurrent.CountDownLatch allCounting = new java.util.concurrent.CountDownLatch(burst);
        final java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
        final Thread[] threads = new Thread[burst];
        for (int t = 0; t < burst; t++)
        {
            threads[t] = new Thread(() ->
            {
                blocks.forCurrentThread().increment(second);
                allCounting.countDown();
                try
                {
                    done.await();
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                }
            });
            threads[t].start();
        }
        allCounting.await();
        assertThat(blocks.liveBlocks()).isEqualTo(burst);
        done.countDown();
        for (final Thread thread : threads)
        {
            thread.join();
        }
        blocks.aggregate();
        assertThat(shared(second)).isEqualTo(burst);
        assertThat(blocks.liveBlocks()).isZero();
        assertThat(blocks.freeBlocks()).isEqualTo(PerThreadCounterBlocks.FREE_BLOCKS_KEPT);
    }

    @Test
    void shouldNotKeepTheBlocksAliveThroughTheThreadsOwnBlockOnceTheyAreDropped()
    {
        // An engine's blocks (and through them its counters' direct memory) must be collectable once the engine is
        // closed and dropped, although every thread that selected keeps its block as a ThreadLocal value: the value
        // must not reach its ThreadLocal, or the entry lives as long as the thread (which was 5 MB per engine).
        final WeakReference<PerThreadCounterBlocks> dropped = countOnceAndDrop();
        for (int i = 0; i < 50 && dropped.get() != null; i++)
        {
            System.gc();
        }
        assertThat(dropped.get()).as("the blocks, dropped by their only holder, collected").isNull();
    }

    private static WeakReference<PerThreadCounterBlocks> countOnceAndDrop()
    {
        final CounterBuffers own = CounterBuffers.inMemory(16);
        final PerThreadCounterBlocks family = new PerThreadCounterBlocks(own.values());
        family.forCurrentThread().increment(own.allocate("mf.selected{x}", CounterTypes.SELECTED));
        family.aggregate();
        return new WeakReference<>(family);
    }
}
