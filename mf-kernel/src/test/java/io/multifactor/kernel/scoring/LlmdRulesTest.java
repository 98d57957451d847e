package io.multifactor.kernel.scoring;

import io.multifactor.api.Exclusions;
import io.multifactor.api.Outcome;
import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.kernel.plan.AlgorithmType;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.LlmdParameters;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/**
 * llm-d's scorers, picker and two profiles, each pinned on the hand cases of llm-d's own tests (llm-d/llm-d-router at
 * ebab687, {@code pkg/epp/framework/plugins/scheduling/}), over plain arrays and at model level through
 * {@link BaselineKernel}.
 */
class LlmdRulesTest
{
    private static final double NAN = Double.NaN;

    // An affinity filter as llm-d's filter tests configure it: threshold 0.80, no exploration, the given gate, 1,000
    // tokens/s (so in-flight tokens read as milliseconds), and the token-load scorer at its default threshold.
    private static LlmdParameters filter(final double maxTtftPenaltyMs)
    {
        return new LlmdParameters(2, 2, 3, 0.80, 0.0, maxTtftPenaltyMs, 1000.0,
            LlmdParameters.DEFAULT_QUEUE_THRESHOLD_TOKENS);
    }

    private static double[] candidates(final int n)
    {
        return new double[n];
    }

    @Test
    void queueScorerShouldMinMaxTheWaitingQueues()
    {
        // queuedepth/queue_test.go, "Different queue sizes": {10, 5, 0} score {0, 0.5, 1}; "Same queue sizes" and
        // "Zero queue sizes": every candidate 1.
        assertThat(LlmdRules.queueScore(10, 0, 10)).isEqualTo(0.0);
        assertThat(LlmdRules.queueScore(5, 0, 10)).isEqualTo(0.5);
        assertThat(LlmdRules.queueScore(0, 0, 10)).isEqualTo(1.0);
        assertThat(LlmdRules.queueScore(5, 5, 5)).isEqualTo(1.0);
        assertThat(LlmdRules.queueScore(0, 0, 0)).isEqualTo(1.0);
    }

    @Test
    void kvCacheScorerShouldBeOneLessTheUse()
    {
        // kvcacheutilization/kvcache_utilization_test.go: 0.8, 0.5, 0.0 score 0.2, 0.5, 1.0; full (1.0) scores 0.
        assertThat(LlmdRules.kvCacheScore(0.8)).isCloseTo(0.2, within(1e-4));
        assertThat(LlmdRules.kvCacheScore(0.5)).isEqualTo(0.5);
        assertThat(LlmdRules.kvCacheScore(0.0)).isEqualTo(1.0);
        assertThat(LlmdRules.kvCacheScore(1.0)).isEqualTo(0.0);
    }

    @Test
    void prefixScorerShouldBeTheMatchedShareOfTheBlocks()
    {
        // scorer/prefix/plugin_test.go, TestPrefixPluginScore: 5 of 10 blocks score 0.5, 2 of 10 score 0.2; its README:
        // totalBlocks 0 scores 0.
        assertThat(LlmdRules.prefixScore(5, 10)).isEqualTo(0.5);
        assertThat(LlmdRules.prefixScore(2, 10)).isEqualTo(0.2);
        assertThat(LlmdRules.prefixScore(0, 0)).isEqualTo(0.0);
    }

    @Test
    void tokenLoadScorerShouldFallLinearlyToItsThreshold()
    {
        // tokenload/token_load_test.go, threshold 1000: "in-flight load only" 0, 500, 1000 score 1, 0.5, 0; "in-flight
        // load plus current request impact" 0 + 250, 250 + 250, 750 + 250 score 0.75, 0.5, 0.
        assertThat(LlmdRules.tokenLoadScore(0, 1000)).isEqualTo(1.0);
        assertThat(LlmdRules.tokenLoadScore(500, 1000)).isEqualTo(0.5);
        assertThat(LlmdRules.tokenLoadScore(1000, 1000)).isEqualTo(0.0);
        assertThat(LlmdRules.tokenLoadScore(0 + 250, 1000)).isEqualTo(0.75);
        assertThat(LlmdRules.tokenLoadScore(750 + 250, 1000)).isEqualTo(0.0);
        assertThat(LlmdRules.tokenLoadScore(5000, 1000)).isEqualTo(0.0);
        // The profile clamps every score into [0, 1] before weighting it.
        assertThat(LlmdRules.scoreRange(-0.5)).isEqualTo(0.0);
        assertThat(LlmdRules.scoreRange(1.5)).isEqualTo(1.0);
        assertThat(LlmdRules.scoreRange(0.25)).isEqualTo(0.25);
    }

