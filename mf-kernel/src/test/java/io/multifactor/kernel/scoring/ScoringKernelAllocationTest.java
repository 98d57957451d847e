package io.multifactor.kernel.scoring;

import io.multifactor.api.Exclusions;
import io.multifactor.api.Outcome;
import io.multifactor.api.Selection;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.NoCandidatesPolicy;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * After warm-up, selections ({@link ScoringKernel#select} into a reused {@link Selection}), on sealed signals and on
 * signals never sealed ({@link CandidateSignals#seal}), allocate nothing on the calling thread, measured with {@link com.sun.management.ThreadMXBean#getThreadAllocatedBytes(long)}. Not a speed test.
 */
class ScoringKernelAllocationTest
{
    /** Selections measured after warm-up. */
    static final int MEASURED_SELECTIONS = 100_000;
    /** Measured rounds at most; the last one counts. */
    static final int MEASURED_ROUNDS = 3;

    private static final int WARM_UP_SELECTIONS = 200_000;
    private static final int VARIANTS = 1024;
    private static final int[] SIZES = { 4, 7, 12, 16 };

    private final DecisionPlan[] plans = new DecisionPlan[SIZES.length];
    private final double[][] tpotMs = new double[VARIANTS][];
    private final double[][] ttftMs = new double[VARIANTS][];
    private final long[][] inflight = new long[VARIANTS][];
    private final Exclusions[] excluded = new Exclusions[VARIANTS];
    private final CandidateSignals[][] signals = new CandidateSignals[SIZES.length][VARIANTS];
    private final int[] outcomes = new int[Outcome.FAILED + 1];

    @Test
    void shouldAllocateNothingPerSelectionAfterWarmUp()
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        assertThat(threads.isThreadAllocatedMemorySupported()).isTrue();
        threads.setThreadAllocatedMemoryEnabled(true);
        final long threadId = Thread.currentThread().getId();
        setUp();
        final Selection selection = new Selection(16);

        long checksum = run(selection, WARM_UP_SELECTIONS);

        // What two back-to-back reads cost, so the figure below is the loop's own allocation.
        final long overheadStart = threads.getThreadAllocatedBytes(threadId);
        final long overheadEnd = threads.getThreadAllocatedBytes(threadId);
        final long overheadBytes = overheadEnd - overheadStart;

        // A one-off allocation while the JIT finishes (first-time linkage on a busy machine) is not per selection: up
        // to three measured rounds, the last must allocate nothing (one object per selection would be >= 1.6 MB each).
        long allocatedBytes = -1;
        long start = 0;
        long end = 0;
        for (int round = 0; round < MEASURED_ROUNDS && allocatedBytes != 0; round++)
        {
            java.util.Arrays.fill(outcomes, 0);
            start = threads.getThreadAllocatedBytes(threadId);
            checksum += run(selection, MEASURED_SELECTIONS);
            end = threads.getThreadAllocatedBytes(threadId);
            allocatedBytes = end - start - overheadBytes;
        }
        System.out.println("ScoringKernelAllocationTest: " + MEASURED_SELECTIONS + " selections (4-16 candidates, all " +
            "ceilings on, half of them sealed) allocated " + allocatedBytes + " bytes on the calling thread (raw " + (end - start) +
            " bytes, measurement overhead " + overheadBytes + " bytes); outcomes scored/cheapest/first/failed = " +
            outcomes[Outcome.SCORED] + "/" + outcomes[Outcome.FALLBACK_CHEAPEST] + "/" +
            outcomes[Outcome.FALLBACK_FIRST] + "/" + outcomes[Outcome.FAILED] + ", checksum " + checksum);
        assertThat(allocatedBytes).isZero();
        assertThat(outcomes[Outcome.SCORED]).isPositive();
        assertThat(outcomes[Outcome.FALLBACK_CHEAPEST] + outcomes[Outcome.FALLBACK_FIRST] + outcomes[Outcome.FAILED])
            .isPositive();
    }

    private long run(final Selection selection, final int count)
    {
        long checksum = 0;
        for (int k = 0; k < count; k++)
        {
            final int p = k & (SIZES.length - 1);
            final int v = (k >>> 2) & (VARIANTS - 1);
            ScoringKernel.select(plans[p], signals[p][v], excluded[v], selection);
            outcomes[selection.outcome()]++;
            checksum += selection.selectedModel();
        }
        return checksum;
    }

    private void setUp()
    {
        final SplittableRandom random = new SplittableRandom(20261129L);
        final PlansBuilder builder = new PlansBuilder();
        for (int m = 0; m < 16; m++)
        {
            builder.model("m" + m, random.nextDouble(), m % 5 == 4 ? Double.NaN : random.nextDouble(0.1, 20.0));
        }
        for (int d = 0; d < SIZES.length; d++)
        {
            final String[] candidates = new String[SIZES[d]];
            for (int i = 0; i < candidates.length; i++)
            {
                candidates[i] = "m" + ((i * 5 + d) % 16);
            }
            builder.decision("d" + d).candidates(candidates).weights(0.4, 0.3, 0.2, 0.1)
                .slo(150.0, 900.0, 15.0, 40).policy(d % 3 == 0 ? NoCandidatesPolicy.CHEAPEST :
                    d % 3 == 1 ? NoCandidatesPolicy.FIRST : NoCandidatesPolicy.FAIL).add();
        }
        final Plans built = builder.build();
        for (int d = 0; d < SIZES.length; d++)
        {
            plans[d] = built.decision(built.decisionId("d" + d));
        }
        for (int v = 0; v < VARIANTS; v++)
        {
            // One variant in eight is overloaded: every candidate breaks a ceiling, so the policies run too.
            final boolean overloaded = v % 8 == 7;
            tpotMs[v] = new double[16];
            ttftMs[v] = new double[16];
            inflight[v] = new long[16];
            excluded[v] = new Exclusions();
            for (int i = 0; i < 16; i++)
            {
                tpotMs[v][i] = overloaded ? 200.0 + i : random.nextInt(10) == 0 ? Double.NaN : random.nextDouble(5, 160);
                ttftMs[v][i] = random.nextInt(10) == 0 ? Double.NaN : random.nextDouble(50, 1000);
                inflight[v][i] = random.nextLong(45);
                if (random.nextInt(20) == 0)
                {
                    excluded[v].add(built.modelId("m" + i));
                }
            }
            for (int d = 0; d < SIZES.length; d++)
            {
                final DecisionPlan plan = plans[d];
                signals[d][v] = CandidateSignals.standalone(plan.candidateCount());
                for (int i = 0; i < plan.candidateCount(); i++)
                {
                    signals[d][v].publishLatencyMs(i, tpotMs[v][i], ttftMs[v][i]);
                    signals[d][v].inflight(i, inflight[v][i]);
                }
                // Half the variants sealed, as an engine's signals are after each publication: both paths measured.
                if (v % 2 == 0)
                {
                    signals[d][v].seal(plan);
                }
            }
        }
    }
}
