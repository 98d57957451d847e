package io.multifactor.serving;

import io.multifactor.config.LoadedConfig;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A model's {@code backend_choice: llmd_weighted} or {@code llmd_sticky} through {@link BackendChooser}: the prompt's
 * blocks enter the chosen backend's index when it answers, and the next request with the same prompt follows them
 * there, as llm-d's prefix scorer and affinity filter do; a prompt no backend holds goes anywhere.
 */
class LlmdBackendChoiceTest
{
    private static LoadedConfig load(final String type)
    {
        return Engines.load(String.join("\n",
            "models:",
            "  - name: m",
            "    backend_refs:",
            "      - {name: m0, endpoint: 127.0.0.1:9300}",
            "      - {name: m1, endpoint: 127.0.0.1:9301}",
            "      - {name: m2, endpoint: 127.0.0.1:9302}",
            "      - {name: m3, endpoint: 127.0.0.1:9303}",
            "    backend_choice: " + type,
            "decisions:",
            "  - name: d",
            "    modelRefs: [{model: m}]",
            ""));
    }

    @Test
    void shouldFollowThePromptToTheBackendThatAnsweredIt()
    {
        for (final String type : new String[] { "llmd_weighted", "llmd_sticky" })
        {
            final LoadedConfig loaded = load(type);
            final BackendChooser chooser = BackendChooser.of(loaded, Map.of(), new PrefixBackends());
            final int m = loaded.plans().modelId("m");
            // 256-byte blocks (no prefix_affinity: the default size); a prompt of 8 full blocks.
            final PromptBlocks prompt = promptOf('x', 8 * 256);
            final PrefixTicket ticket = new PrefixTicket();
            final Backend first = chooser.choose(m, prompt, 500, ticket);
            assertThat(ticket.result()).as(type).isEqualTo(PrefixTicket.COLD);
            assertThat(ticket.answered()).isTrue();
            for (int i = 0; i < 6; i++)
            {
                assertThat(chooser.choose(m, prompt, 500, ticket)).as(type).isSameAs(first);
                assertThat(ticket.result()).isEqualTo(PrefixTicket.WARM);
                assertThat(ticket.share()).isEqualTo(1.0);
                assertThat(ticket.answered()).isTrue();
            }
            // A prompt nobody holds is spread: its first blocks differ, so no backend matches it.
            final boolean[] used = new boolean[4];
            for (int i = 0; i < 200; i++)
            {
                final PromptBlocks other = promptOf((char)('a' + i % 20), 8 * 256);
                used[chooser.backends(m).indexOf(chooser.choose(m, other, 500, ticket))] = true;
                ticket.abandoned();
            }
            assertThat(used).as(type).containsOnly(true);
        }
    }

    private static PromptBlocks promptOf(final char c, final int bytes)
    {
        final PromptBlocks prompt = new PromptBlocks();
        final char[] chars = String.valueOf(c).repeat(bytes).toCharArray();
        prompt.appendUtf8(chars, 0, chars.length, chars.length);
        return prompt;
    }
}
