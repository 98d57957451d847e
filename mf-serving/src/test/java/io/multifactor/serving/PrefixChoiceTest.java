package io.multifactor.serving;

import io.multifactor.config.LoadedConfig;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The backend choice of prefix-cache affinity on hand cases: cold, warm, release, ties, and the model without it. */
class PrefixChoiceTest
{
    static final String CONFIG = String.join("\n",
        "models:",
        "  - name: a",
        "    backend_refs:",
        "      - {name: a0, endpoint: 127.0.0.1:9100}",
        "      - {name: a1, endpoint: 127.0.0.1:9101}",
        "      - {name: a2, endpoint: 127.0.0.1:9102}",
        "    prefix_affinity: {block_bytes: 16, min_match: 0.5, max_ttft_penalty: 1s, prefill_tokens_per_s: 1000}",
        "  - name: plain",
        "    backend_refs:",
        "      - {name: p0, endpoint: 127.0.0.1:9200, weight: 3}",
        "      - {name: p1, endpoint: 127.0.0.1:9201}",
        "decisions:",
        "  - name: d",
        "    modelRefs: [{model: a}, {model: plain}]",
        "");

    private LoadedConfig loaded;
    private BackendChooser chooser;
    private int a;
    private List<BackendPrefix> prefixes;
    private final PrefixTicket ticket = new PrefixTicket();

    @BeforeEach
    void setUp()
    {
        loaded = Engines.load(CONFIG);
        chooser = BackendChooser.of(loaded, Map.of(), new PrefixBackends());
        a = loaded.plans().modelId("a");
        prefixes = chooser.prefixBackends(a);
    }

    /** A completions prompt of 4 full blocks of 16 bytes (and a partial one), its first block {@code first}. */
    static PromptBlocks prompt(final char first, final char rest)
    {
        final OpenAiRequest parsed = new OpenAiRequest().capturePrompt(true);
        final byte[] body = ("{\"prompt\":\"" + String.valueOf(first).repeat(16) + String.valueOf(rest).repeat(48) +
            "tail\"}").getBytes(StandardCharsets.UTF_8);
        assertThat(new OpenAiRequestReader().read(body, body.length, parsed)).isEqualTo(OpenAiRequestReader.OK);
        return parsed.prompt();
    }

    private int indexOf(final Backend backend)
    {
        return chooser.backends(a).indexOf(backend);
    }

    private void hold(final int backend, final PromptBlocks prompt, final int blocks)
    {
        prompt.cut(16);
        prefixes.get(backend).index().insert(prompt.hashes(), blocks);
    }

    @Test
    void shouldGoColdToTheSmallestWaitWhenNoBackendHoldsThePrefix()
    {
        prefixes.get(0).addPending(500);
        prefixes.get(2).addPending(100);
        final Backend chosen = chooser.choose(a, prompt('x', 'y'), 1000, ticket);
        assertThat(indexOf(chosen)).isEqualTo(1);
        assertThat(ticket.result()).isEqualTo(PrefixTicket.COLD);
        assertThat(prefixes.get(1).cold()).isEqualTo(1);
        assertThat(prefixes.get(1).blocksLookedUp()).isEqualTo(4);
        assertThat(prefixes.get(1).blocksMatched()).isZero();
        // The whole prompt is uncached there: it joins that backend's wait until the backend answers.
        assertThat(prefixes.get(1).pendingTokens()).isEqualTo(1000);
        assertThat(ticket.answered()).isTrue();
        assertThat(ticket.answered()).isFalse();
        assertThat(prefixes.get(1).pendingTokens()).isZero();
        assertThat(prefixes.get(1).index().size()).isEqualTo(4);
    }