    @Test
    void weightedProfileShouldSumTheScorersAtTwoTwoThree()
    {
        // The three scorers' own test inputs side by side (queue {10, 5, 0}, KV {0.8, 0.5, 0}, prefix {0.5, 0.2, 0}):
        // 2*0 + 2*0.2 + 3*0.5 = 1.9, 2*0.5 + 2*0.5 + 3*0.2 = 2.6, 2*1 + 2*1 + 3*0 = 4.
        final double[] scores = candidates(3);
        final int chosen = LlmdRules.weighted(LlmdParameters.DEFAULTS, new double[] { 10, 5, 0 },
            new double[] { 0.8, 0.5, 0.0 }, new double[] { 0.5, 0.2, 0.0 }, 3, scores, 0L);
        assertThat(chosen).isEqualTo(2);
        assertThat(scores[0]).isCloseTo(1.9, within(1e-9));
        assertThat(scores[1]).isCloseTo(2.6, within(1e-9));
        assertThat(scores[2]).isCloseTo(4.0, within(1e-9));
        // A full prefix hit on an otherwise even pair wins by the prefix scorer's weight.
        final double[] even = candidates(2);
        assertThat(LlmdRules.weighted(LlmdParameters.DEFAULTS, new double[] { 3, 3 }, new double[] { 0.4, 0.4 },
            new double[] { 0.0, 1.0 }, 2, even, 0L)).isEqualTo(1);
        assertThat(even[1] - even[0]).isCloseTo(3.0, within(1e-9));
        // A candidate marked NaN takes no part, and none: NONE.
        final double[] one = { NAN, 0 };
        assertThat(LlmdRules.weighted(LlmdParameters.DEFAULTS, new double[] { 0, 9 }, new double[] { 0, 0.9 },
            new double[] { 1, 0 }, 2, one, 0L)).isEqualTo(1);
        assertThat(one[0]).isNaN();
        assertThat(LlmdRules.weighted(LlmdParameters.DEFAULTS, new double[] { 0 }, new double[] { 0 },
            new double[] { 0 }, 1, new double[] { NAN }, 0L)).isEqualTo(LlmdRules.NONE);
    }

    @Test
    void maxScorePickerShouldDrawUniformlyAmongTheTied()
    {
        // picker/maxscore/picker.go shuffles the candidates before its stable sort: among equal scores each comes up.
        final int[] chosen = new int[3];
        final Request draws = new Request().seed(11);
        for (int i = 0; i < 600; i++)
        {
            final double[] scores = candidates(3);
            chosen[LlmdRules.weighted(LlmdParameters.DEFAULTS, new double[] { 1, 1, 1 }, new double[] { 0.2, 0.2, 0.2 },
                new double[] { NAN, NAN, NAN }, 3, scores, draws.nextBits())]++;
        }
        for (final int count : chosen)
        {
            assertThat(count).isBetween(150, 250);
        }
    }

