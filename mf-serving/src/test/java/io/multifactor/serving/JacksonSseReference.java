package io.multifactor.serving;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;

import java.io.IOException;

/**
 * The reference for {@link SseStreamMeter}'s scanner: the meter as it was with Jackson's streaming parser reading each
 * data line (same rules; it allocates a parser per line). {@code SseStreamMeterDifferentialTest} feeds both.
 * <p>
 * Follows an OpenAI server-sent-event stream as its bytes arrive, cut anywhere, and notes when content came: the first
 * and last {@code data:} line whose JSON has a non-empty {@code choices[].delta.content} (chat) or
 * {@code choices[].text} (completions), or a {@code type} {@code response.output_text.delta} with a non-empty string
 * {@code delta} (Responses), how many such lines, and the last {@code usage.completion_tokens} (or
 * {@code output_tokens}, also in a root {@code response} object). Role-only
 * chunks, empty content, {@code [DONE]}, comments and lines that are not JSON do not count. Each {@code data:} line is
 * read on its own (OpenAI-compatible servers send one line per event). Memory is bounded: a line longer than
 * {@link #MAX_LINE_BYTES} is skipped.
 * <p>
 * This class is not threadsafe: one stream, fed by one thread at a time.
 */
final class JacksonSseReference
{
    /** Longest line kept for inspection; longer lines are skipped (counted in {@link #skippedLines()}). */
    public static final int MAX_LINE_BYTES = 1 << 20;

    /** Value of the times before the first content line. */
    public static final long NONE = Long.MIN_VALUE;

