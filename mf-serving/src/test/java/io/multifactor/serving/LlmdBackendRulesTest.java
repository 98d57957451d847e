package io.multifactor.serving;

import io.multifactor.config.LoadedConfig;
import io.multifactor.kernel.plan.LlmdParameters;
import io.multifactor.kernel.scoring.LlmdRules;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * llm-d's two profiles over one model's backends, on the hand cases of llm-d's own tests (llm-d/llm-d-router at
 * ebab687): the backends' prefix indexes, pending tokens and server loads in, one backend out.
 */
class LlmdBackendRulesTest
{
    private LoadedConfig loaded;
    private BackendChooser chooser;
    private int a;
    private BackendPrefix[] prefixes;
    private final LlmdBackendRules.Scratch scratch = new LlmdBackendRules.Scratch();

    @BeforeEach
    void setUp()
    {
        loaded = Engines.load(PrefixChoiceTest.CONFIG);
        chooser = BackendChooser.of(loaded, Map.of(), new PrefixBackends());
        a = loaded.plans().modelId("a");
        prefixes = chooser.prefixBackends(a).toArray(new BackendPrefix[0]);
        scratch.ensure(3);
    }

    // PrefixChoiceTest's model a: three backends, prefix_affinity with 16-byte blocks; a prompt of 4 full blocks.
    private static PromptBlocks prompt()
    {
        return PrefixChoiceTest.prompt('x', 'y');
    }

    private void hold(final int backend, final PromptBlocks prompt, final int blocks)
    {
        prompt.cut(16);
        prefixes[backend].index().insert(prompt.hashes(), blocks);
    }

    private void pending(final long... tokens)
    {
        for (int i = 0; i < tokens.length; i++)
        {
            prefixes[i].addPending(tokens[i]);
        }
    }

    private void servers(final double[] waiting, final double[] kvCacheUse)
    {
        System.arraycopy(waiting, 0, scratch.waiting(), 0, waiting.length);
        System.arraycopy(kvCacheUse, 0, scratch.kvCacheUse(), 0, kvCacheUse.length);
    }

    // An affinity filter as llm-d's filter tests configure it: threshold 0.80, 1,000 tokens/s, the given gate.
    private static LlmdParameters filter(final double maxTtftPenaltyMs)
    {
        return new LlmdParameters(2, 2, 3, 0.80, 0.0, maxTtftPenaltyMs, 1000.0,
            LlmdParameters.DEFAULT_QUEUE_THRESHOLD_TOKENS);
    }

    @Test
    void weightedShouldSumQueueKvCacheAndTheIndexesMatchAtTwoTwoThree()
    {
        // queue-scorer's {10, 5, 0}, kv-cache-utilization-scorer's {0.8, 0.5, 0}, and a0 holding 2 of the 4 blocks, a1
        // 1: 2*0 + 2*0.2 + 3*0.5 = 1.9, 2*0.5 + 2*0.5 + 3*0.25 = 2.75, 2*1 + 2*1 + 0 = 4.
        final PromptBlocks prompt = prompt();
        hold(0, prompt, 2);
        hold(1, prompt, 1);
        servers(new double[] { 10, 5, 0 }, new double[] { 0.8, 0.5, 0.0 });
        assertThat(LlmdBackendRules.weighted(LlmdParameters.DEFAULTS, 3, prefixes, prompt, scratch, 0L)).isEqualTo(2);
        assertThat(scratch.match()).startsWith(0.5, 0.25, 0.0);
        assertThat(scratch.scores()[0]).isCloseTo(1.9, within(1e-9));
        assertThat(scratch.scores()[1]).isCloseTo(2.75, within(1e-9));
        assertThat(scratch.scores()[2]).isCloseTo(4.0, within(1e-9));
        // Even servers: the backend holding the whole prompt wins by the prefix scorer.
        hold(1, prompt, 4);
        servers(new double[] { 3, 3, 3 }, new double[] { 0.4, 0.4, 0.4 });
        assertThat(LlmdBackendRules.weighted(LlmdParameters.DEFAULTS, 3, prefixes, prompt, scratch, 0L)).isEqualTo(1);
    }

