package io.multifactor.bench;

import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.testkit.reference.ReferenceDecision;
import io.multifactor.testkit.reference.ReferenceModel;
import io.multifactor.testkit.reference.ReferenceRouter;
import org.agrona.concurrent.CachedNanoClock;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code begin} then {@code end} of one lease, rotating over 64 models, by the engine (Agrona counters and a lease
 * table) and by the reference router (maps under a lock), in the same run.
 * <p>
 * This class is a JMH {@code Scope.Thread} state: each benchmark thread has its own engine, router and inputs.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = BenchFlags.AGRONA_ADD_EXPORTS)
public class InflightBenchmark
{
    MultiFactorEngine engine;
    ReferenceRouter router;
    SignalInputs inputs;

    /** Builds the engine and the router over the 64-model pool. */
    @Setup(Level.Trial)
    public void setup()
    {
        final SelectFixture fixture = new SelectFixture(SelectBenchmark.SEED, SelectFixture.POOL_SIZE);
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(TimeUnit.HOURS.toNanos(1));
        engine = MultiFactorEngine.builder(fixture.plans(null, null)).clock(clock).build();
        final List<ReferenceModel> models = new ArrayList<>();
        for (int m = 0; m < SelectFixture.POOL_SIZE; m++)
        {
            models.add(new ReferenceModel(fixture.modelName(m), fixture.quality(m), fixture.promptPer1M(m)));
        }
        router = new ReferenceRouter(
            models, List.of(ReferenceDecision.withDefaults("all", models)), clock, TimeUnit.SECONDS.toNanos(60));
        inputs = new SignalInputs(fixture, SelectFixture.POOL_SIZE, 23L);
    }

    /** Releases the engine. */
    @TearDown(Level.Trial)
    public void tearDown()
    {
        engine.close();
    }

    /** @return whether the engine released the lease it just gave. */
    @Benchmark
    public boolean beginEnd()
    {
        final long lease = engine.begin(inputs.modelIds[inputs.next()]);
        return engine.end(lease);
    }

    /** @return whether the reference router released the lease it just gave. */
    @Benchmark
    public boolean reference()
    {
        final long lease = router.begin(inputs.modelIds[inputs.next()]);
        return router.end(lease);
    }
}
