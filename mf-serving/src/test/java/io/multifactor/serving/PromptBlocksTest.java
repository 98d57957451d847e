package io.multifactor.serving;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class PromptBlocksTest
{
    private final OpenAiRequestReader reader = new OpenAiRequestReader();

    private PromptBlocks read(final String body)
    {
        final OpenAiRequest parsed = new OpenAiRequest().capturePrompt(true);
        final byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        assertThat(reader.read(bytes, bytes.length, parsed)).isEqualTo(OpenAiRequestReader.OK);
        return parsed.prompt();
    }

    private static byte[] bytesOf(final PromptBlocks prompt)
    {
        final byte[] out = new byte[prompt.length()];
        for (int i = 0; i < out.length; i++)
        {
            out[i] = prompt.byteAt(i);
        }
        return out;
    }

    /** Role, 0, content, 0 per message, in UTF-8. */
    private static byte[] chat(final String... roleThenContent)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < roleThenContent.length; i += 2)
        {
            out.writeBytes(roleThenContent[i].getBytes(StandardCharsets.UTF_8));
            out.write(0);
            out.writeBytes(roleThenContent[i + 1].getBytes(StandardCharsets.UTF_8));
            out.write(0);
        }
        return out.toByteArray();
    }

    @Test
    void shouldWriteChatMessagesAsRoleZeroContentZero()
    {
        final PromptBlocks prompt = read("{\"model\":\"d\",\"messages\":[{\"role\":\"system\",\"content\":\"Be brief.\"}," +
            "{\"role\":\"user\",\"content\":\"h\\u00e9llo \\ud83d\\ude00\"}]}");
        assertThat(bytesOf(prompt)).isEqualTo(chat("system", "Be brief.", "user", "héllo \uD83D\uDE00"));
    }

    @Test
    void shouldTakeTheTextOfPartsInOrderAndPutTheRoleFirstWhateverTheFieldOrder()
    {
        final PromptBlocks prompt = read("{\"messages\":[{\"content\":[{\"type\":\"text\",\"text\":\"one \"}," +
            "{\"type\":\"image_url\",\"image_url\":{\"url\":\"x\"}},{\"text\":\"two\",\"type\":\"text\"}]," +
            "\"name\":\"n\",\"role\":\"user\"},{\"content\":\"no role\"},{\"role\":\"assistant\",\"content\":null}]}");
        assertThat(bytesOf(prompt)).isEqualTo(chat("user", "one two", "", "no role", "assistant", ""));
    }

    @Test
    void shouldWriteACompletionsPromptAsItsText()
    {
        assertThat(bytesOf(read("{\"prompt\":\"Once upon\",\"model\":\"d\"}")))
            .isEqualTo("Once upon".getBytes(StandardCharsets.UTF_8));
        assertThat(bytesOf(read("{\"prompt\":[\"a\",\"b€\"]}"))).isEqualTo("ab€".getBytes(StandardCharsets.UTF_8));
        assertThat(bytesOf(read("{\"prompt\":[1,258]}"))).containsExactly(1, 0, 0, 0, 2, 1, 0, 0);
    }

    @Test
    void shouldWriteAResponsesRequestAsInstructionsThenInput()
    {
        final byte[] expected = "Be kind.Hi there".getBytes(StandardCharsets.UTF_8);
        assertThat(bytesOf(read("{\"instructions\":\"Be kind.\",\"input\":\"Hi there\"}"))).isEqualTo(expected);
        assertThat(bytesOf(read("{\"input\":[{\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"Hi \"}]}," +
            "{\"role\":\"user\",\"content\":\"there\"}],\"model\":\"d\",\"instructions\":\"Be kind.\"}")))
            .isEqualTo(expected);
    }

    @Test
    void shouldCaptureNothingUnlessAsked()
    {
        final OpenAiRequest parsed = new OpenAiRequest();
        final byte[] body = "{\"prompt\":\"abc\"}".getBytes(StandardCharsets.UTF_8);
        assertThat(reader.read(body, body.length, parsed)).isEqualTo(OpenAiRequestReader.OK);
        assertThat(parsed.prompt().length()).isZero();
        assertThat(parsed.promptBytes()).isEqualTo(3);
    }

    @Test
    void shouldCutFullBlocksAndChainTheirHashes()
    {
        final PromptBlocks a = read("{\"prompt\":\"" + "x".repeat(16) + "y".repeat(16) + "z".repeat(16) + "tail\"}");
        assertThat(a.cut(16)).isEqualTo(3);
        assertThat(a.cut(32)).isEqualTo(1);
        assertThat(a.cut(64)).isZero();
        assertThat(a.cut(16)).isEqualTo(3);
        final long[] first = {a.hash(0), a.hash(1), a.hash(2)};
        final byte[] bytes = bytesOf(a);
        long chain = PromptBlocks.CHAIN_SEED;
        for (int i = 0; i < 3; i++)
        {
            chain = PromptBlocks.hashBlock(chain, bytes, i * 16, 16);
            assertThat(a.hash(i)).isEqualTo(chain);
        }
        // The same later blocks after a different first block: every hash differs.
        final PromptBlocks b = read("{\"prompt\":\"" + "X".repeat(16) + "y".repeat(16) + "z".repeat(16) + "\"}");
        assertThat(b.cut(16)).isEqualTo(3);
        for (int i = 0; i < 3; i++)
        {
            assertThat(b.hash(i)).isNotEqualTo(first[i]);
        }
        // A changed last block changes only its own hash.
        final PromptBlocks c = read("{\"prompt\":\"" + "x".repeat(16) + "y".repeat(16) + "Z".repeat(16) + "\"}");
        c.cut(16);
        assertThat(c.hash(0)).isEqualTo(first[0]);
        assertThat(c.hash(1)).isEqualTo(first[1]);
        assertThat(c.hash(2)).isNotEqualTo(first[2]);
    }

    @Test
    void shouldHashEveryByteOfABlockAndItsPlace()
    {
        final byte[] block = new byte[21];
        final long base = PromptBlocks.hashBlock(PromptBlocks.CHAIN_SEED, block, 0, block.length);
        for (int i = 0; i < block.length; i++)
        {
            block[i] = 1;
            assertThat(PromptBlocks.hashBlock(PromptBlocks.CHAIN_SEED, block, 0, block.length)).isNotEqualTo(base);
            block[i] = 0;
        }
        assertThat(PromptBlocks.hashBlock(PromptBlocks.CHAIN_SEED + 1, block, 0, block.length)).isNotEqualTo(base);
    }
}
