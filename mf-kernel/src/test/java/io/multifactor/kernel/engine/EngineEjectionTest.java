package io.multifactor.kernel.engine;

import io.multifactor.api.DropReason;
import io.multifactor.api.Exclusions;
import io.multifactor.api.InflightTracker;
import io.multifactor.api.Outcome;
import io.multifactor.api.Selection;
import io.multifactor.kernel.metrics.CounterLabel;
import io.multifactor.kernel.metrics.CounterTypes;
import io.multifactor.kernel.plan.NoCandidatesPolicy;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import io.multifactor.kernel.reliability.EjectionPolicy;
import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Ejection through the engine's public API: results reported with {@code end(lease, status[, retryAfterMillis])}
 * eject a model from {@code select}, half-open probes are claimed by {@code selectAndBegin} and {@code begin}, the
 * sweep fails a probe that never ended, {@code max_ejection_percent} caps ejection per decision, and the counters
 * count it.
 */
class EngineEjectionTest
{
    private static final long SECOND_NS = TimeUnit.SECONDS.toNanos(1);

    private final CachedNanoClock clock = new CachedNanoClock();
    private MultiFactorEngine engine;

    @AfterEach
    void close()
    {
        if (engine != null)
        {
            engine.close();
        }
    }

    /** Quality only: "best" (0.9) wins over "good" (0.6) over "cheap" (0.3); "best" and "good" eject after 3. */
    private MultiFactorEngine engine(final int percentBest, final int percentGood, final boolean cheapEjects)
    {
        final PlansBuilder builder = new PlansBuilder()
            .model("cheap", 0.3, 0.5)
            .model("good", 0.6, 2.0)
            .model("best", 0.9, 9.0)
            .reliability("best", new EjectionPolicy(3, 30_000, 300_000, percentBest))
            .reliability("good", new EjectionPolicy(3, 30_000, 300_000, percentGood));
        if (cheapEjects)
        {
            builder.reliability("cheap", new EjectionPolicy(3, 30_000, 300_000, 100));
        }
        final Plans plans = builder
            .decision("d")
            .candidates("cheap", "good", "best")
            .weights(1.0, 0.0, 0.0, 0.0)
            .policy(NoCandidatesPolicy.FAIL)
            .add()
            .build();
        clock.update(1_000_000_000_000L);
        engine = MultiFactorEngine.builder(plans).clock(clock)
            .settings(new SignalSettings(60 * SECOND_NS, SECOND_NS, 120 * SECOND_NS)).build();
        return engine;
    }

    private void fail(final int model, final int times, final int status)
    {
        for (int i = 0; i < times; i++)
        {
            assertThat(engine.end(engine.begin(model), status)).isTrue();
        }
    }

    private void advanceSeconds(final double seconds)
    {
        clock.advance((long)(seconds * SECOND_NS));
    }

    private long counter(final String label)
    {
        final CountersReader reader = engine.countersReader();
        final long[] value = { Long.MIN_VALUE };
        reader.forEach((id, typeId, keyBuffer, l) ->
        {
            if (l.equals(label))
            {
                value[0] = reader.getCounterValue(id);
            }
        });
        return value[0];
    }

    private static String label(final String name, final String model)
    {
        return CounterLabel.format(name, "model", model);
    }

    @Test
    void shouldEjectAfterConsecutiveFailuresAndComeBackThroughOneProbe()
    {
        engine(100, 100, false);
        final int d = engine.decisionId("d");
        final int best = engine.modelId("best");
        final int good = engine.modelId("good");
        final Selection out = new Selection();
        fail(best, 2, 502);
        engine.end(engine.begin(best), 200);
        fail(best, 2, 0);
        engine.select(d, null, out);
        assertThat(out.selectedModel()).as("a success reset the run: 2 failures in a row so far").isEqualTo(best);

        fail(best, 1, 504);
        engine.select(d, null, out);
        assertThat(out.selectedModel()).isEqualTo(good);
        assertThat(out.dropReason(2)).isEqualTo(DropReason.EJECTED);
        assertThat(out.ejectedMillisLeft(2)).isEqualTo(30_000.0);
        assertThat(engine.ejectedMillisLeft(best)).isEqualTo(30_000.0);

        advanceSeconds(29.9);
        engine.select(d, null, out);
        assertThat(out.dropReason(2)).isEqualTo(DropReason.EJECTED);
        assertThat(out.ejectedMillisLeft(2)).isEqualTo(100.0);

        advanceSeconds(0.1);
        engine.select(d, null, out);
        assertThat(out.selectedModel()).as("half-open: a candidate again").isEqualTo(best);
        final long probe = engine.selectAndBegin(d, null, out);
        assertThat(out.selectedModel()).isEqualTo(best);
        final long other = engine.selectAndBegin(d, null, out);
        assertThat(out.selectedModel()).as("its probe is out: seen as ejected").isEqualTo(good);
        engine.select(d, null, out);
        assertThat(out.dropReason(2)).isEqualTo(DropReason.EJECTED);
        assertThat(out.ejectedMillisLeft(2)).isEqualTo(0.0);

        assertThat(engine.end(other, 500)).isTrue();
        engine.select(d, null, out);
        assertThat(out.dropReason(2)).as("another lease's result changes nothing").isEqualTo(DropReason.EJECTED);
        assertThat(engine.end(probe, 200)).isTrue();
        assertThat(engine.end(probe, 500)).as("a second end reports nothing").isFalse();
        engine.select(d, null, out);
        assertThat(out.selectedModel()).isEqualTo(best);
        assertThat(engine.ejectedMillisLeft(best)).isNaN();
        assertThat(counter(CounterLabel.format("mf.ejections", "model", "best", "cause", "5xx"))).isEqualTo(1);
    }

