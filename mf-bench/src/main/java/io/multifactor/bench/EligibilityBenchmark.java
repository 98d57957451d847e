package io.multifactor.bench;

import io.multifactor.api.Capability;
import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
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
 * The cost of eligibility and a request SLO on {@code select}, in the same run: the same decision and request without
 * them ({@link #selectWithoutEligibility}), with context windows and capabilities on every candidate and a request
 * that needs tools (every candidate eligible, so the same choice: {@link #selectWithEligibility}), and that plus the
 * request's own TTFT ceiling, tighter than the decision's but breaking none ({@link #selectWithEligibilityAndSlo}).
 * The goal: each adds at most 10 ns + 1 ns per candidate over the first.
 * <p>
 * This class is a JMH {@code Scope.Thread} state: each benchmark thread has its own engines, requests and selection.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = BenchFlags.AGRONA_ADD_EXPORTS)
public class EligibilityBenchmark
{
    /** Candidates of the decision. */
    @Param({ "4", "16", "64" })
    public int candidates;

    MultiFactorEngine plain;
    MultiFactorEngine eligible;
    Request plainRequest;
    Request needsTools;
    Request needsToolsWithSlo;
    Selection out;

    /** Two engines on the same decision, one with eligibility limits on every model; latency and load on each. */
    @Setup(Level.Trial)
    public void setup()
    {
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(TimeUnit.HOURS.toNanos(1));
        plain = EjectionBenchmark.engine(plans(false), clock);
        eligible = EjectionBenchmark.engine(plans(true), clock);
        out = new Selection(candidates);
        final int decision = plain.decisionId("d");
        plainRequest = new Request().decision(decision).promptTokens(2_000).maxOutputTokens(500);
        needsTools = new Request().decision(decision).promptTokens(2_000).maxOutputTokens(500)
            .needs(Capability.TOOLS);
        needsToolsWithSlo = new Request().decision(decision).promptTokens(2_000).maxOutputTokens(500)
            .needs(Capability.TOOLS).maxTtftMs(4_000.0);
    }

    /** Releases the engines. */
    @TearDown(Level.Trial)
    public void tearDown()
    {
        plain.close();
        eligible.close();
    }

    private Plans plans(final boolean limits)
    {
        final PlansBuilder builder = new PlansBuilder();
        final String[] names = new String[candidates];
        for (int m = 0; m < candidates; m++)
        {
            names[m] = "m" + m;
            builder.model(names[m], 0.5 + 0.4 * m / candidates, 1.0 + m);
            if (limits)
            {
                builder.eligibility(names[m], 32_768, Capability.TOOLS | Capability.JSON_SCHEMA);
            }
        }
        return builder.decision("d").candidates(names).slo(500.0, 5_000.0, 100.0, 1_000).add().build();
    }

    /** @return the chosen model, without eligibility limits or a request SLO. */
    @Benchmark
    public int selectWithoutEligibility()
    {
        plain.select(plainRequest, out);
        return out.selectedModel();
    }

    /** @return the chosen model, every candidate with a context window and capabilities, the request needing tools. */
    @Benchmark
    public int selectWithEligibility()
    {
        eligible.select(needsTools, out);
        return out.selectedModel();
    }

    /** @return the chosen model, as {@link #selectWithEligibility} with the request's own TTFT ceiling. */
    @Benchmark
    public int selectWithEligibilityAndSlo()
    {
        eligible.select(needsToolsWithSlo, out);
        return out.selectedModel();
    }
}
