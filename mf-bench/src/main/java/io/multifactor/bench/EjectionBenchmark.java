package io.multifactor.bench;

import io.multifactor.api.Selection;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import io.multifactor.kernel.reliability.EjectionPolicy;
import org.agrona.concurrent.CachedNanoClock;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * The cost of ejection on the hot paths, in the same run: {@code select} on a decision whose every candidate has
 * {@code reliability} (none ejected) against the same decision without it, and {@code begin} + {@code end(lease,
 * status)} (a 200) against {@code begin} + {@code end(lease)}. The figures: the first ratio within 1.05x, the
 * second within 1.2x.
 * <p>
 * This class is a JMH {@code Scope.Thread} state: each benchmark thread has its own engines and selection.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = BenchFlags.AGRONA_ADD_EXPORTS)
public class EjectionBenchmark
{
    /** Candidates of the decision. */
    @Param({ "4", "16" })
    public int candidates;

    MultiFactorEngine plain;
    MultiFactorEngine ejecting;
    Selection out;
    int decision;
    int model;

    /** Two engines on the same decision, one with reliability on every model; some latency and load on each. */
    @Setup(Level.Trial)
    public void setup()
    {
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(TimeUnit.HOURS.toNanos(1));
        plain = engine(plans(false), clock);
        ejecting = engine(plans(true), clock);
        out = new Selection(candidates);
        decision = plain.decisionId("d");
        model = plain.modelId("m0");
    }

    /** Releases the engines. */
    @TearDown(Level.Trial)
    public void tearDown()
    {
        plain.close();
        ejecting.close();
    }

    private Plans plans(final boolean reliability)
    {
        final PlansBuilder builder = new PlansBuilder();
        final String[] names = new String[candidates];
        for (int m = 0; m < candidates; m++)
        {
            names[m] = "m" + m;
            builder.model(names[m], 0.5 + 0.4 * m / candidates, 1.0 + m);
            if (reliability)
            {
                builder.reliability(names[m], new EjectionPolicy(5, 30_000, 300_000, 50));
            }
        }
        return builder.decision("d").candidates(names).slo(500.0, 5_000.0, 100.0, 1_000).add().build();
    }

    /**
     * @return an engine on {@code plans} with one TPOT and one TTFT sample and one lease per model, refreshed (also
     *     {@link PrefixBenchmark}'s and EligibilityBenchmark's).
     */
    static MultiFactorEngine engine(final Plans plans, final CachedNanoClock clock)
    {
        final MultiFactorEngine engine = MultiFactorEngine.builder(plans).clock(clock).build();
        for (int m = 0; m < plans.modelCount(); m++)
        {
            engine.recordTpotMs(m, 20.0 + m);
            engine.recordTtftMs(m, 200.0 + 10 * m);
            engine.begin(m);
        }
        engine.refreshNow();
        return engine;
    }

    /** @return the chosen model, without reliability. */
    @Benchmark
    public int selectWithoutEjection()
    {
        plain.select(decision, null, out);
        return out.selectedModel();
    }

    /** @return the chosen model, every candidate with reliability and none ejected. */
    @Benchmark
    public int selectWithEjectionConfigured()
    {
        ejecting.select(decision, null, out);
        return out.selectedModel();
    }

    /** @return whether the lease was released (reports nothing). */
    @Benchmark
    public boolean beginEnd()
    {
        return ejecting.end(ejecting.begin(model));
    }

    /** @return whether the lease was released, reporting a 200 to a model with reliability. */
    @Benchmark
    public boolean beginEndWithStatus()
    {
        return ejecting.end(ejecting.begin(model), 200);
    }
}