    @Test
    void weightedShouldReadUnscrapedServersAsEvenAndDrawAmongTheTied()
    {
        // No server signals: every backend's waiting and KV-cache use is unknown (NaN), read as 0 as llm-d reads an
        // endpoint without metrics; without a prefix either, the picker draws among all three.
        assertThat(chooser.serverLoad(a, scratch.waiting(), scratch.kvCacheUse())).isEqualTo(3);
        assertThat(scratch.waiting()[0]).isNaN();
        assertThat(scratch.kvCacheUse()[2]).isNaN();
        final int[] chosen = new int[3];
        final io.multifactor.api.Request draws = new io.multifactor.api.Request().seed(5);
        for (int i = 0; i < 300; i++)
        {
            chosen[LlmdBackendRules.weighted(LlmdParameters.DEFAULTS, 3, prefixes, null, scratch, draws.nextBits())]++;
        }
        for (final int count : chosen)
        {
            assertThat(count).isBetween(70, 130);
        }
        // A model without prefix_affinity: its matches read 0; a model without backends: NONE.
        final int plain = loaded.plans().modelId("plain");
        assertThat(chooser.serverLoad(plain, scratch.waiting(), scratch.kvCacheUse())).isEqualTo(2);
        assertThat(LlmdBackendRules.weighted(LlmdParameters.DEFAULTS, 2, null, prompt(), scratch, 0L)).isBetween(0, 1);
        assertThat(LlmdBackendRules.weighted(LlmdParameters.DEFAULTS, 0, null, null, scratch, 0L))
            .isEqualTo(LlmdRules.NONE);
    }

    @Test
    void stickyShouldKeepTheWarmBackendWithinTheGateAndReleaseItAbove()
    {
        // prefixcacheaffinity/plugin_test.go at 1,000 tokens/s: a0 holds the whole prompt with 500 tokens pending
        // (500 ms), a1 holds none with 50 (50 ms), a2 none with 900. TestFilter_ThroughputTTFTWithinThreshold: within
        // maxTTFTPenaltyMs 1000 a0 is kept, though it is busier.
        final PromptBlocks prompt = prompt();
        hold(0, prompt, 4);
        pending(500, 50, 900);
        assertThat(LlmdBackendRules.sticky(filter(1000), 3, prefixes, prompt, 20, scratch, 0L)).isZero();
        // TestFilter_ThroughputTTFTBreaksStickiness: above maxTTFTPenaltyMs 100 all open; the token load (pending plus
        // the request's uncached 20 tokens: 500 + 0, 50 + 20, 900 + 20) takes a1.
        assertThat(LlmdBackendRules.sticky(filter(100), 3, prefixes, prompt, 20, scratch, 0L)).isEqualTo(1);
        // TestFilter_TTFTPenaltyDisabled: 0 always sticks.
        assertThat(LlmdBackendRules.sticky(filter(0), 3, prefixes, prompt, 20, scratch, 0L)).isZero();
    }

    @Test
    void stickyShouldNotStickBelowTheAffinityThreshold()
    {
        // 3 of the 4 blocks (0.75) is below affinityThreshold 0.80: no filter, the token load decides (a0: 500 + 20 x
        // 0.25 = 505, a1: 50 + 20 = 70); holding them all (1.0) sticks.
        final PromptBlocks prompt = prompt();
        hold(0, prompt, 3);
        pending(500, 50, 900);
        assertThat(LlmdBackendRules.sticky(filter(1000), 3, prefixes, prompt, 20, scratch, 0L)).isEqualTo(1);
        assertThat(scratch.match()[0]).isEqualTo(0.75);
        hold(0, prompt, 4);
        assertThat(LlmdBackendRules.sticky(filter(1000), 3, prefixes, prompt, 20, scratch, 0L)).isZero();
    }

    @Test
    void stickyShouldHoldAHotPrefixUntilLlmdsDefaultGate()
    {
        // The defaults: 18,000 ms at 15,928 tokens/s is 286,704 pending tokens more than the emptiest other backend.
        final PromptBlocks prompt = prompt();
        hold(2, prompt, 4);
        prefixes[2].addPending(286_000);
        assertThat(LlmdBackendRules.sticky(LlmdParameters.DEFAULTS, 3, prefixes, prompt, 1000, scratch, 0L))
            .isEqualTo(2);
        prefixes[2].addPending(1_500);
        prefixes[0].addPending(10);
        assertThat(LlmdBackendRules.sticky(LlmdParameters.DEFAULTS, 3, prefixes, prompt, 1000, scratch, 0L))
            .isEqualTo(1);
        // Without prefix_affinity there is no index and no pending count: nothing is sticky, every load reads the
        // request's own tokens, and the picker draws among the tied.
        assertThat(LlmdBackendRules.sticky(LlmdParameters.DEFAULTS, 2, null, prompt, 1000, scratch, 0L)).isBetween(0, 1);
    }
}