    @Test
    void shouldSplitColdTiesByWeightAmongTheTiedOnly()
    {
        prefixes.get(1).addPending(10);
        final int[] counts = new int[3];
        for (int i = 0; i < 100; i++)
        {
            counts[indexOf(chooser.choose(a, prompt('a', 'b'), 0, ticket))]++;
            assertThat(ticket.abandoned()).isTrue();
        }
        assertThat(counts[1]).isZero();
        assertThat(counts[0]).isBetween(48, 52);
        assertThat(counts[2]).isBetween(48, 52);
    }

    @Test
    void shouldStayWarmWhileTheWaitPenaltyHoldsAndReleaseBeyondIt()
    {
        final PromptBlocks p = prompt('s', 't');
        hold(1, p, 4);
        prefixes.get(1).addPending(900);
        assertThat(indexOf(chooser.choose(a, p, 1000, ticket))).isEqualTo(1);
        assertThat(ticket.result()).isEqualTo(PrefixTicket.WARM);
        assertThat(ticket.share()).isEqualTo(1.0);
        // Fully cached: nothing joins its wait.
        assertThat(prefixes.get(1).pendingTokens()).isEqualTo(900);
        ticket.abandoned();
        prefixes.get(1).addPending(200);
        // wait(W) - wait(C) = 1.1 s > 1 s: the release sends it to the smallest wait.
        final int released = indexOf(chooser.choose(a, p, 1000, ticket));
        assertThat(released).isIn(0, 2);
        assertThat(ticket.result()).isEqualTo(PrefixTicket.RELEASE);
        assertThat(prefixes.get(released).release()).isEqualTo(1);
        assertThat(prefixes.get(released).pendingTokens()).isEqualTo(1000);
        assertThat(prefixes.get(1).warm()).isEqualTo(1);
        assertThat(prefixes.get(1).blocksMatched()).isEqualTo(4);
    }

    @Test
    void shouldPreferTheLargestMatchThenTheSmallerWaitAmongWarmBackends()
    {
        final PromptBlocks p = prompt('m', 'n');
        hold(0, p, 3);
        hold(1, p, 4);
        hold(2, p, 4);
        prefixes.get(1).addPending(300);
        prefixes.get(2).addPending(100);
        assertThat(indexOf(chooser.choose(a, p, 1000, ticket))).isEqualTo(2);
        assertThat(ticket.result()).isEqualTo(PrefixTicket.WARM);
        ticket.abandoned();
        prefixes.get(2).addPending(200);
        // Equal matches and equal waits (300 pending tokens each, above C's 0): the weighted pick among the two, each
        // about half the time with equal weights, never the cold backend 0 (its match is smaller).
        final int[] counts = new int[3];
        for (int i = 0; i < 200; i++)
        {
            counts[indexOf(chooser.choose(a, p, 1000, ticket))]++;
            assertThat(ticket.result()).isEqualTo(PrefixTicket.WARM);
            ticket.abandoned();
        }
        assertThat(counts[0]).isZero();
        assertThat(counts[1]).isBetween(80, 120);
        assertThat(counts[2]).isBetween(80, 120);
        // The largest match wins over a smaller wait within the penalty.
        hold(0, p, 4);
        assertThat(indexOf(chooser.choose(a, p, 1000, ticket))).isEqualTo(0);
    }

    @Test
    void shouldSplitWarmBackendsThatTieOnMatchAndWaitByWeight()
    {
        final PromptBlocks p = prompt('w', 'z');
        hold(0, p, 4);
        hold(2, p, 4);
        final int[] counts = new int[3];
        for (int i = 0; i < 90; i++)
        {
            counts[indexOf(chooser.choose(a, p, 1000, ticket))]++;
            assertThat(ticket.result()).isEqualTo(PrefixTicket.WARM);
            ticket.abandoned();
        }
        // The cold pick lands on each backend a third of the time; on a warm one that ties with W, it is taken; on the
        // cold one, the weighted pick among the two warm ones decides: each takes about half, not the first 2/3.
        assertThat(counts[1]).isZero();
        assertThat(counts[0]).isBetween(35, 55);
        assertThat(counts[2]).isBetween(35, 55);
        assertThat(counts[0] + counts[2]).isEqualTo(90);
    }

