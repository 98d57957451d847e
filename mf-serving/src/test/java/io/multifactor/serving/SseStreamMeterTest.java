package io.multifactor.serving;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class SseStreamMeterTest
{
    private static final String CHAT = String.join("\n",
        "data: {\"id\":\"1\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"}}]}",
        "",
        "data: {\"id\":\"1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\"}}]}",
        "",
        ": a comment",
        "",
        "data: {\"id\":\"1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}",
        "",
        "data: {\"id\":\"1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"}}]}",
        "",
        "data: {\"id\":\"1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}",
        "",
        "data: [DONE]",
        "",
        "");

    @Test
    void shouldMeasureAResponsesStreamByItsOutputTextDeltasAndItsOutputTokens()
    {
        final String[] events = {
            "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"r\",\"usage\":null}}",
            "event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\",\"output_index\":0}",
            "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"\"}",
            "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"Hel\"}",
            "event: response.output_text.delta\ndata: {\"delta\":\"lo\",\"type\":\"response.output_text.delta\"}",
            "event: response.output_text.done\ndata: {\"type\":\"response.output_text.done\",\"text\":\"Hello\"}",
            "event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"id\":\"r\"," +
                "\"usage\":{\"input_tokens\":3,\"output_tokens\":5,\"total_tokens\":8}}}",
        };
        final SseStreamMeter meter = new SseStreamMeter();
        long now = 0;
        for (final String event : events)
        {
            final byte[] bytes = (event + "\n\n").getBytes(StandardCharsets.UTF_8);
            now += 1_000;
            final boolean first = meter.onBytes(bytes, 0, bytes.length, now);
            assertThat(first).as(event).isEqualTo(event.contains("\"Hel\""));
        }
        assertThat(meter.contentChunks()).isEqualTo(2);
        assertThat(meter.firstContentNs()).isEqualTo(4_000);
        assertThat(meter.lastContentNs()).isEqualTo(5_000);
        assertThat(meter.usageCompletionTokens()).isEqualTo(5);
        assertThat(meter.usagePromptTokens()).as("the Responses API's input_tokens").isEqualTo(3);
        assertThat(meter.tpotNs()).as("1,000 ns over 5 - 1 tokens").isEqualTo(250);
    }

    @Test
    void shouldCountOnlyChunksWithNonEmptyContentNotRoleOnlyEmptyOrDone()
    {
        final SseStreamMeter meter = new SseStreamMeter();
        final String[] events = CHAT.split("\n\n");
        long now = 1_000;
        boolean firstSeen = false;
        for (final String event : events)
        {
            final byte[] bytes = (event + "\n\n").getBytes(StandardCharsets.UTF_8);
            now += 1_000;
            final boolean first = meter.onBytes(bytes, 0, bytes.length, now);
            if (first)
            {
                assertThat(event).contains("Hel");
                firstSeen = true;
            }
        }
        assertThat(firstSeen).isTrue();
        assertThat(meter.contentChunks()).isEqualTo(2);
        // The fourth event (after the role-only chunk, the empty content and the comment) is the first content.
        assertThat(meter.firstContentNs()).isEqualTo(5_000);
        assertThat(meter.lastContentNs()).isEqualTo(6_000);
        assertThat(meter.done()).isTrue();
        assertThat(meter.tpotNs()).isEqualTo(1_000);
    }

    @Test
    void shouldFindTheSameChunksWhereverTheStreamIsCut()
    {
        final byte[] all = CHAT.replace("\n", "\r\n").getBytes(StandardCharsets.UTF_8);
        for (int cut = 0; cut <= all.length; cut++)
        {
            for (final int second : new int[] {cut, Math.min(all.length, cut + 1), Math.min(all.length, cut + 7)})
            {
                final SseStreamMeter meter = new SseStreamMeter();
                meter.onBytes(all, 0, cut, 1);
                meter.onBytes(all, cut, second - cut, 2);
                meter.onBytes(all, second, all.length - second, 3);
                assertThat(meter.contentChunks()).as("cut at %d and %d", cut, second).isEqualTo(2);
                assertThat(meter.done()).isTrue();
                assertThat(meter.skippedLines()).isZero();
            }
        }
    }

    @Test
    void shouldReadCompletionsTextAndDivideTpotByUsageWhenReported()
    {
        final SseStreamMeter meter = new SseStreamMeter();
        feed(meter, "data: {\"choices\":[{\"text\":\"\"}]}\n\n", 10);
        feed(meter, "data: {\"choices\":[{\"text\":\"one two\"}]}\n\n", 100);
        feed(meter, "data: {\"choices\":[{\"text\":\" three four five\"}]}\n\n", 1_000);
        feed(meter, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":10}}\n\n", 1_100);
        feed(meter, "data: [DONE]\n\n", 1_200);
        assertThat(meter.contentChunks()).isEqualTo(2);
        assertThat(meter.usageCompletionTokens()).isEqualTo(10);
        assertThat(meter.firstContentNs()).isEqualTo(100);
        // (1000 - 100) / (10 - 1): per token, not per chunk.
        assertThat(meter.tpotNs()).isEqualTo(100);
    }

    @Test
    void shouldKeepTheLastReportedPromptTokensForTheAccessLog()
    {
        final SseStreamMeter meter = new SseStreamMeter();
        feed(meter, "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n", 10);
        assertThat(meter.usagePromptTokens()).isEqualTo(-1);
        feed(meter, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":37,\"completion_tokens\":1}}\n\n", 20);
        assertThat(meter.usagePromptTokens()).isEqualTo(37);
        assertThat(meter.usageCompletionTokens()).isEqualTo(1);
        feed(meter, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":\"many\"}}\n\n", 30);
        assertThat(meter.usagePromptTokens()).isEqualTo(37);
        meter.reset();
        assertThat(meter.usagePromptTokens()).isEqualTo(-1);
    }

    @Test
    void shouldReadTheUsageOfANonStreamedBodyWhereverItIsCut()
    {
        final byte[] body = ("{\n  \"id\": \"c1\",\n  \"object\": \"chat.completion\",\n  \"choices\": [{\"index\": 0, " +
            "\"message\": {\"role\": \"assistant\", \"content\": \"data: {\\\"usage\\\": 1}\"}}],\n  \"usage\": " +
            "{\"prompt_tokens\": 41, \"completion_tokens\": 7, \"total_tokens\": 48}\n}\n")
            .getBytes(StandardCharsets.UTF_8);
        for (int cut = 0; cut <= body.length; cut++)
        {
            final SseStreamMeter meter = new SseStreamMeter();
            meter.onJsonBodyBytes(body, 0, cut);
            meter.onJsonBodyBytes(body, cut, body.length - cut);
            meter.onJsonBodyEnd();
            assertThat(meter.usagePromptTokens()).as("cut at %d", cut).isEqualTo(41);
            assertThat(meter.usageCompletionTokens()).as("cut at %d", cut).isEqualTo(7);
            assertThat(meter.contentChunks()).as("a whole answer has no content chunks").isZero();
        }
    }

    @Test
    void shouldReportNoUsageForANonStreamedBodyOverTheLimitOrNotJson()
    {
        final SseStreamMeter meter = new SseStreamMeter();
        final byte[] head = "{\"choices\": [{\"text\": \"".getBytes(StandardCharsets.UTF_8);
        final byte[] tail = "\"}], \"usage\": {\"prompt_tokens\": 3, \"completion_tokens\": 4}}".getBytes(
            StandardCharsets.UTF_8);
        final byte[] chunk = new byte[64 * 1024];
        java.util.Arrays.fill(chunk, (byte)'x');
        meter.onJsonBodyBytes(head, 0, head.length);
        for (int i = 0; i < SseStreamMeter.MAX_LINE_BYTES / chunk.length; i++)
        {
            meter.onJsonBodyBytes(chunk, 0, chunk.length);
        }
        meter.onJsonBodyBytes(tail, 0, tail.length);
        meter.onJsonBodyEnd();
        assertThat(meter.usagePromptTokens()).isEqualTo(-1);
        assertThat(meter.usageCompletionTokens()).isEqualTo(-1);
        assertThat(meter.skippedLines()).isEqualTo(1);
        // The buffer is free again: the next body, not JSON, reports none either.
        final byte[] html = "<html>busy</html>".getBytes(StandardCharsets.UTF_8);
        meter.onJsonBodyBytes(html, 0, html.length);
        meter.onJsonBodyEnd();
        assertThat(meter.usagePromptTokens()).isEqualTo(-1);
        assertThat(meter.skippedLines()).isEqualTo(2);
    }

    @Test
    void shouldGiveNoTpotForASingleContentChunkAndSkipGarbage()
    {
        final SseStreamMeter meter = new SseStreamMeter();
        feed(meter, "data: not json\n\ndata: [1,2]\n\nevent: x\ndata: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\n", 5);
        assertThat(meter.contentChunks()).isEqualTo(1);
        assertThat(meter.skippedLines()).isEqualTo(2);
        assertThat(meter.tpotNs()).isEqualTo(-1);
    }

    @Test
    void shouldSkipALineLongerThanTheLimitWithoutKeepingIt()
    {
        final SseStreamMeter meter = new SseStreamMeter();
        final byte[] chunk = new byte[64 * 1024];
        java.util.Arrays.fill(chunk, (byte)'x');
        feed(meter, "data: {\"choices\":[{\"delta\":{\"content\":\"", 1);
        for (int i = 0; i < 20; i++)
        {
            meter.onBytes(chunk, 0, chunk.length, 2);
        }
        feed(meter, "\"}}]}\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"y\"}}]}\n\n", 3);
        assertThat(meter.skippedLines()).isEqualTo(1);
        assertThat(meter.contentChunks()).isEqualTo(1);
        assertThat(meter.firstContentNs()).isEqualTo(3);
    }

    @Test
    void shouldKeepALineOfExactlyTheLimitAndSkipOneByteMore()
    {
        final String head = "data: {\"choices\":[{\"delta\":{\"content\":\"";
        final String tail = "\"}}]}";
        for (final int extra : new int[] {0, 1})
        {
            final SseStreamMeter meter = new SseStreamMeter();
            final byte[] content = new byte[SseStreamMeter.MAX_LINE_BYTES - head.length() - tail.length() + extra];
            java.util.Arrays.fill(content, (byte)'x');
            feed(meter, head, 1);
            // Cut in uneven pieces, the last one ending exactly where the line reaches the limit.
            for (int offset = 0; offset < content.length; offset += 7_777)
            {
                meter.onBytes(content, offset, Math.min(7_777, content.length - offset), 2);
            }
            feed(meter, tail + "\r\n\r\n", 3);
            assertThat(meter.contentChunks()).as("extra %d", extra).isEqualTo(1 - extra);
            assertThat(meter.skippedLines()).as("extra %d", extra).isEqualTo(extra);
        }
    }

    private static void feed(final SseStreamMeter meter, final String text, final long nowNs)
    {
        final byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        meter.onBytes(bytes, 0, bytes.length, nowNs);
    }
}