    @Test
    void shouldEjectAgainForTwiceAsLongWhenTheProbeFailsAndDecayWhileHealthy()
    {
        engine(100, 100, false);
        final int best = engine.modelId("best");
        fail(best, 3, 500);
        advanceSeconds(30);
        final long probe = engine.begin(best);
        assertThat(engine.end(probe, 503)).isTrue();
        assertThat(engine.ejectedMillisLeft(best)).as("k = 2").isEqualTo(60_000.0);
        advanceSeconds(60);
        assertThat(engine.end(engine.begin(best), 200)).isTrue();
        assertThat(engine.ejectedMillisLeft(best)).isNaN();
        // Healthy for one base ejection time: k falls from 2 to 1, so the next ejection is 2 x 30 s.
        advanceSeconds(30);
        fail(best, 3, 500);
        assertThat(engine.ejectedMillisLeft(best)).isEqualTo(60_000.0);
        assertThat(counter(CounterLabel.format("mf.ejections", "model", "best", "cause", "5xx"))).isEqualTo(3);
    }

    @Test
    void shouldEjectForRetryAfterWithoutRaisingK()
    {
        engine(100, 100, false);
        final int best = engine.modelId("best");
        engine.end(engine.begin(best), 429);
        assertThat(engine.ejectedMillisLeft(best)).as("a 429 without Retry-After changes nothing").isNaN();
        engine.end(engine.begin(best), 429, 5_000);
        assertThat(engine.ejectedMillisLeft(best)).isEqualTo(5_000.0);
        engine.end(engine.begin(best), 503, 1_000_000);
        assertThat(engine.ejectedMillisLeft(best)).as("capped at max_ejection_time").isEqualTo(300_000.0);
        advanceSeconds(300);
        engine.end(engine.begin(best), 200);
        fail(best, 3, 500);
        assertThat(engine.ejectedMillisLeft(best)).as("k was not raised: first 5xx ejection").isEqualTo(30_000.0);
        assertThat(counter(CounterLabel.format("mf.ejections", "model", "best", "cause", "retry_after"))).isEqualTo(1);
    }

    @Test
    void shouldReleaseAProbeEndedWithoutStatusAndFailOneNeverEnded()
    {
        engine(100, 100, false);
        final int best = engine.modelId("best");
        fail(best, 3, 500);
        advanceSeconds(30);
        final long first = engine.begin(best);
        assertThat(engine.end(first)).isTrue();
        assertThat(engine.ejectedMillisLeft(best)).as("still half-open").isNaN();
        final long lost = engine.begin(best);
        assertThat(lost).isNotEqualTo(InflightTracker.NO_LEASE);
        assertThat(engine.ejectedMillisLeft(best)).as("probe out").isEqualTo(0.0);
        for (int i = 0; i < 200 && engine.reclaimedLeaseCount() == 0; i++)
        {
            advanceSeconds(1);
            engine.refreshNow();
        }
        assertThat(engine.reclaimedLeaseCount()).isEqualTo(1);
        assertThat(engine.end(lost, 200)).as("reclaimed by the sweep").isFalse();
        final double left = engine.ejectedMillisLeft(best);
        assertThat(left).as("the lost probe failed: ejected for 2 x 30 s").isEqualTo(60_000.0);
        assertThat(counter(label("mf.ejected", "best"))).isEqualTo(60_000L);
    }

    @Test
    void shouldKeepTheEjectionsEndingSoonestAsCandidatesBeyondTheDecisionsCap()
    {
        // Percents 50 and 100: p = 50, n = 3 -> at most max(1, floor(1.5)) = 1 candidate ejected.
        engine(50, 100, false);
        final int d = engine.decisionId("d");
        final int best = engine.modelId("best");
        final int good = engine.modelId("good");
        engine.end(engine.begin(best), 429, 20_000);
        engine.end(engine.begin(good), 429, 10_000);
        final Selection out = new Selection();
        engine.select(d, null, out);
        assertThat(out.dropReason(2)).as("ends latest: stays ejected").isEqualTo(DropReason.EJECTED);
        assertThat(out.dropReason(1)).as("ends soonest: a candidate").isEqualTo(DropReason.NONE);
        assertThat(out.selectedModel()).isEqualTo(good);
        assertThat(out.ejectedMillisLeft(1)).isEqualTo(10_000.0);

        final long lease = engine.selectAndBegin(d, null, out);
        assertThat(out.selectedModel()).as("a kept candidate takes an ordinary lease").isEqualTo(good);
        engine.end(lease, 200);
        assertThat(engine.ejectedMillisLeft(good)).isEqualTo(10_000.0);

        // Excluding "cheap": n = 2, at most max(1, floor(1.0)) = 1 ejected still.
        final Exclusions exclusions = new Exclusions(8);
        exclusions.add(engine.modelId("cheap"));
        engine.select(d, exclusions, out);
        assertThat(out.dropReason(2)).isEqualTo(DropReason.EJECTED);
        assertThat(out.dropReason(1)).isEqualTo(DropReason.NONE);
    }