    private static final JsonFactory JSON = JsonFactory.builder()
        .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(32).build())
        .build();

    private byte[] line = new byte[256];
    private int lineLength;
    private boolean overflow;
    private boolean afterCr;
    private long firstContentNs = NONE;
    private long lastContentNs = NONE;
    private long contentChunks;
    private long usageCompletionTokens = -1;
    private long skippedLines;
    private boolean done;

    /** Forgets the stream, for the next one. */
    public void reset()
    {
        lineLength = 0;
        overflow = false;
        afterCr = false;
        firstContentNs = NONE;
        lastContentNs = NONE;
        contentChunks = 0;
        usageCompletionTokens = -1;
        skippedLines = 0;
        done = false;
    }

    /**
     * Reads the next bytes of the stream.
     *
     * @param bytes the bytes.
     * @param offset where they start.
     * @param length how many.
     * @param nowNs when they arrived ({@link System#nanoTime()} scale).
     * @return whether these bytes completed the stream's first content line.
     */
    public boolean onBytes(final byte[] bytes, final int offset, final int length, final long nowNs)
    {
        final long before = contentChunks;
        final int end = offset + length;
        for (int i = offset; i < end; i++)
        {
            final byte b = bytes[i];
            if (b == '\n' || b == '\r')
            {
                if (b == '\n' && afterCr)
                {
                    afterCr = false;
                    continue;
                }
                afterCr = b == '\r';
                endOfLine(nowNs);
                continue;
            }
            afterCr = false;
            if (overflow)
            {
                continue;
            }
            if (lineLength == line.length)
            {
                if (lineLength >= MAX_LINE_BYTES)
                {
                    overflow = true;
                    continue;
                }
                final byte[] bigger = new byte[Math.min(MAX_LINE_BYTES, lineLength * 2)];
                System.arraycopy(line, 0, bigger, 0, lineLength);
                line = bigger;
            }
            line[lineLength++] = b;
        }
        return before == 0 && contentChunks > 0;
    }

    private void endOfLine(final long nowNs)
    {
        if (overflow)
        {
            skippedLines++;
        }
        else if (lineLength > 5 && line[0] == 'd' && line[1] == 'a' && line[2] == 't' && line[3] == 'a' && line[4] == ':')
        {
            int start = 5;
            if (start < lineLength && line[start] == ' ')
            {
                start++;
            }
            data(start, nowNs);
        }
        lineLength = 0;
        overflow = false;
    }

    private void data(final int start, final long nowNs)
    {
        final int length = lineLength - start;
        if (length == 6 && line[start] == '[' && line[start + 1] == 'D' && line[start + 2] == 'O' &&
            line[start + 3] == 'N' && line[start + 4] == 'E' && line[start + 5] == ']')
        {
            done = true;
            return;
        }
        boolean content = false;
        boolean textDeltaType = false;
        boolean deltaText = false;
        try (JsonParser parser = JSON.createParser(line, start, length))
        {
            if (parser.nextToken() != JsonToken.START_OBJECT)
            {
                skippedLines++;
                return;
            }
            while (parser.nextToken() == JsonToken.FIELD_NAME)
            {
                final String field = parser.currentName();
                final JsonToken value = parser.nextToken();
                if ("choices".equals(field) && value == JsonToken.START_ARRAY)
                {
                    content |= choices(parser);
                }
                else if ("usage".equals(field) && value == JsonToken.START_OBJECT)
                {
                    usage(parser);
                }
                else if ("type".equals(field) && value == JsonToken.VALUE_STRING)
                {
                    textDeltaType = "response.output_text.delta".equals(parser.getText());
                }
                else if ("delta".equals(field) && value == JsonToken.VALUE_STRING)
                {
                    deltaText = parser.getTextLength() > 0;
                }
                else if ("response".equals(field) && value == JsonToken.START_OBJECT)
                {
                    while (parser.nextToken() == JsonToken.FIELD_NAME)
                    {
                        final boolean usage = "usage".equals(parser.currentName());
                        if (parser.nextToken() == JsonToken.START_OBJECT && usage)
                        {
                            usage(parser);
                        }
                        else
                        {
                            parser.skipChildren();
                        }
                    }
                }
                else
                {
                    parser.skipChildren();
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            // A line that is not JSON is not content; the bytes pass through to the client as they are anyway.
            skippedLines++;
            return;
        }
        if (content || textDeltaType && deltaText)
        {
            if (contentChunks == 0)
            {
                firstContentNs = nowNs;
            }
            lastContentNs = nowNs;
            contentChunks++;
        }
    }

    private static boolean choices(final JsonParser parser) throws IOException
    {
        boolean content = false;
        JsonToken choice;
        while ((choice = parser.nextToken()) != JsonToken.END_ARRAY && choice != null)
        {
            if (choice != JsonToken.START_OBJECT)
            {
                parser.skipChildren();
                continue;
            }
            while (parser.nextToken() == JsonToken.FIELD_NAME)
            {
                final String field = parser.currentName();
                final JsonToken value = parser.nextToken();
                if ("text".equals(field) && value == JsonToken.VALUE_STRING)
                {
                    content |= parser.getTextLength() > 0;
                }
                else if ("delta".equals(field) && value == JsonToken.START_OBJECT)
                {
                    while (parser.nextToken() == JsonToken.FIELD_NAME)
                    {
                        final boolean isContent = "content".equals(parser.currentName());
                        final JsonToken v = parser.nextToken();
                        if (isContent && v == JsonToken.VALUE_STRING)
                        {
                            content |= parser.getTextLength() > 0;
                        }
                        else
                        {
                            parser.skipChildren();
                        }
                    }
                }
                else
                {
                    parser.skipChildren();
                }
            }
        }
        return content;
    }

    private void usage(final JsonParser parser) throws IOException
    {
        while (parser.nextToken() == JsonToken.FIELD_NAME)
        {
            final boolean tokens = "completion_tokens".equals(parser.currentName()) ||
                "output_tokens".equals(parser.currentName());
            final JsonToken value = parser.nextToken();
            if (tokens && value == JsonToken.VALUE_NUMBER_INT && parser.getNumberType() != JsonParser.NumberType.BIG_INTEGER)
            {
                usageCompletionTokens = parser.getLongValue();
            }
            else
            {
                parser.skipChildren();
            }
        }
    }

    /** @return when the first content line arrived, or {@link #NONE}. */
    public long firstContentNs()
    {
        return firstContentNs;
    }

    /** @return when the last content line arrived, or {@link #NONE}. */
    public long lastContentNs()
    {
        return lastContentNs;
    }

    /** @return how many content lines arrived. */
    public long contentChunks()
    {
        return contentChunks;
    }

    /** @return the last {@code usage.completion_tokens} the stream reported, or -1. */
    public long usageCompletionTokens()
    {
        return usageCompletionTokens;
    }

    /** @return whether {@code data: [DONE]} arrived. */
    public boolean done()
    {
        return done;
    }

    /** @return lines that were too long or whose data was not a JSON object. */
    public long skippedLines()
    {
        return skippedLines;
    }

    /**
     * TPOT of the stream so far: (last - first content) / (usage.completion_tokens - 1) when the stream reported
     * usage above 1 token, else / (content lines - 1).
     *
     * @return the time per output token in nanoseconds, or -1 when fewer than two content lines came (one line says
     *     nothing about the time between tokens, whatever usage reports).
     */
    public long tpotNs()
    {
        final long divisor = usageCompletionTokens > 1 ? usageCompletionTokens - 1 : contentChunks - 1;
        if (contentChunks < 2 || divisor < 1)
        {
            return -1;
        }
        return (lastContentNs - firstContentNs) / divisor;
    }
}
