package io.multifactor.bench;

import io.multifactor.api.Factor;
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
 * {@code MultiFactorEngine.select(Request, Selection)} with the prefix factor against the same selection without it,
 * in the same run: one decision of {@code candidates} models, each with a prompt, a completion and a cached prompt
 * price, TPOT and TTFT samples and a lease, every ceiling on (none broken).
 * <ul>
 *   <li>{@code without}: the seed's four weights; the request supplies no cached share, so the selection runs on the
 *       sealed signals as any request without shares does;</li>
 *   <li>{@code prefix}: the same decision with {@code weights.prefix} (0.2 of seven), and a request that supplies every
 *       candidate's cached share (0..1, set once: the caller's {@code prefixMatch} calls are not measured): the factor
 *       is read, bounded and scored, and each candidate's prompt is priced at its cached share.</li>
 * </ul>
 * The goal (one added factor): {@code prefix - without} at most 10 ns + 1 ns per candidate.
 * <p>
 * This class is a JMH {@code Scope.Thread} state: each benchmark thread has its own engine, request and selection.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = BenchFlags.AGRONA_ADD_EXPORTS)
public class PrefixBenchmark
{
    /** Candidates of the decision. */
    @Param({ "4", "16", "64" })
    public int candidates;

    /** {@code without} or {@code prefix} (see the class comment). */
    @Param({ "without", "prefix" })
    public String variant;

    MultiFactorEngine engine;
    Request request;
    Selection out;

    /** Builds the engine on the variant's decision, feeds it and fills the request. */
    @Setup(Level.Trial)
    public void setup()
    {
        final boolean prefix = "prefix".equals(variant);
        if (!prefix && !"without".equals(variant))
        {
            throw new IllegalArgumentException("unknown variant: " + variant);
        }
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(TimeUnit.HOURS.toNanos(1));
        engine = EjectionBenchmark.engine(plans(prefix), clock);
        request = new Request().decision(engine.decisionId("d"));
        if (prefix)
        {
            for (int m = 0; m < candidates; m++)
            {
                request.prefixMatch(m, (m * 37 % 101) / 100.0);
            }
        }
        out = new Selection(candidates);
    }

    /** Releases the engine. */
    @TearDown(Level.Trial)
    public void tearDown()
    {
        engine.close();
    }

    private Plans plans(final boolean prefix)
    {
        final PlansBuilder builder = new PlansBuilder();
        final String[] names = new String[candidates];
        for (int m = 0; m < candidates; m++)
        {
            names[m] = "m" + m;
            builder.model(names[m], 0.5 + 0.4 * m / candidates, 1.0 + m, 3.0 + m).cachedPromptPrice(names[m], 0.1 + m / 10.0);
        }
        final double[] weights = new double[Factor.COUNT];
        weights[Factor.QUALITY] = 0.4;
        weights[Factor.LATENCY] = 0.2;
        weights[Factor.COST] = 0.2;
        weights[Factor.LOAD] = 0.2;
        weights[Factor.PREFIX] = prefix ? 0.2 : 0.0;
        return builder.decision("d").candidates(names).weights(weights).slo(500.0, 5_000.0, 100.0, 1_000).add().build();
    }

    /** @return the chosen model. */
    @Benchmark
    public int select()
    {
        engine.select(request, out);
        return out.selectedModel();
    }
}
