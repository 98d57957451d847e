package io.multifactor.bench;

import io.multifactor.api.Selection;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.fleet.FleetAgent;
import io.multifactor.kernel.fleet.FleetSignals;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import io.multifactor.redis.FleetCodec;
import io.multifactor.sim.fleet.InMemoryFleet;
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

import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * The fleet exchange of {@code models} models per period, off the request path, and {@code select} with a fleet
 * attached against the same engine shape without one, in the same run:
 * <ul>
 *   <li>{@code exchangePeriod}: one period of a two-replica in-memory fleet: each replica records
 *       {@value #SAMPLES_PER_PERIOD} samples per model and metric, then its agent collects (drains the windows),
 *       exchanges and merges the other's counts and intervals into its windows;</li>
 *   <li>{@code encodeEntry} / {@code decodeEntry}: the Redis entry of one latency period (every model with TTFT and TPOT
 *       intervals, HdrHistogram compressed encoding), as a replica writes and an aggregator reads it;</li>
 *   <li>{@code selectAlone} / {@code selectWithFleet}: a 16-candidate decision on an engine without and with remote
 *       counts merged into its counters (the fleet changes no instruction of select: the ratio should be 1).</li>
 * </ul>
 * The network round trip of the Redis exchange is not here (it is one pipelined round trip per half period; see
 * docs/fleet.md). This class is a JMH {@code Scope.Thread} state.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = BenchFlags.AGRONA_ADD_EXPORTS)
public class FleetExchangeBenchmark
{
    /** Samples per model and metric recorded by each replica in one period. */
    static final int SAMPLES_PER_PERIOD = 8;

    private static final long PERIOD_NS = 250_000_000L;

    /** Models exchanged per period. */
    @Param({ "64" })
    public int models;

    CachedNanoClock clock;
    MultiFactorEngine one;
    MultiFactorEngine two;
    FleetAgent agentOne;
    FleetAgent agentTwo;
    int[] modelIds;
    SplittableRandom random;
    FleetCodec codec;
    FleetSignals entrySignals;
    byte[] entry;
    MultiFactorEngine alone;
    MultiFactorEngine shared;
    int aloneDecision;
    int sharedDecision;
    Selection selection;

    /** Builds two replicas in a fleet, an encoded entry, and the two select engines. */
    @Setup(Level.Trial)
    public void setup()
    {
        final PlansBuilder builder = new PlansBuilder();
        final String[] names = new String[models];
        for (int m = 0; m < models; m++)
        {
            names[m] = "model-" + m;
            builder.model(names[m], 0.5 + m / (2.0 * models), 1.0 + m);
        }
        final String[] sixteen = java.util.Arrays.copyOf(names, Math.min(16, models));
        builder.decision("d").candidates(sixteen).slo(0.0, 0.0, 0.0, 1_000).add();
        final Plans plans = builder.build();
        clock = new CachedNanoClock();
        clock.update(TimeUnit.HOURS.toNanos(1));
        final InMemoryFleet fleet = new InMemoryFleet(PERIOD_NS, 256);
        one = MultiFactorEngine.builder(plans).clock(clock).build();
        two = MultiFactorEngine.builder(plans).clock(clock).build();
        agentOne = new FleetAgent(one, fleet.join("one"), clock, 256);
        agentTwo = new FleetAgent(two, fleet.join("two"), clock, 256);
        modelIds = new int[models];
        for (int m = 0; m < models; m++)
        {
            modelIds[m] = one.modelId(names[m]);
        }
        random = new SplittableRandom(13);

        codec = new FleetCodec();
        entrySignals = new FleetSignals(models);
        for (int m = 0; m < models; m++)
        {
            final int index = entrySignals.add(names[m]);
            for (int i = 0; i < 4 * SAMPLES_PER_PERIOD; i++)
            {
                entrySignals.ttft(index).recordValue(200_000L + random.nextLong(400_000L));
                entrySignals.tpot(index).recordValue(15_000L + random.nextLong(30_000L));
            }
        }
        entry = codec.encode(FleetCodec.KIND_REPLICA, "replica-one", List.of(), entrySignals);
        System.err.println("fleet entry of " + models + " models x 2 metrics x " + 4 * SAMPLES_PER_PERIOD +
            " samples: " + entry.length + " bytes");

        alone = MultiFactorEngine.builder(plans).clock(clock).build();
        shared = MultiFactorEngine.builder(plans).clock(clock).build();
        final FleetAgent sharedAgent = new FleetAgent(shared, new InMemoryFleet(PERIOD_NS, 256).join("x"), clock, 256);
        final FleetSignals remote = new FleetSignals(models);
        for (int m = 0; m < models; m++)
        {
            remote.inflight(remote.add(names[m]), 3 + m % 5);
        }
        shared.mergeFleet(remote);
        // Attached (its windows keep unsent samples) and holding remote counts, as a replica in a fleet does.
        sharedAgent.exchange().periodNs();
        aloneDecision = alone.decisionId("d");
        sharedDecision = shared.decisionId("d");
        selection = new Selection(16);
    }

    /** Closes the engines. */
    @TearDown(Level.Trial)
    public void tearDown()
    {
        one.close();
        two.close();
        alone.close();
        shared.close();
    }

    /**
     * @return the sum of the two exchange results.
     */
    @Benchmark
    public int exchangePeriod()
    {
        for (int m = 0; m < models; m++)
        {
            for (int i = 0; i < SAMPLES_PER_PERIOD; i++)
            {
                one.recordTtftMicros(modelIds[m], 200_000L + random.nextLong(400_000L));
                one.recordTpotMicros(modelIds[m], 15_000L + random.nextLong(30_000L));
                two.recordTtftMicros(modelIds[m], 200_000L + random.nextLong(400_000L));
                two.recordTpotMicros(modelIds[m], 15_000L + random.nextLong(30_000L));
            }
        }
        clock.advance(PERIOD_NS);
        return agentOne.exchangeNow(clock.nanoTime()) + agentTwo.exchangeNow(clock.nanoTime());
    }

    /** @return the encoded entry. */
    @Benchmark
    public byte[] encodeEntry()
    {
        return codec.encode(FleetCodec.KIND_REPLICA, "replica-one", List.of(), entrySignals);
    }

    /** @return the decoded entry. */
    @Benchmark
    public FleetCodec.Entry decodeEntry()
    {
        return codec.decode(entry, 256);
    }

    /** @return the selection. */
    @Benchmark
    public Selection selectAlone()
    {
        alone.select(aloneDecision, null, selection);
        return selection;
    }

    /** @return the selection. */
    @Benchmark
    public Selection selectWithFleet()
    {
        shared.select(sharedDecision, null, selection);
        return selection;
    }
}
