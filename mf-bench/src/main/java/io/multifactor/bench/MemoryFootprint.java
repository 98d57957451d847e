package io.multifactor.bench;

import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import org.agrona.concurrent.CachedNanoClock;

import java.util.Locale;

/**
 * Measures the memory per model of an engine at default settings (goal: at most 256 KB): the heap that
 * {@value #MODELS} more models cost, divided by {@value #MODELS}, after a full garbage collection on each side, and the
 * engine's own estimate of one model's latency windows for comparison; and the heap a decision's first seals allocate
 * (the sealed terms without each candidate, for decisions of at most 16 candidates). Not a JMH benchmark: it measures
 * space, not time.
 * <p>
 * This class is used by the runner thread alone; {@link #measure()} is not threadsafe (it reads the whole heap).
 */
public final class MemoryFootprint
{
    /** The goal, bytes per model. */
    public static final long BUDGET_BYTES = 256L * 1024L;

    private static final int MODELS = 256;

    // Decisions whose first seals are measured.
    private static final int DECISIONS = 200;

    private MemoryFootprint()
    {
    }

    /** @return Markdown lines: the measured heap per model, the engine's estimate, the budget and the verdict. */
    public static String measure()
    {
        final CachedNanoClock clock = new CachedNanoClock();
        final MultiFactorEngine small = MultiFactorEngine.builder(plans(1)).clock(clock).build();
        final long estimate = small.latencyFootprintBytes(0);
        final long before = usedHeapAfterGc();
        final MultiFactorEngine large = MultiFactorEngine.builder(plans(1 + MODELS)).clock(clock).build();
        final long after = usedHeapAfterGc();
        final long perModel = Math.max(0L, after - before) / MODELS;
        final long touch = large.latencyFootprintBytes(0);
        large.close();
        small.close();
        final String verdict = perModel <= BUDGET_BYTES ? "PASS" : "FAIL";
        return String.format(Locale.ROOT,
            "- memory per model at default settings: %.1f KB of heap measured (%d models, after full GC), " +
            "%.1f KB by the engine's own estimate of its windows; budget <= 256 KB: %s%s\n",
            perModel / 1024.0, MODELS, estimate / 1024.0, verdict, touch > 0 ? "" : " (estimate unavailable)") +
            String.format(Locale.ROOT,
            "- heap the first seals allocate per decision (the sealed terms without each candidate, kept for decisions " +
            "of at most 16 candidates; %d decisions, after full GC): %.1f KB at 4 candidates, %.1f KB at 16; " +
            "information\n", DECISIONS, sealAllocationPerDecision(4) / 1024.0, sealAllocationPerDecision(16) / 1024.0);
    }

    /**
     * Prints {@link #measure()}: {@code java -cp mf-bench/target/benchmarks.jar io.multifactor.bench.MemoryFootprint}.
     *
     * @param args none.
     */
    public static void main(final String[] args)
    {
        System.out.print(measure());
    }

    // The heap that the first refreshes (the first two seals of every decision) allocate, per decision of n
    // candidates: the alternates of the sealed terms, allocated by the seals and not with the signals.
    private static long sealAllocationPerDecision(final int candidates)
    {
        final PlansBuilder builder = new PlansBuilder();
        final String[] names = new String[candidates];
        for (int m = 0; m < candidates; m++)
        {
            names[m] = "model-" + m;
            builder.model(names[m], 0.1 + 0.05 * m, 1.0 + m);
        }
        for (int d = 0; d < DECISIONS; d++)
        {
            builder.decision("decision-" + d).candidates(names).add();
        }
        final MultiFactorEngine engine = MultiFactorEngine.builder(builder.build()).clock(new CachedNanoClock()).build();
        final long before = usedHeapAfterGc();
        // Three refreshes: the two buffers of each decision's terms are each written once, and then once more.
        engine.refreshNow();
        engine.refreshNow();
        engine.refreshNow();
        final long after = usedHeapAfterGc();
        engine.close();
        return Math.max(0L, after - before) / DECISIONS;
    }

    private static Plans plans(final int models)
    {
        final PlansBuilder builder = new PlansBuilder();
        final String[] names = new String[models];
        for (int m = 0; m < models; m++)
        {
            names[m] = "model-" + m;
            builder.model(names[m], 0.5, 1.0);
        }
        builder.decision("all").candidates(names).add();
        return builder.build();
    }

    private static long usedHeapAfterGc()
    {
        final Runtime runtime = Runtime.getRuntime();
        long used = Long.MAX_VALUE;
        // Several rounds: one System.gc() may leave floating garbage behind.
        for (int i = 0; i < 4; i++)
        {
            System.gc();
            used = Math.min(used, runtime.totalMemory() - runtime.freeMemory());
        }
        return used;
    }
}
