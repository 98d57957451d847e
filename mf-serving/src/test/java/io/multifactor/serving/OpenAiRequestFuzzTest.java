package io.multifactor.serving;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Mutated request bodies never make the reader throw; every body it accepts can be rewritten, and the rewritten body
 * reads back the same, with the new model.
 */
class OpenAiRequestFuzzTest
{
    private static final String[] SEEDS = {
        "{\"model\":\"d\",\"stream\":true,\"max_tokens\":64,\"messages\":[{\"role\":\"user\",\"content\":\"héllo\"}]}",
        "{\"prompt\":[\"a\",\"b\"],\"model\":\"x\",\"max_completion_tokens\":3,\"n\":[1,{\"a\":null}]}",
        "{\"messages\":[{\"content\":[{\"type\":\"text\",\"text\":\"a€\"}]}],\"stream\":false}",
    };
    private static final byte[] ALPHABET = "{}[]\":,. 0123456789eE+-truefalsnl\\u\"model\"\u00e9".getBytes(StandardCharsets.UTF_8);

    @Test
    void shouldNeverThrowAndRewriteEveryAcceptedBodyConsistently()
    {
        final SplittableRandom random = new SplittableRandom(20261201);
        final OpenAiRequestReader reader = new OpenAiRequestReader();
        final OpenAiRequest parsed = new OpenAiRequest();
        final OpenAiRequest again = new OpenAiRequest();
        final int cases = 20_000;
        int accepted = 0;
        for (int i = 0; i < cases; i++)
        {
            final byte[] body = mutate(SEEDS[random.nextInt(SEEDS.length)].getBytes(StandardCharsets.UTF_8), random);
            final int code = reader.read(body, body.length, parsed);
            assertThat(code).isBetween(OpenAiRequestReader.OK, OpenAiRequestReader.BAD_FIELD);
            if (code != OpenAiRequestReader.OK)
            {
                assertThat(parsed.error()).isNotBlank();
                continue;
            }
            accepted++;
            final long promptBytes = parsed.promptBytes();
            final boolean stream = parsed.stream();
            final long maxOutput = parsed.maxOutputTokens();
            final byte[] rewritten = OpenAiRequestReader.rewriteModel(body, body.length, parsed, "m/\"" + i);
            assertThat(reader.read(rewritten, rewritten.length, again)).as(new String(rewritten, StandardCharsets.UTF_8))
                .isEqualTo(OpenAiRequestReader.OK);
            assertThat(again.model()).isEqualTo("m/\"" + i);
            assertThat(again.promptBytes()).isEqualTo(promptBytes);
            assertThat(again.stream()).isEqualTo(stream);
            assertThat(again.maxOutputTokens()).isEqualTo(maxOutput);
        }
        System.out.printf("OpenAiRequestFuzzTest: %d mutated bodies, %d accepted and rewritten, none threw%n", cases,
            accepted);
        assertThat(accepted).isPositive();
    }

    private static byte[] mutate(final byte[] seed, final SplittableRandom random)
    {
        byte[] body = seed.clone();
        final int edits = random.nextInt(4);
        for (int e = 0; e < edits; e++)
        {
            final int at = random.nextInt(body.length);
            switch (random.nextInt(3))
            {
                case 0:
                    body[at] = ALPHABET[random.nextInt(ALPHABET.length)];
                    break;
                case 1:
                    final byte[] shorter = new byte[body.length - 1];
                    System.arraycopy(body, 0, shorter, 0, at);
                    System.arraycopy(body, at + 1, shorter, at, body.length - at - 1);
                    body = shorter.length == 0 ? seed.clone() : shorter;
                    break;
                default:
                    final byte[] longer = new byte[body.length + 1];
                    System.arraycopy(body, 0, longer, 0, at);
                    longer[at] = ALPHABET[random.nextInt(ALPHABET.length)];
                    System.arraycopy(body, at, longer, at + 1, body.length - at);
                    body = longer;
            }
        }
        return body;
    }
}
