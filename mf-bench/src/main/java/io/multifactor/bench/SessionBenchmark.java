package io.multifactor.bench;

import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import io.multifactor.kernel.plan.SessionPolicy;
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
 * The cost of a session on {@code select} (section 4.6), in the same run: a request with a session key on a decision
 * with a {@code session} block (its table filled with a working set of live keys, cycled through in a scrambled
 * order) against the same request without a key on the same engine. The figure of section 7: the session adds at most
 * 10 ns + 1 ns per candidate, 0 B/op, with a working set of 1,000 live keys (100,000 reported too).
 * <p>
 * This class is a JMH {@code Scope.Thread} state: each benchmark thread has its own engine, request and selection.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = BenchFlags.AGRONA_ADD_EXPORTS)
public class SessionBenchmark
{
    /** Candidates of the decision. */
    @Param({ "4", "16" })
    public int candidates;

    /** Live keys the requests cycle through (all held by the table). */
    @Param({ "1000", "100000" })
    public int liveKeys;

    MultiFactorEngine engine;
    Selection out;
    Request withSession;
    Request withoutSession;
    long[] keys;
    int next;

    /** One engine with a session decision, every key of the working set already in its table. */
    @Setup(Level.Trial)
    public void setup()
    {
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(TimeUnit.HOURS.toNanos(1));
        engine = MultiFactorEngine.builder(plans()).clock(clock).build();
        for (int m = 0; m < candidates; m++)
        {
            engine.recordTpotMs(m, 20.0 + m);
            engine.recordTtftMs(m, 200.0 + 10 * m);
            engine.begin(m);
        }
        engine.refreshNow();
        final int decision = engine.decisionId("d");
        out = new Selection(candidates);
        withSession = new Request().decision(decision);
        withoutSession = new Request().decision(decision);
        keys = new long[liveKeys];
        for (int i = 0; i < liveKeys; i++)
        {
            // Scrambled keys, visited in that order: consecutive requests touch unrelated sets of the table.
            keys[i] = i * 0x9E3779B97F4A7C15L;
            engine.select(withSession.session(keys[i]), out);
        }
    }

    /** Releases the engine. */
    @TearDown(Level.Trial)
    public void tearDown()
    {
        engine.close();
    }

    private Plans plans()
    {
        final PlansBuilder builder = new PlansBuilder();
        final String[] names = new String[candidates];
        for (int m = 0; m < candidates; m++)
        {
            names[m] = "m" + m;
            builder.model(names[m], 0.5 + 0.4 * m / candidates, 1.0 + m);
        }
        // The table holds every live key (twice the working set: the sets' ways never run out).
        return builder.decision("d").candidates(names).slo(500.0, 5_000.0, 100.0, 1_000)
            .session(new SessionPolicy(0.1, 0.05, 1, TimeUnit.HOURS.toNanos(10), 2 * liveKeys)).add().build();
    }

    /** @return the chosen model, the request without a session key. */
    @Benchmark
    public int selectWithoutSession()
    {
        engine.select(withoutSession, out);
        return out.selectedModel();
    }

    /** @return the chosen model, the request with the next key of the working set. */
    @Benchmark
    public int selectWithSession()
    {
        final long[] keys = this.keys;
        final int i = next;
        next = i + 1 == keys.length ? 0 : i + 1;
        engine.select(withSession.session(keys[i]), out);
        return out.selectedModel();
    }
}