    @Test
    void shouldCountABackendBelowMinMatchAsCold()
    {
        final PromptBlocks p = prompt('u', 'v');
        // One leading block of four (0.25 < 0.5), and blocks 2-4 without block 1 (a chain broken at its start).
        hold(1, p, 1);
        p.cut(16);
        prefixes.get(2).index().insert(new long[] {p.hash(1), p.hash(2), p.hash(3)}, 3);
        prefixes.get(0).addPending(1);
        prefixes.get(2).addPending(1);
        assertThat(indexOf(chooser.choose(a, p, 1000, ticket))).isEqualTo(1);
        assertThat(ticket.result()).isEqualTo(PrefixTicket.COLD);
        assertThat(ticket.share()).isEqualTo(0.25);
        // 75% uncached joins the wait.
        assertThat(prefixes.get(1).pendingTokens()).isEqualTo(750);
        ticket.abandoned();
        assertThat(prefixes.get(1).pendingTokens()).isZero();
        assertThat(prefixes.get(1).index().size()).isEqualTo(1);
    }

    @Test
    void shouldGiveTheShareOfTheBackendItWouldPickWithoutCounting()
    {
        final PromptBlocks p = prompt('g', 'h');
        assertThat(chooser.shareFor(loaded.plans().modelId("plain"), p)).isNaN();
        assertThat(chooser.shareFor(a, p)).isZero();
        hold(2, p, 3);
        assertThat(chooser.shareFor(a, p)).isEqualTo(0.75);
        prefixes.get(2).addPending(1500);
        // Released: the pick would be a cold backend, whose share is 0.
        assertThat(chooser.shareFor(a, p)).isZero();
        assertThat(prefixes.get(0).cold() + prefixes.get(1).cold() + prefixes.get(2).warm()).isZero();
        assertThat(chooser.shareFor(a, prompt('g', 'h').clear())).isZero();
    }

    @Test
    void shouldKeepTheWeightedChoiceExactlyForAModelWithoutAffinity()
    {
        final int plain = loaded.plans().modelId("plain");
        final BackendChooser reference = BackendChooser.of(loaded, Map.of());
        final PromptBlocks p = prompt('k', 'l');
        for (int i = 0; i < 200; i++)
        {
            assertThat(chooser.choose(plain, p, 1000, ticket)).isEqualTo(reference.choose(plain));
        }
        assertThat(ticket.isOpen()).isFalse();
        assertThat(chooser.followsPrefixes(plain)).isFalse();
        assertThat(chooser.followsPrefixes()).isTrue();
        assertThat(BackendChooser.of(Engines.load(Engines.TWO_MODELS), Map.of()).followsPrefixes()).isFalse();
    }

    @Test
    void shouldSizeAnIndexFromTheServersCache()
    {
        final PrefixBackends state = new PrefixBackends();
        BackendChooser.of(loaded, Map.of(), state);
        // 1000 GPU blocks x 16 tokens x 4 bytes / 16 bytes per block.
        assertThat(state.reportCacheSize("http://127.0.0.1:9101", 1000, 16)).isEqualTo(4000);
        assertThat(state.backend("http://127.0.0.1:9101").index().capacity()).isEqualTo(4000);
        assertThat(state.reportCacheSize("http://127.0.0.1:9101", 1L << 40, 16)).isEqualTo(1 << 20);
        assertThat(state.reportCacheSize("http://127.0.0.1:9200", 1000, 16)).isEqualTo(-1);
        // The state outlives the chooser: the next configuration's chooser finds the same backends.
        final BackendChooser next = BackendChooser.of(loaded, Map.of(), state);
        assertThat(next.prefixBackends(a).get(1)).isSameAs(state.backend("http://127.0.0.1:9101"));
    }
}