    @Test
    void affinityFilterShouldNarrowToTheStickyAndOpenWhenNoneIs()
    {
        // filter/prefixcacheaffinity/plugin_test.go, TestFilter_NarrowToSticky: matches 90, 85 and 10 of 100 keep the
        // first two; the token-load scorer then takes the less loaded of them, though the third has none.
        final double[] scores = candidates(3);
        assertThat(LlmdRules.sticky(filter(5000), new double[] { 0.90, 0.85, 0.10 }, new double[] { 300, 200, 0 }, 0,
            3, scores, 0L)).isEqualTo(1);
        assertThat(scores[2]).isZero();
        // TestFilter_NoStickyEndpoints: matches 10, 20, 50 keep all three: the least loaded wins.
        assertThat(LlmdRules.sticky(filter(5000), new double[] { 0.10, 0.20, 0.50 }, new double[] { 300, 0, 200 }, 0,
            3, candidates(3), 0L)).isEqualTo(1);
        // TestFilter_SingleEndpoint and TestFilter_AffinityThresholdDisabled: one candidate, or threshold 0, no filter.
        assertThat(LlmdRules.sticky(filter(5000), new double[] { 0.9 }, new double[] { 900 }, 0, 1, candidates(1), 0L))
            .isZero();
        final LlmdParameters off = new LlmdParameters(2, 2, 3, 0.0, 0.0, 5000, 1000.0, 1000);
        assertThat(LlmdRules.sticky(off, new double[] { 0.0, 0.9 }, new double[] { 0, 900 }, 0, 2, candidates(2), 0L))
            .isZero();
        // TestFilter_ExplorationProbability: with probability 1 every request skips the filter.
        final LlmdParameters explore = new LlmdParameters(2, 2, 3, 0.8, 1.0, 5000, 1000.0, 1000);
        assertThat(LlmdRules.sticky(explore, new double[] { 0.9, 0.1 }, new double[] { 100, 50 }, 0, 2, candidates(2),
            0L)).isEqualTo(1);
    }

    @Test
    void affinityShouldBeKeptBelowTheLoadGateAndReleasedAboveIt()
    {
        // TestFilter_ThroughputTTFTWithinThreshold: at 1,000 tokens/s, 500 in-flight tokens read 500 ms and 50 read
        // 50 ms; a gap of 450 ms within maxTTFTPenaltyMs 1000 keeps the sticky candidate, though it is busier.
        final double[] match = { 0.90, 0.10 };
        final double[] tokens = { 500, 50 };
        assertThat(LlmdRules.sticky(filter(1000), match, tokens, 0, 2, candidates(2), 0L)).isZero();
        // TestFilter_ThroughputTTFTBreaksStickiness: the same gap above maxTTFTPenaltyMs 100 opens all candidates, and
        // the token load takes the other.
        assertThat(LlmdRules.sticky(filter(100), match, tokens, 0, 2, candidates(2), 0L)).isEqualTo(1);
        // TestFilter_TTFTPenaltyDisabled: maxTTFTPenaltyMs 0 always sticks, even at 5,000 tokens against 50.
        assertThat(LlmdRules.sticky(filter(0), match, new double[] { 5000, 50 }, 0, 2, candidates(2), 0L)).isZero();
        // The defaults: 18,000 ms at 15,928 tokens/s is a gap of 286,704 in-flight tokens.
        final LlmdParameters defaults = LlmdParameters.DEFAULTS;
        assertThat(LlmdRules.sticky(defaults, match, new double[] { 286_000, 0 }, 0, 2, candidates(2), 0L)).isZero();
        assertThat(LlmdRules.sticky(defaults, match, new double[] { 287_500, 0 }, 0, 2, candidates(2), 0L))
            .isEqualTo(1);
        assertThat(LlmdRules.estimatedTtftMs(15_928, 15_928)).isEqualTo(1000.0);
    }

    @Test
    void tokenLoadShouldCountTheRequestsUncachedTokensOnEachCandidate()
    {
        // With the filter open (no sticky candidate), a 1,000-token prompt adds 1000 x (1 - match) to each: 600 held
        // and 0.5 cached (600 + 500) loses to 800 held and 0.75 cached (800 + 250).
        final double[] scores = candidates(2);
        final LlmdParameters p = new LlmdParameters(2, 2, 3, 0.8, 0.0, 0.0, 1000.0, 10_000);
        assertThat(LlmdRules.sticky(p, new double[] { 0.5, 0.75 }, new double[] { 600, 800 }, 1000, 2, scores, 0L))
            .isEqualTo(1);
        assertThat(scores[0]).isCloseTo(1 - 1100.0 / 10_000, within(1e-9));
        assertThat(scores[1]).isCloseTo(1 - 1050.0 / 10_000, within(1e-9));
    }