    @Test
    void shouldTakeTheCapsPercentOverTheCandidatesTheRequestLeavesIn()
    {
        // best 0 %, good and cheap 100 %: p = 0 while best is a candidate, 100 once a request excludes it.
        engine(0, 100, true);
        final int d = engine.decisionId("d");
        final int good = engine.modelId("good");
        final int cheap = engine.modelId("cheap");
        engine.end(engine.begin(good), 429, 10_000);
        engine.end(engine.begin(cheap), 429, 20_000);
        final Selection out = new Selection();
        engine.select(d, null, out);
        // n = 3, p = 0: at most 1 ejected; good, whose ejection ends soonest, is a candidate again.
        assertThat(out.dropReason(0)).isEqualTo(DropReason.EJECTED);
        assertThat(out.dropReason(1)).isEqualTo(DropReason.NONE);
        assertThat(out.selectedModel()).isEqualTo(engine.modelId("best"));

        final Exclusions exclusions = new Exclusions(8);
        exclusions.add(engine.modelId("best"));
        engine.select(d, exclusions, out);
        // n = 2, p = 100 (best's 0 % is not a candidate's any more): both may stay ejected, and do.
        assertThat(out.dropReason(0)).isEqualTo(DropReason.EJECTED);
        assertThat(out.dropReason(1)).isEqualTo(DropReason.EJECTED);
        assertThat(out.dropReason(2)).isEqualTo(DropReason.EXCLUDED);
        assertThat(out.outcome()).isEqualTo(Outcome.FAILED);
    }

    @Test
    void shouldLetOneEjectionThroughEvenAtZeroPercentAndCountTheDrops()
    {
        engine(0, 0, true);
        final int d = engine.decisionId("d");
        engine.end(engine.begin(engine.modelId("best")), 503, 9_000);
        engine.end(engine.begin(engine.modelId("good")), 503, 8_000);
        engine.end(engine.begin(engine.modelId("cheap")), 503, 7_000);
        final Selection out = new Selection();
        engine.select(d, null, out);
        assertThat(out.dropReason(2)).isEqualTo(DropReason.EJECTED);
        assertThat(out.dropReason(1)).isEqualTo(DropReason.NONE);
        assertThat(out.dropReason(0)).isEqualTo(DropReason.NONE);
        assertThat(out.outcome()).isEqualTo(Outcome.SCORED);
        assertThat(out.selectedModel()).isEqualTo(engine.modelId("good"));
        engine.refreshNow();
        assertThat(counter(CounterLabel.format("mf.drops", "model", "best", "reason", "ejected"))).isEqualTo(1);
        assertThat(counter(CounterLabel.format("mf.drops", "model", "good", "reason", "ejected"))).isZero();
        assertThat(counter(label("mf.ejected", "best"))).isEqualTo(9_000);
        assertThat(counter(label("mf.ejected", "cheap"))).isEqualTo(7_000);
        assertThat(CounterTypes.isEngineType(CounterTypes.EJECTED)).isTrue();
    }

    @Test
    void shouldIgnoreResultsOfModelsWithoutReliabilityAndForgetAnEjectionWhenReliabilityGoes()
    {
        engine(100, 100, false);
        final int cheap = engine.modelId("cheap");
        fail(cheap, 10, 500);
        assertThat(engine.ejectedMillisLeft(cheap)).isNaN();
        final int best = engine.modelId("best");
        fail(best, 3, 500);
        assertThat(engine.ejectedMillisLeft(best)).isEqualTo(30_000.0);
        engine.replacePlans(new PlansBuilder(engine.plans())
            .model("cheap", 0.3, 0.5).model("good", 0.6, 2.0).model("best", 0.9, 9.0)
            .decision("d").candidates("cheap", "good", "best").weights(1.0, 0.0, 0.0, 0.0).add().build());
        assertThat(engine.ejectedMillisLeft(best)).as("no reliability any more: healthy").isNaN();
        assertThat(engine.ejectForMillis(cheap, 1_000)).isTrue();
        assertThat(engine.ejectedMillisLeft(cheap)).as("an explicit ejection, whatever the reliability").isEqualTo(1_000.0);
    }
}
