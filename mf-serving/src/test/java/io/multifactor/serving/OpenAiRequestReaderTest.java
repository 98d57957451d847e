package io.multifactor.serving;

import io.multifactor.api.Request;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class OpenAiRequestReaderTest
{
    private final OpenAiRequestReader reader = new OpenAiRequestReader();
    private final OpenAiRequest parsed = new OpenAiRequest();

    @Test
    void shouldReadModelStreamTokenBoundAndPromptBytesOfAChatRequest()
    {
        final byte[] body = utf8("{\"messages\":[{\"role\":\"system\",\"content\":\"héllo\"}," +
            "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"a€\"},{\"type\":\"image_url\"," +
            "\"image_url\":{\"url\":\"http://x\"}}]}],\"model\":\"d\",\"stream\":true,\"max_tokens\":64," +
            "\"tools\":[{\"x\":[1,2,{\"y\":null}]}]}");
        assertThat(reader.read(body, body.length, parsed)).isEqualTo(OpenAiRequestReader.OK);
        assertThat(parsed.model()).isEqualTo("d");
        assertThat(parsed.stream()).isTrue();
        assertThat(parsed.maxOutputTokens()).isEqualTo(64);
        // "héllo" is 6 bytes, "a€" 4 bytes; the image part has no text.
        assertThat(parsed.promptBytes()).isEqualTo(10);
        assertThat(parsed.promptTokens()).isEqualTo(2);
        assertThat(parsed.hasTokenCounts()).isTrue();
    }

    @Test
    void shouldPreferMaxCompletionTokensAndCountACompletionsPrompt()
    {
        final byte[] body = utf8("{\"model\":\"d\",\"prompt\":[\"abcd\",\"efgh\"],\"max_tokens\":5," +
            "\"max_completion_tokens\":7}");
        assertThat(reader.read(body, body.length, parsed)).isEqualTo(OpenAiRequestReader.OK);
        assertThat(parsed.maxOutputTokens()).isEqualTo(7);
        assertThat(parsed.promptBytes()).isEqualTo(8);
        assertThat(parsed.stream()).isFalse();
        final byte[] none = utf8("{\"model\":\"d\",\"prompt\":\"abcd\"}");
        assertThat(reader.read(none, none.length, parsed)).isEqualTo(OpenAiRequestReader.OK);
        assertThat(parsed.maxOutputTokens()).isEqualTo(Request.NO_TOKENS);
        assertThat(parsed.hasTokenCounts()).isFalse();
    }

    @Test
    void shouldCountTheInputOfResponsesAndEmbeddingsAndTakeMaxOutputTokens()
    {
        final byte[] responses = utf8("{\"model\":\"d\",\"input\":[{\"role\":\"user\",\"content\":\"abcd\"}," +
            "{\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"héllo\"}]}]," +
            "\"max_output_tokens\":9,\"stream\":true}");
        assertThat(reader.read(responses, responses.length, parsed)).isEqualTo(OpenAiRequestReader.OK);
        assertThat(parsed.promptBytes()).as("4 + 6 bytes").isEqualTo(10);
        assertThat(parsed.maxOutputTokens()).isEqualTo(9);
        assertThat(parsed.stream()).isTrue();
        final byte[] embeddings = utf8("{\"model\":\"d\",\"input\":[\"abcd\",\"efgh\",\"ij\"]}");
        assertThat(reader.read(embeddings, embeddings.length, parsed)).isEqualTo(OpenAiRequestReader.OK);
        assertThat(parsed.promptBytes()).isEqualTo(10);
        assertThat(parsed.hasTokenCounts()).isFalse();
        final byte[] text = utf8("{\"model\":\"d\",\"input\":\"abcdefgh\",\"max_output_tokens\":-2}");
        assertThat(reader.read(text, text.length, parsed)).isEqualTo(OpenAiRequestReader.BAD_FIELD);
        assertThat(parsed.error()).contains("\"max_output_tokens\" must be an integer >= 0");
    }

    @Test
    void shouldTellWhereTheJsonBrokeButNotTheParsersInternals()
    {
        final byte[] broken = utf8("{\"model\":\n \"d\" x}");
        assertThat(reader.read(broken, broken.length, parsed)).isEqualTo(OpenAiRequestReader.NOT_JSON);
        assertThat(parsed.error()).isEqualTo("request body is not valid JSON at line 2, column 6");
        final byte[] deep = utf8("{\"a\":" + "[".repeat(100) + "]".repeat(100) + "}");
        assertThat(reader.read(deep, deep.length, parsed)).isEqualTo(OpenAiRequestReader.NOT_JSON);
        assertThat(parsed.error()).isEqualTo("request body is not valid JSON: it breaks a limit (nesting deeper than " +
            "64, or a number longer than 100 digits)");
        for (final String body : new String[] {"not json", "{\"model\": ", "{\"a\":tru}", "{\"a\":\"\\u00\"}"})
        {
            final byte[] bytes = utf8(body);
            reader.read(bytes, bytes.length, parsed);
            assertThat(parsed.error()).as(body).doesNotContain("Source", "jackson", "StreamReadConstraints", "code ",
                "REDACTED", "Exception");
        }
    }

    @Test
    void shouldRewriteOnlyTheModelValueKeepingEveryOtherByte()
    {
        final String before = "{ \"messages\" : [ {\"content\":\"say \\\"model\\\": x\"} ],\n  \"model\" : \"d\\u0041\" ," +
            " \"nested\": {\"model\": \"keep\"}, \"n\": 1.50e3 }";
        final byte[] body = utf8(before);
        assertThat(reader.read(body, body.length, parsed)).isEqualTo(OpenAiRequestReader.OK);
        assertThat(parsed.model()).isEqualTo("dA");
        final byte[] out = OpenAiRequestReader.rewriteModel(body, body.length, parsed, "acme/\"7b\"");
        assertThat(new String(out, StandardCharsets.UTF_8)).isEqualTo(
            before.replace("\"d\\u0041\"", "\"acme/\\\"7b\\\"\""));
        final OpenAiRequest again = new OpenAiRequest();
        assertThat(reader.read(out, out.length, again)).isEqualTo(OpenAiRequestReader.OK);
        assertThat(again.model()).isEqualTo("acme/\"7b\"");
    }

    @Test
    void shouldInsertTheModelWhenTheBodyHasNone()
    {
        for (final String before : new String[] {"{\"prompt\":\"x\"}", " { } ", "{}"})
        {
            final byte[] body = utf8(before);
            assertThat(reader.read(body, body.length, parsed)).isEqualTo(OpenAiRequestReader.OK);
            final byte[] out = OpenAiRequestReader.rewriteModel(body, body.length, parsed, "m");
            final OpenAiRequest again = new OpenAiRequest();
            assertThat(reader.read(out, out.length, again)).as(new String(out, StandardCharsets.UTF_8))
                .isEqualTo(OpenAiRequestReader.OK);
            assertThat(again.model()).isEqualTo("m");
        }
    }

    @Test
    void shouldRefuseBadBodiesWithACodeAndAMessage()
    {
        assertRefused("", OpenAiRequestReader.NOT_JSON, "empty");
        assertRefused("{\"model\": ", OpenAiRequestReader.NOT_JSON, "not valid JSON");
        assertRefused("{\"model\":\"d\"} {}", OpenAiRequestReader.NOT_JSON, "not one JSON object");
        assertRefused("not json", OpenAiRequestReader.NOT_JSON, "not valid JSON");
        assertRefused("[1]", OpenAiRequestReader.NOT_OBJECT, "must be a JSON object, got a list");
        assertRefused("{\"model\":3}", OpenAiRequestReader.BAD_FIELD, "\"model\" must be a string, got a number");
        assertRefused("{\"stream\":\"yes\"}", OpenAiRequestReader.BAD_FIELD, "\"stream\" must be true or false");
        assertRefused("{\"max_tokens\":-1}", OpenAiRequestReader.BAD_FIELD, "\"max_tokens\" must be an integer >= 0");
        assertRefused("{\"max_tokens\":1.5}", OpenAiRequestReader.BAD_FIELD, "must be an integer");
        assertRefused("{\"max_tokens\":123456789012345678901234567890}", OpenAiRequestReader.BAD_FIELD, "integer");
        assertRefused("{\"a\":" + "[".repeat(10_000) + "]".repeat(10_000) + "}", OpenAiRequestReader.NOT_JSON,
            "not valid JSON");
        assertRefused("{\"model\":\"\u0000\"}".replace("\u0000", "\\u00"), OpenAiRequestReader.NOT_JSON, "not valid");
        final byte[] large = new byte[OpenAiRequestReader.MAX_BODY_BYTES + 1];
        assertThat(reader.read(large, large.length, parsed)).isEqualTo(OpenAiRequestReader.TOO_LARGE);
        assertThat(parsed.error()).contains("larger than 8 MiB");
    }

    private void assertRefused(final String body, final int code, final String message)
    {
        final byte[] bytes = utf8(body);
        assertThat(reader.read(bytes, bytes.length, parsed)).as(body).isEqualTo(code);
        assertThat(parsed.error()).as(body).contains(message);
        assertThat(parsed.model()).isNull();
    }

    private static byte[] utf8(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