    @Test
    void parametersShouldRefuseValuesOutOfRange()
    {
        assertThatThrownBy(() -> new LlmdParameters(-1, 2, 3, 0.8, 0, 18000, 15928, 1))
            .hasMessageContaining("queue-scorer weight");
        assertThatThrownBy(() -> new LlmdParameters(2, 2, 3, 1.5, 0, 18000, 15928, 1))
            .hasMessageContaining("affinityThreshold");
        assertThatThrownBy(() -> new LlmdParameters(2, 2, 3, 0.8, 2, 18000, 15928, 1))
            .hasMessageContaining("explorationProbability");
        assertThatThrownBy(() -> new LlmdParameters(2, 2, 3, 0.8, 0, -1, 15928, 1))
            .hasMessageContaining("maxTTFTPenaltyMs");
        assertThatThrownBy(() -> new LlmdParameters(2, 2, 3, 0.8, 0, 18000, 0, 1))
            .hasMessageContaining("peakPrefillThroughput");
        assertThatThrownBy(() -> new LlmdParameters(2, 2, 3, 0.8, 0, 18000, 15928, 0))
            .hasMessageContaining("queueThresholdTokens");
        // llm-d allows peakPrefillThroughput 0 when the gate is off.
        assertThat(new LlmdParameters(2, 2, 3, 0.8, 0, 0, 0, 1).peakPrefillThroughput()).isZero();
    }

    // Model level: the decision's candidates, their W(m), K(m), in-flight tokens and the request's P(m).

    private static final class ModelRun
    {
        final DecisionPlan plan;
        final CandidateSignals signals;
        final Selection out = new Selection();

        ModelRun(final int type, final LlmdParameters parameters)
        {
            final Plans plans = new PlansBuilder()
                .model("a", 0.9, 10.0)
                .model("b", 0.5, 1.0)
                .model("c", 0.1, 0.1)
                .decision("d").candidates("a", "b", "c").algorithmType(type).llmd(parameters)
                .slo(100.0, 100.0, 0.5, 1).add()
                .build();
            plan = plans.decision(plans.decisionId("d"));
            signals = CandidateSignals.standalone(plan.candidateCount());
        }

        ModelRun server(final int index, final double queue, final double kvCache, final long tokens)
        {
            signals.publishServerLoad(index, queue, kvCache, false);
            signals.publishInflightTokens(index, tokens);
            return this;
        }

        Request request(final double... prefixMatches)
        {
            final Request request = new Request().seed(3);
            for (int i = 0; i < prefixMatches.length; i++)
            {
                if (prefixMatches[i] == prefixMatches[i])
                {
                    request.prefixMatch(plan.candidateModelId(i), prefixMatches[i]);
                }
            }
            return request;
        }

        int select(final Exclusions exclusions, final Request request)
        {
            BaselineKernel.select(plan, signals, exclusions, request, out);
            assertThat(out.outcome()).isEqualTo(out.selectedIndex() < 0 ? Outcome.FAILED : Outcome.SCORED);
            return out.selectedIndex();
        }
    }

