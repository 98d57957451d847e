package io.multifactor.kernel.engine;

import io.multifactor.api.DropReason;
import io.multifactor.api.Factor;
import io.multifactor.api.InflightTracker;
import io.multifactor.api.Outcome;
import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.kernel.plan.LoadMetric;
import io.multifactor.kernel.plan.NoCandidatesPolicy;
import io.multifactor.kernel.plan.Pick;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import io.multifactor.kernel.plan.SignalCeilings;
import io.multifactor.kernel.plan.TieBreak;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Token load and the power of two choices on the engine: a lease's weight is its request's tokens (or
 * {@code default_request_tokens}) and its end takes exactly that off; {@code load_metric: tokens} makes the load
 * factor the tokens; {@code max_inflight_tokens} drops in {@code select} and bounds reserve-on-select, which then
 * tries the next survivor; {@code pick: p2c} never picks the unique lowest score, leaves the other drawn survivor as
 * the runner-up, and reserve-on-select tries that loser next.
 */
class EngineTokensAndP2cTest
{
    private final CachedNanoClock clock = new CachedNanoClock();
    private final Selection out = new Selection();
    private MultiFactorEngine engine;

    @AfterEach
    void close()
    {
        if (engine != null)
        {
            engine.close();
        }
    }

    private MultiFactorEngine engine(final Plans plans)
    {
        clock.update(TimeUnit.SECONDS.toNanos(1_000));
        engine = MultiFactorEngine.builder(plans).clock(clock).settings(SignalSettings.defaults()
            .withDefaultRequestTokens(700)).build();
        return engine;
    }

    private static double[] loadOnly()
    {
        final double[] w = new double[Factor.COUNT];
        w[Factor.LOAD] = 1.0;
        return w;
    }

    @Test
    void shouldWeighALeaseByItsRequestOrTheDefaultAndTakeExactlyThatOff()
    {
        engine(new PlansBuilder().model("a", 0.5, 1.0).decision("d").candidates("a").add().build());
        final int a = engine.modelId("a");
        final Request request = new Request().decision(engine.decisionId("d")).promptTokens(1_200).maxOutputTokens(300);
        final long first = engine.selectAndBegin(request, out);
        final long second = engine.begin(a);
        final long third = engine.selectAndBegin(new Request().decision(engine.decisionId("d")).maxOutputTokens(50), out);
        assertThat(engine.inflightTokens(a)).isEqualTo(1_500 + 700 + 50);
        assertThat(engine.end(second)).isTrue();
        assertThat(engine.inflightTokens(a)).isEqualTo(1_550);
        assertThat(engine.end(second)).isFalse();
        assertThat(engine.inflightTokens(a)).isEqualTo(1_550);
        engine.end(first);
        engine.end(third);
        assertThat(engine.inflightTokens(a)).isZero();
        assertThat(engine.inflight(a)).isZero();
    }

    @Test
    void shouldLoadByTokensWithLoadMetricTokens()
    {
        engine(new PlansBuilder().model("a", 0.5, 1.0).model("b", 0.5, 1.0)
            .decision("requests").candidates("a", "b").weights(loadOnly()).add()
            .decision("tokens").candidates("a", "b").weights(loadOnly()).loadMetric(LoadMetric.TOKENS).add()
            .build());
        final int a = engine.modelId("a");
        final int b = engine.modelId("b");
        engine.begin(a, 10_000);
        engine.begin(b, 100);
        engine.begin(b, 100);
        engine.select(engine.decisionId("requests"), null, out);
        assertThat(out.selectedIndex()).as("one request on a, two on b").isEqualTo(0);
        assertThat(out.value(0, Factor.LOAD)).isEqualTo(1.0);
        engine.select(engine.decisionId("tokens"), null, out);
        assertThat(out.selectedIndex()).as("10,000 tokens on a, 200 on b").isEqualTo(1);
        assertThat(out.value(0, Factor.LOAD)).isEqualTo(10_000.0);
        assertThat(out.inflightTokens(0)).isEqualTo(10_000);
    }

