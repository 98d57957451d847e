package io.multifactor.bench;

import io.multifactor.api.Factor;
import io.multifactor.api.LatencyMetric;
import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import io.multifactor.kernel.plan.TieBreak;
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
 * {@code MultiFactorEngine.select} with each extension of the selection on, beside the plain case, over the same
 * {@link SelectFixture#SETS} decisions and signals (real samples, real leases), rotated per invocation. Every variant
 * runs through {@link MultiFactorEngine#select(Request, Selection)} except {@code legacy}, the old
 * {@code select(decisionId, exclusions, selection)} on the plain decisions: the claims are ratios against {@code plain}
 * in the same run.
 * <ul>
 *   <li>{@code plain}: no extension key; {@code legacy}: the same through the old overload;</li>
 *   <li>{@code floor}: {@code slo.min_quality: 0.4} (about a quarter of the pool below it);</li>
 *   <li>{@code ttft}: {@code latency_metric: ttft};</li>
 *   <li>{@code costMix}: {@code cost_mix: {prompt: 3, completion: 1}};</li>
 *   <li>{@code tokens}: plain decisions, the request carrying {@code prompt_tokens} and {@code max_output_tokens};</li>
 *   <li>{@code lexicographic}: {@code priority: [quality, latency, cost]}, {@code tolerance: 0.1};</li>
 *   <li>{@code tieBand}: {@code tie_band: 0.05}; {@code tieRandom}: the same with {@code tie_break: random}.</li>
 * </ul>
 * <p>
 * This class is a JMH {@code Scope.Thread} state: each benchmark thread has its own instance.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = BenchFlags.AGRONA_ADD_EXPORTS)
public class ExtensionsBenchmark
{
    /** Candidates per decision. */
    @Param({ "4", "16" })
    public int candidates;

    /** Which extension is on (see the class comment). */
    @Param({ "plain", "legacy", "floor", "ttft", "costMix", "tokens", "lexicographic", "tieBand", "tieRandom" })
    public String variant;

    MultiFactorEngine engine;
    Selection selection;
    Request request;
    int[] decisionIds;
    boolean legacy;
    int cursor;

    /** Builds the engine, feeds it and compiles the variant's decisions. */
    @Setup(Level.Trial)
    public void setup()
    {
        final SelectFixture fixture = new SelectFixture(SelectBenchmark.SEED, candidates);
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(TimeUnit.HOURS.toNanos(1));
        final Plans first = fixture.plans(null, null);
        engine = MultiFactorEngine.builder(first).clock(clock).build();
        fixture.feed(engine, engine, null);
        engine.replacePlans(fixture.plans(first, true, (set, spec) -> shape(spec, variant)));
        engine.refreshNow();
        decisionIds = SelectFixture.decisionIds(engine);
        selection = new Selection(candidates);
        request = new Request().seed(SelectBenchmark.SEED);
        if ("tokens".equals(variant))
        {
            request.promptTokens(1_200).maxOutputTokens(400);
        }
        legacy = "legacy".equals(variant);
        cursor = 0;
        for (int s = 0; s < SelectFixture.SETS; s++)
        {
            if (select() < 0)
            {
                throw new IllegalStateException(variant + ": set " + s + " selected nothing");
            }
        }
    }

    /** Releases the engine. */
    @TearDown(Level.Trial)
    public void tearDown()
    {
        engine.close();
    }

    /**
     * One selection of the next decision.
     *
     * @return the chosen position.
     */
    @Benchmark
    public int select()
    {
        final int k = cursor;
        cursor = (k + 1) & SelectFixture.SET_MASK;
        if (legacy)
        {
            engine.select(decisionIds[k], null, selection);
        }
        else
        {
            engine.select(request.decision(decisionIds[k]), selection);
        }
        return selection.selectedIndex();
    }

    private static void shape(final PlansBuilder.DecisionSpec spec, final String variant)
    {
        switch (variant)
        {
            case "floor":
                spec.minQuality(0.4);
                break;
            case "ttft":
                spec.latencyMetric(LatencyMetric.TTFT);
                break;
            case "costMix":
                spec.costMix(3, 1);
                break;
            case "lexicographic":
                spec.lexicographic(0.1, Factor.QUALITY, Factor.LATENCY, Factor.COST);
                break;
            case "tieBand":
                spec.tieBand(0.05);
                break;
            case "tieRandom":
                spec.tieBand(0.05).tieBreak(TieBreak.RANDOM);
                break;
            default:
                break;
        }
    }
}