    @Test
    void weightedProfileShouldRankTheModelsByTheirServersAndPrefix()
    {
        final ModelRun run = new ModelRun(AlgorithmType.LLMD_WEIGHTED, LlmdParameters.DEFAULTS)
            .server(0, 10, 0.8, 0).server(1, 5, 0.5, 0).server(2, 0, 0.0, 0);
        assertThat(run.select(null, run.request(0.5, 0.2, 0.0))).isEqualTo(2);
        assertThat(run.out.score(0)).isCloseTo(1.9, within(1e-9));
        assertThat(run.out.score(1)).isCloseTo(2.6, within(1e-9));
        assertThat(run.out.score(2)).isCloseTo(4.0, within(1e-9));
        // explain reads the signals the profile read.
        assertThat(run.out.queue(0)).isEqualTo(10.0);
        assertThat(run.out.value(1, io.multifactor.api.Factor.PREFIX)).isEqualTo(0.2);
        // Leaving the best out: the next best; with a prefix weight of 10 the cached one wins.
        assertThat(run.select(new Exclusions().add(run.plan.candidateModelId(2)), run.request(0.5, 0.2, 0.0)))
            .isEqualTo(1);
        assertThat(run.out.score(2)).isNaN();
        final ModelRun heavy = new ModelRun(AlgorithmType.LLMD_WEIGHTED,
            new LlmdParameters(2, 2, 10, 0.8, 0, 18000, 15928, 4_194_304))
            .server(0, 10, 0.8, 0).server(1, 5, 0.5, 0).server(2, 0, 0.0, 0);
        assertThat(heavy.select(null, heavy.request(0.5, 0.2, 0.0))).isZero();
        // Every candidate excluded: no choice.
        final Exclusions all = new Exclusions();
        for (int i = 0; i < 3; i++)
        {
            all.add(run.plan.candidateModelId(i));
        }
        assertThat(run.select(all, run.request())).isEqualTo(-1);
    }

    @Test
    void stickyProfileShouldKeepTheCachedModelUntilItsTokensBreakTheGate()
    {
        final ModelRun run = new ModelRun(AlgorithmType.LLMD_STICKY, LlmdParameters.DEFAULTS)
            .server(0, NAN, NAN, 200_000).server(1, NAN, NAN, 0).server(2, NAN, NAN, 10);
        // a holds 90% of the prompt: kept while its 200,000 tokens (12.6 s at 15,928 tokens/s) are within 18 s.
        assertThat(run.select(null, run.request(0.9, 0.1, NAN).promptTokens(2000))).isZero();
        assertThat(run.out.load(0)).isEqualTo(200_000.0);
        assertThat(run.out.inflightTokens(0)).isEqualTo(200_000L);
        assertThat(run.out.score(1)).isZero();
        // At 300,000 tokens (18.8 s) the gate releases it: the least token load wins, the request's uncached tokens
        // counted (b: 0 + 2000 x 0.9 = 1800 against c: 10 + 2000 = 2010).
        run.server(0, NAN, NAN, 300_000);
        assertThat(run.select(null, run.request(0.9, 0.1, NAN).promptTokens(2000))).isEqualTo(1);
        // No P(m) at all: nothing is sticky, the least loaded wins.
        assertThat(run.select(null, null)).isEqualTo(1);
        // The cached model excluded: the others by their load.
        run.server(0, NAN, NAN, 0);
        assertThat(run.select(new Exclusions().add(run.plan.candidateModelId(0)),
            run.request(0.9, 0.1, NAN).promptTokens(2000))).isEqualTo(1);
    }

    @Test
    void stickyAndWeightedShouldBePeersWithTheirCodesAfterTheReservedOnes()
    {
        assertThat(AlgorithmType.parse("llmd_weighted")).isEqualTo(AlgorithmType.LLMD_WEIGHTED);
        assertThat(AlgorithmType.parse("llmd_sticky")).isEqualTo(AlgorithmType.LLMD_STICKY);
        assertThat(AlgorithmType.isPeer(AlgorithmType.LLMD_WEIGHTED)).isTrue();
        assertThat(AlgorithmType.isPeer(AlgorithmType.LLMD_STICKY)).isTrue();
        // After LiteLLM's latency-based-routing (8) and production-stack's session router (9); nothing after them.
        assertThat(AlgorithmType.label(8)).isEqualTo("litellm_latency");
        assertThat(AlgorithmType.label(9)).isEqualTo("prodstack_session");
        assertThat(AlgorithmType.isPeer(AlgorithmType.labels().length)).isFalse();
        assertThatThrownBy(() -> AlgorithmType.label(12)).isInstanceOf(IllegalArgumentException.class);
        assertThat(Arrays.asList(AlgorithmType.labels())).doesNotContainNull().endsWith("llmd_weighted", "llmd_sticky");
    }
}