    @Test
    void shouldDropAboveMaxInflightTokensAfterMaxInflightAndReserveWithinIt()
    {
        final SignalCeilings tokens = new SignalCeilings(1_000, Double.POSITIVE_INFINITY, Double.POSITIVE_INFINITY, false);
        engine(new PlansBuilder().model("a", 0.9, 1.0).model("b", 0.5, 1.0)
            .decision("tokens").candidates("a", "b").weights(1.0, 0.0, 0.0, 0.0).signalCeilings(tokens)
            .policy(NoCandidatesPolicy.FAIL).add()
            .decision("both").candidates("a", "b").weights(1.0, 0.0, 0.0, 0.0).slo(0.0, 0.0, 0.0, 1L)
            .signalCeilings(tokens).add()
            .build());
        final int a = engine.modelId("a");
        final int b = engine.modelId("b");
        final int d = engine.decisionId("tokens");
        final long held = engine.begin(a, 500);
        final Request request = new Request().decision(d).promptTokens(400).maxOutputTokens(200);
        engine.select(request, out);
        assertThat(out.selectedIndex()).as("500 in flight is within 1,000: select keeps a").isEqualTo(0);
        final long lease = engine.selectAndBegin(request, out);
        assertThat(out.dropReason(0)).as("500 + 600 does not fit 1,000").isEqualTo(DropReason.INFLIGHT_TOKENS);
        assertThat(out.selectedIndex()).isEqualTo(1);
        assertThat(engine.inflightTokens(a)).as("nothing added to a").isEqualTo(500);
        assertThat(engine.inflightTokens(b)).isEqualTo(600);
        final long tooBig = engine.selectAndBegin(new Request().decision(d).promptTokens(900).maxOutputTokens(200), out);
        assertThat(tooBig).as("fits neither: on_no_candidates fail").isEqualTo(InflightTracker.NO_LEASE);
        assertThat(out.outcome()).isEqualTo(Outcome.FAILED);
        engine.begin(a, 600);
        engine.select(d, null, out);
        assertThat(out.dropReason(0)).isEqualTo(DropReason.INFLIGHT_TOKENS);
        assertThat(out.inflightTokens(0)).isEqualTo(1_100);
        engine.select(engine.decisionId("both"), null, out);
        assertThat(out.dropReason(0)).as("in-flight 2 > 1 is checked before the tokens").isEqualTo(DropReason.INFLIGHT);
        engine.end(held);
        engine.end(lease);
        assertThat(engine.inflightTokens(a)).isEqualTo(600);
        assertThat(engine.inflightTokens(b)).isZero();
    }

    @Test
    void shouldNeverPickTheUniqueLowestWithP2cAndLeaveTheOtherDrawAsRunnerUp()
    {
        engine(new PlansBuilder().model("low", 0.1, 1.0).model("mid", 0.5, 1.0).model("high", 0.9, 1.0)
            .decision("d").candidates("low", "mid", "high").weights(1.0, 0.0, 0.0, 0.0).pick(Pick.P2C).add()
            .build());
        final Request request = new Request().decision(engine.decisionId("d")).seed(5L);
        final int[] wins = new int[3];
        for (int k = 0; k < 3_000; k++)
        {
            engine.select(request, out);
            assertThat(out.outcome()).isEqualTo(Outcome.SCORED);
            wins[out.selectedIndex()]++;
            assertThat(out.runnerUp()).isNotEqualTo(out.selectedIndex()).isBetween(0, 2);
            assertThat(out.score(out.runnerUp())).isLessThanOrEqualTo(out.score(out.selectedIndex()));
        }
        assertThat(wins[0]).as("the unique lowest score").isZero();
        // Exactly: high wins 2 of the 3 pairs, mid 1.
        assertThat(wins[2]).isBetween(1_800, 2_200);
        assertThat(wins[1]).isBetween(800, 1_200);
    }

