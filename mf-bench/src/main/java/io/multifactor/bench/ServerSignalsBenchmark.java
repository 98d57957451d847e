package io.multifactor.bench;

import io.multifactor.api.DropReason;
import io.multifactor.api.Factor;
import io.multifactor.api.Selection;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.SignalCeilings;
import io.multifactor.kernel.signal.ServerBackend;
import io.multifactor.kernel.signal.ServerKind;
import io.multifactor.kernel.signal.ServerMetricsSettings;
import io.multifactor.kernel.signal.WhenStale;
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

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code MultiFactorEngine.select} with the model-server signals against the same selection without them, over the
 * same {@link SelectFixture#SETS} decisions and signals (real samples, real leases), rotated per invocation: the claim
 * is "a new signal (queue, KV-cache) on {@code select} within 1.1x of {@code select} without it, same run", so the
 * verdict is the ratio {@code queueKv / without} at each candidate count.
 * <ul>
 *   <li>{@code without}: the seed's four weights and ceilings; the engine scrapes nothing, so its decisions carry no
 *       server signal (the kernel reads none);</li>
 *   <li>{@code queueKv}: every model of the pool has two backends whose load is published (a queue of 0..15 waiting,
 *       a KV-cache use of 0.05..0.95, one model in eight with no fresh backend), and the decisions add the
 *       {@code queue} and {@code kv_cache} weights (0.1 each), {@code max_queue: 12}, {@code max_kv_cache: 0.9} and
 *       {@code when_stale: saturated}: both factors ranked, the three checks made, a few candidates dropped;</li>
 *   <li>{@code queueKvInBounds}: the same decisions and ceilings, every model with fresh backends whose queue (0..11)
 *       and KV-cache use (0.05..0.85) stay within them, so that the new ceilings drop nothing and each decision drops
 *       what it drops in {@code without}: the cost of the two signals and three checks on the same workload.</li>
 * </ul>
 * {@code queueKv} against {@code without} compares two workloads (the first drops more candidates, and a drop takes the
 * reason chain); {@code queueKvInBounds} against {@code without} compares two code paths on one workload.
 * <p>
 * This class is a JMH {@code Scope.Thread} state: each benchmark thread has its own instance.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = BenchFlags.AGRONA_ADD_EXPORTS)
public class ServerSignalsBenchmark
{
    /** Candidates per decision. */
    @Param({ "4", "16", "64" })
    public int candidates;

    /** {@code without}, {@code queueKv} or {@code queueKvInBounds} (see the class comment). */
    @Param({ "without", "queueKv", "queueKvInBounds" })
    public String variant;

    MultiFactorEngine engine;
    Selection selection;
    int[] decisionIds;
    int cursor;

    /** Builds the engine, feeds it and compiles the variant's decisions. */
    @Setup(Level.Trial)
    public void setup()
    {
        final boolean inBounds = "queueKvInBounds".equals(variant);
        final boolean servers = inBounds || "queueKv".equals(variant);
        if (!servers && !"without".equals(variant))
        {
            throw new IllegalArgumentException("variant must be without, queueKv or queueKvInBounds: " + variant);
        }
        final SelectFixture fixture = new SelectFixture(SelectBenchmark.SEED, candidates);
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(TimeUnit.HOURS.toNanos(1));
        final Plans plans = fixture.plans(null, true, (set, spec) ->
        {
            if (servers)
            {
                final double[] w = new double[Factor.COUNT];
                System.arraycopy(fixture.weights(set), 0, w, 0, Factor.SEED_COUNT);
                w[Factor.QUEUE] = 0.1;
                w[Factor.KV_CACHE] = 0.1;
                spec.weights(w).signalCeilings(new SignalCeilings(0L, 12.0, 0.9, true));
            }
        });
        final ServerMetricsSettings settings = new ServerMetricsSettings(
            ServerMetricsSettings.DEFAULT_EVERY_NS, "/metrics", 250_000_000L, TimeUnit.HOURS.toNanos(2),
            WhenStale.SATURATED);
        final List<ServerBackend> backends = new ArrayList<>();
        for (int m = 0; servers && m < SelectFixture.POOL_SIZE; m++)
        {
            backends.add(new ServerBackend(fixture.modelName(m), false, "10.0." + m + ".1", 8000, ServerKind.VLLM));
            backends.add(new ServerBackend(fixture.modelName(m), false, "10.0." + m + ".2", 8000, ServerKind.VLLM));
        }
        engine = MultiFactorEngine.builder(plans).clock(clock).serverMetrics(servers ? settings : null, backends)
            .build();
        fixture.feed(engine, engine, null);
        for (int b = 0; b < backends.size(); b++)
        {
            final int m = b >> 1;
            if (inBounds)
            {
                // Under max_queue (12) and max_kv_cache (0.9) on every backend of every model.
                engine.reportServerLoad(engine.modelId(backends.get(b).model()), backends.get(b).key(),
                    (m * 7 + b) % 12, Double.NaN, 0.05 + 0.8 * ((m * 13 + b * 5) % 19) / 18.0);
            }
            else if ((m & 7) != 7)
            {
                // One model in eight never answers: missing signals (not stale: its grace lasts the whole run).
                engine.reportServerLoad(engine.modelId(backends.get(b).model()), backends.get(b).key(),
                    (m * 7 + b) % 16, Double.NaN, 0.05 + 0.9 * ((m * 13 + b * 5) % 19) / 18.0);
            }
        }
        engine.refreshNow();
        decisionIds = SelectFixture.decisionIds(engine);
        selection = new Selection(candidates);
        cursor = 0;
        for (int s = 0; s < SelectFixture.SETS; s++)
        {
            if (select() < 0)
            {
                throw new IllegalStateException(variant + ": set " + s + " selected nothing");
            }
            for (int i = 0; inBounds && i < candidates; i++)
            {
                final int reason = selection.dropReason(i);
                if (reason == DropReason.QUEUE || reason == DropReason.KV_CACHE || reason == DropReason.STALE)
                {
                    throw new IllegalStateException(variant + ": set " + s + " dropped candidate " + i + " for " +
                        DropReason.label(reason));
                }
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
        engine.select(decisionIds[k], null, selection);
        return selection.selectedIndex();
    }
}
