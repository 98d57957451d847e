package io.multifactor.bench;

import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.engine.SignalSettings;
import io.multifactor.kernel.latency.LatencyEstimatorType;
import io.multifactor.kernel.plan.LoadMetric;
import io.multifactor.kernel.plan.Pick;
import io.multifactor.kernel.plan.Plans;
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
 * The signals of section 4.4 on the hot paths, each beside the default in the same run (the claims are ratios):
 * {@code select} with {@code latency_estimator: peak_ewma}, with {@code pick: p2c} and with {@code load_metric: tokens}
 * against the default {@code window} (each within 1.1x, 0 B/op), and recording one TPOT sample into a peak-EWMA
 * estimate against recording it into the window (within 1.2x, 0 B/op; {@code recordTpot} of {@code p2c} and
 * {@code tokens} is the window's again).
 * <ul>
 *   <li>{@code window}: the default estimator, the plain decisions of {@link SelectFixture};</li>
 *   <li>{@code peakEwma}: the same decisions and samples, with {@code signals.latency_estimator: peak_ewma};</li>
 *   <li>{@code p2c}: the plain decisions with {@code pick: p2c};</li>
 *   <li>{@code tokens}: the plain decisions with {@code load_metric: tokens} (the fixture's leases weigh 1000).</li>
 * </ul>
 * Run it on a quiet machine only for figures: {@code java -jar mf-bench/target/benchmarks.jar SignalVariants -prof gc}.
 * <p>
 * This class is not threadsafe: JMH gives each benchmark thread its own state.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = BenchFlags.AGRONA_ADD_EXPORTS)
public class SignalVariantsBenchmark
{
    /** Candidates per decision. */
    @Param({ "4", "16" })
    public int candidates;

    /** Which signal variant is on (see the class comment). */
    @Param({ "window", "peakEwma", "p2c", "tokens" })
    public String variant;

    MultiFactorEngine engine;
    Selection selection;
    Request request;
    int[] decisionIds;
    int cursor;
    long sampleMicros;
    int sampleModel;

    /** Builds the engine with the variant's settings, feeds it the fixture's samples and leases, and publishes. */
    @Setup(Level.Trial)
    public void setup()
    {
        final SelectFixture fixture = new SelectFixture(SelectBenchmark.SEED, candidates);
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(TimeUnit.HOURS.toNanos(1));
        final Plans plans = fixture.plans(null, null);
        SignalSettings settings = SignalSettings.defaults();
        if ("peakEwma".equals(variant))
        {
            settings = settings.withLatencyEstimator(LatencyEstimatorType.PEAK_EWMA, SignalSettings.DEFAULT_EWMA_DECAY_NS);
        }
        else if (!"window".equals(variant) && !"p2c".equals(variant) && !"tokens".equals(variant))
        {
            throw new IllegalArgumentException("unknown variant " + variant);
        }
        engine = MultiFactorEngine.builder(plans).clock(clock).settings(settings).build();
        // Samples one millisecond apart, so that peak-EWMA decays between them as it would under traffic.
        final SelectFixture samples = fixture.feed(engine, engine, clock);
        if ("p2c".equals(variant) || "tokens".equals(variant))
        {
            final boolean p2c = "p2c".equals(variant);
            engine.replacePlans(fixture.plans(plans, false, (set, spec) ->
            {
                if (p2c)
                {
                    spec.pick(Pick.P2C);
                }
                else
                {
                    spec.loadMetric(LoadMetric.TOKENS);
                }
            }));
        }
        engine.refreshNow();
        decisionIds = SelectFixture.decisionIds(engine);
        selection = new Selection(candidates);
        request = new Request().seed(SelectBenchmark.SEED);
        sampleMicros = samples.sampleMicros(fixture.nominalTpotMs(0));
        sampleModel = 0;
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
        engine.select(request.decision(decisionIds[k]), selection);
        return selection.selectedIndex();
    }

    /**
     * Records one TPOT sample (into the window's recorder, or the peak-EWMA estimate: a clock read and one CAS).
     *
     * @return the recorder's result code.
     */
    @Benchmark
    public int recordTpot()
    {
        return engine.recordTpotMicros(sampleModel, sampleMicros);
    }
}