    @Test
    void shouldDrawTheP2cPairFromOneStepOfTheSeededGenerator()
    {
        engine(new PlansBuilder().model("low", 0.1, 1.0).model("mid", 0.5, 1.0).model("high", 0.9, 1.0)
            .decision("d").candidates("low", "mid", "high").weights(1.0, 0.0, 0.0, 0.0).pick(Pick.P2C).add()
            .build());
        final Request request = new Request().decision(engine.decisionId("d"));
        final double[] quality = { 0.1, 0.5, 0.9 };
        for (long seed = 0; seed < 500; seed++)
        {
            // The pair as documented: the high half of one step scaled to the 3 survivors, the low half to the other 2.
            final long bits = new Request().seed(seed).nextBits();
            final int a = (int)(((bits >>> 32) * 3) >>> 32);
            final int drawn = (int)(((bits & 0xFFFF_FFFFL) * 2) >>> 32);
            final int b = drawn >= a ? drawn + 1 : drawn;
            final int winner = quality[b] > quality[a] ? b : a;
            engine.select(request.seed(seed), out);
            assertThat(out.selectedIndex()).as("seed %d", seed).isEqualTo(winner);
            assertThat(out.runnerUp()).as("seed %d", seed).isEqualTo(winner == a ? b : a);
            // One step taken: the request's generator is where a fresh one is after one draw.
            assertThat(request.nextBits()).as("seed %d", seed).isEqualTo(secondStep(seed));
        }
    }

    private static long secondStep(final long seed)
    {
        final Request fresh = new Request().seed(seed);
        fresh.nextBits();
        return fresh.nextBits();
    }

    @Test
    void shouldTryTheLoserNextWhenTheP2cWinnerIsFull()
    {
        engine(new PlansBuilder().model("low", 0.1, 1.0).model("mid", 0.5, 1.0).model("high", 0.9, 1.0)
            .decision("d").candidates("low", "mid", "high").weights(1.0, 0.0, 0.0, 0.0).slo(0.0, 0.0, 0.0, 1L)
            .pick(Pick.P2C).add()
            .build());
        final int high = engine.modelId("high");
        engine.begin(high);
        final Request request = new Request().decision(engine.decisionId("d")).seed(11L);
        int lowChosen = 0;
        for (int k = 0; k < 200; k++)
        {
            engine.select(request, out);
            final int winner = out.selectedIndex();
            final int loser = out.runnerUp();
            final long lease = engine.selectAndBegin(request.seed(11L + k), out);
            if (lease == InflightTracker.NO_LEASE)
            {
                continue;
            }
            if (out.dropReason(2) == DropReason.INFLIGHT)
            {
                // high was drawn and won: its loser is taken, even the lowest score (not ranking order's mid).
                assertThat(out.selectedIndex()).isNotEqualTo(2);
                lowChosen += out.selectedIndex() == 0 ? 1 : 0;
            }
            engine.end(lease);
            assertThat(winner).isNotEqualTo(loser);
        }
        assertThat(lowChosen).as("the loser low tried before mid, which ranking order prefers").isPositive();
    }

    @Test
    void shouldRefuseP2cWithATieBandARandomBreakOrTheLexicographicObjective()
    {
        assertThatThrownBy(() -> new PlansBuilder().model("a", 0.5, 1.0).decision("d").candidates("a")
            .pick(Pick.P2C).tieBand(0.1).add().build()).hasMessageContaining("pick p2c");
        assertThatThrownBy(() -> new PlansBuilder().model("a", 0.5, 1.0).decision("d").candidates("a")
            .pick(Pick.P2C).tieBreak(TieBreak.RANDOM).add().build()).hasMessageContaining("pick p2c");
        assertThatThrownBy(() -> new PlansBuilder().model("a", 0.5, 1.0).decision("d").candidates("a")
            .pick(Pick.P2C).lexicographic(0.0, new int[] { Factor.QUALITY }).add().build())
            .hasMessageContaining("pick p2c");
    }
}
