package io.multifactor.concurrency;

import io.multifactor.kernel.metrics.CounterBuffers;
import io.multifactor.kernel.metrics.CounterTypes;
import io.multifactor.kernel.metrics.PerThreadCounterBlocks;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Counting into per-thread blocks while the aggregator folds them, under every interleaving the model checker explores:
 * each thread counts into its own block (the first count takes the blocks' lock to get one), the aggregator (one at a
 * time, as the refresh agent) adds the blocks' new counts into the shared counters, and the shared counters never
 * lose or repeat a count: after a final aggregation each equals the number of counts made. One counter id is beyond
 * a new block's size, so a block grows while the aggregator may be reading it.
 * <p>
 * Half the module's usual number of scenarios: the protocol has one writer per block and one aggregator, so few
 * scenarios reach every interleaving of a count with a fold.
 * <p>
 * The operations return nothing (a count's visibility before the next aggregation is not part of the contract); the
 * check is the validation after every run.
 */
@Param(name = "counter", gen = IntGen.class, conf = "0:2")
public class CounterBlocksLincheckTest
{
    private final CounterBuffers counters = CounterBuffers.inMemory(8);
    private final int[] ids = new int[3];
    private final AtomicLongArray counted = new AtomicLongArray(3);
    private final PerThreadCounterBlocks blocks;

    /** Allocates three counters, the last beyond a new block's size. */
    public CounterBlocksLincheckTest()
    {
        ids[0] = counters.allocate("mf.selected{a}", CounterTypes.SELECTED);
        ids[1] = counters.allocate("mf.drops{b}", CounterTypes.DROPS);
        counters.allocate("filler", CounterTypes.EVENT);
        ids[2] = counters.allocate("mf.drops{c}", CounterTypes.DROPS);
        // New blocks hold ids 0 and 1: counting the third counter grows the block.
        blocks = new PerThreadCounterBlocks(counters.values(), 2);
    }

    /** @param counter which counter the calling thread counts once. */
    @Operation
    public void count(@Param(name = "counter") final int counter)
    {
        counted.incrementAndGet(counter);
        blocks.forCurrentThread().increment(ids[counter]);
    }

    /** Folds every block's new counts into the shared counters. */
    @Operation(nonParallelGroup = "aggregator")
    public void aggregate()
    {
        blocks.aggregate();
    }

    /** After a last aggregation, every shared counter holds exactly the counts made. */
    @Validate
    public void totalsAreExact()
    {
        blocks.aggregate();
        for (int c = 0; c < ids.length; c++)
        {
            final long shared = counters.value(ids[c]);
            if (shared != counted.get(c))
            {
                throw new IllegalStateException("counter " + c + ": " + shared + " for " + counted.get(c) + " counts");
            }
        }
    }

    @Test
    void modelChecking()
    {
        new ModelCheckingOptions()
            .iterations(Budget.ITERATIONS / 2)
            .invocationsPerIteration(Budget.INVOCATIONS)
            .threads(2).actorsPerThread(3).actorsBefore(1).actorsAfter(1)
            .check(CounterBlocksLincheckTest.class);
    }

    @Test
    void stress()
    {
        new StressOptions()
            .iterations(Budget.ITERATIONS / 2)
            .invocationsPerIteration(Budget.STRESS_INVOCATIONS)
            .threads(3).actorsPerThread(3).actorsBefore(1).actorsAfter(1)
            .check(CounterBlocksLincheckTest.class);
    }
}
