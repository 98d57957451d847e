package io.multifactor.serving;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link SseStreamMeter}'s allocation-free scanner against the reference that reads each data line with Jackson's
 * parser ({@link JacksonSseReference}): seeded random streams of OpenAI chunks, mutated (bytes dropped, swapped,
 * replaced with JSON's special characters, invalid UTF-8, escapes, deep nesting, big numbers), must give the same
 * content count, first and last content times, usage, skipped lines and {@code [DONE]} after every line.
 */
class SseStreamMeterDifferentialTest
{
    private static final String[] CHUNKS = {
        "{\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"tok \"}," +
            "\"finish_reason\":null}]}",
        "{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"}}]}",
        "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\"}}]}",
        "{\"choices\":[{\"index\":0,\"delta\":{\"content\":null}}]}",
        "{\"choices\":[{\"text\":\"x\",\"index\":0}]}",
        "{\"choices\":[{\"text\":\"\"}],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":12,\"total_tokens\":17}}",
        "{\"choices\":[],\"usage\":{\"completion_tokens\":9223372036854775807}}",
        "{\"usage\":{\"completion_tokens\":92233720368547758070}}",
        "{\"usage\":{\"completion_tokens\":-9223372036854775808}}",
        "{\"usage\":{\"completion_tokens\":3.5}}",
        "{\"usage\":{\"completion_tokens\":1e3}}",
        "{\"choices\":[{\"delta\":{\"content\":\"caf\u00e9 \\u00e9\\n\\\"q\\\"\"}}]}",
        "{\"cho\\u0069ces\":[{\"delta\":{\"cont\\u0065nt\":\"esc\"}}]}",
        "{\"choices\":[1,\"a\",[{\"delta\":{\"content\":\"in an array\"}}],{\"delta\":{\"content\":\"y\"}}]}",
        "{\"choices\":{\"delta\":{\"content\":\"not an array\"}}}",
        "{\"a\":{\"b\":[true,false,null,-0,0.5e-3,{\"c\":\"d\"}]},\"choices\":[{\"delta\":{\"content\":\"z\"}}]}",
        "[1,2]",
        "\"just a string\"",
        " {\"choices\":[{\"delta\":{\"content\":\"padded\"}}]} ",
        "{\"choices\":[{\"delta\":{\"content\":\"trailing\"}}]} garbage",
        "{}",
        "{\"delta\":{\"content\":\"at the root\"}}",
        "{\"type\":\"response.output_text.delta\",\"item_id\":\"m1\",\"output_index\":0,\"delta\":\"Hi\"}",
        "{\"delta\":\" there\",\"type\":\"response.output_text.delta\"}",
        "{\"type\":\"response.output_text.delta\",\"delta\":\"\"}",
        "{\"type\":\"response.output_text.done\",\"text\":\"Hi there\",\"delta\":\"x\"}",
        "{\"type\":\"response.created\",\"response\":{\"id\":\"r1\",\"status\":\"in_progress\"}}",
        "{\"type\":\"response.completed\",\"response\":{\"id\":\"r1\",\"usage\":{\"input_tokens\":4," +
            "\"output_tokens\":7,\"total_tokens\":11}}}",
    };

    private static final String SPECIAL = "{}[],:\"\\ 0-.eE+tfnu/x\t";

    @Test
    void shouldAgreeWithTheJacksonReferenceOnSeededMutatedStreams()
    {
        final SplittableRandom random = new SplittableRandom(21);
        int lines = 0;
        int skipped = 0;
        for (int stream = 0; stream < 3_000; stream++)
        {
            final SseStreamMeter meter = new SseStreamMeter();
            final JacksonSseReference reference = new JacksonSseReference();
            long now = 1_000;
            for (int event = 0; event < 8; event++)
            {
                final byte[] data = mutate(random, line(random), random);
                final byte[] bytes = new byte[data.length + 8];
                System.arraycopy("data: ".getBytes(StandardCharsets.US_ASCII), 0, bytes, 0, 6);
                System.arraycopy(data, 0, bytes, 6, data.length);
                bytes[data.length + 6] = '\n';
                bytes[data.length + 7] = '\n';
                now += 1 + random.nextInt(1_000);
                // cut anywhere: the two halves arrive at the same time
                final int cut = random.nextInt(bytes.length + 1);
                final boolean first = meter.onBytes(bytes, 0, cut, now) | meter.onBytes(bytes, cut, bytes.length - cut, now);
                final boolean firstRef =
                    reference.onBytes(bytes, 0, cut, now) | reference.onBytes(bytes, cut, bytes.length - cut, now);
                final String what = new String(data, StandardCharsets.UTF_8);
                assertThat(first).as(what).isEqualTo(firstRef);
                assertThat(meter.contentChunks()).as(what).isEqualTo(reference.contentChunks());
                assertThat(meter.firstContentNs()).as(what).isEqualTo(reference.firstContentNs());
                assertThat(meter.lastContentNs()).as(what).isEqualTo(reference.lastContentNs());
                assertThat(meter.usageCompletionTokens()).as(what).isEqualTo(reference.usageCompletionTokens());
                assertThat(meter.skippedLines()).as(what).isEqualTo(reference.skippedLines());
                assertThat(meter.done()).as(what).isEqualTo(reference.done());
                lines++;
            }
            skipped += (int)meter.skippedLines();
        }
        System.out.printf("SseStreamMeter vs the Jackson reference: %d data lines agreed, %d of them skipped%n",
            lines, skipped);
        assertThat(skipped).isBetween(lines / 20, lines - lines / 20);
    }

    @Test
    void shouldAgreeOnNestingAroundTheDepthLimit()
    {
        for (int depth = SseStreamMeter.MAX_DEPTH - 3; depth <= SseStreamMeter.MAX_DEPTH + 3; depth++)
        {
            final String inner = "[".repeat(depth - 2) + "]".repeat(depth - 2);
            final String line = "data: {\"x\":" + (depth >= 2 ? inner : "1") +
                ",\"choices\":[{\"delta\":{\"content\":\"d\"}}]}\n\n";
            final byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
            final SseStreamMeter meter = new SseStreamMeter();
            final JacksonSseReference reference = new JacksonSseReference();
            meter.onBytes(bytes, 0, bytes.length, 5);
            reference.onBytes(bytes, 0, bytes.length, 5);
            assertThat(meter.contentChunks()).as("depth %d", depth).isEqualTo(reference.contentChunks());
            assertThat(meter.skippedLines()).as("depth %d", depth).isEqualTo(reference.skippedLines());
        }
    }

    private static byte[] line(final SplittableRandom random)
    {
        if (random.nextInt(20) == 0)
        {
            return "[DONE]".getBytes(StandardCharsets.US_ASCII);
        }
        return CHUNKS[random.nextInt(CHUNKS.length)].getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] mutate(final SplittableRandom random, final byte[] line, final SplittableRandom r)
    {
        if (random.nextInt(3) == 0)
        {
            return line;
        }
        byte[] out = line.clone();
        final int edits = 1 + random.nextInt(3);
        for (int e = 0; e < edits && out.length > 0; e++)
        {
            final int at = random.nextInt(out.length);
            switch (random.nextInt(6))
            {
                case 0 -> out[at] = (byte)SPECIAL.charAt(random.nextInt(SPECIAL.length()));
                case 1 ->
                {
                    // drop one byte
                    final byte[] shorter = new byte[out.length - 1];
                    System.arraycopy(out, 0, shorter, 0, at);
                    System.arraycopy(out, at + 1, shorter, at, out.length - at - 1);
                    out = shorter;
                }
                case 2 -> out = java.util.Arrays.copyOf(out, at); // truncate
                case 3 -> out[at] = (byte)(0x80 + r.nextInt(0x80)); // a byte that is not ASCII
                case 4 -> out[at] = (byte)r.nextInt(0x20); // a control character
                default ->
                {
                    // insert a short valid UTF-8 or escape sequence
                    final byte[] insert = (random.nextBoolean() ? "\u00e9" : "\\u00e9").getBytes(StandardCharsets.UTF_8);
                    final byte[] longer = new byte[out.length + insert.length];
                    System.arraycopy(out, 0, longer, 0, at);
                    System.arraycopy(insert, 0, longer, at, insert.length);
                    System.arraycopy(out, at, longer, at + insert.length, out.length - at);
                    out = longer;
                }
            }
        }
        // A line holds no line break: the meter would cut it there.
        for (int i = 0; i < out.length; i++)
        {
            if (out[i] == '\n' || out[i] == '\r')
            {
                out[i] = ' ';
            }
        }
        return out;
    }
}
