package io.multifactor.serving;

import io.multifactor.servers.JsonScanner;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Follows an OpenAI server-sent-event stream as its bytes arrive, cut anywhere, and notes when content came: the first
 * and last {@code data:} line whose JSON has a non-empty {@code choices[].delta.content} (chat) or
 * {@code choices[].text} (completions), or whose {@code type} is {@code response.output_text.delta} with a non-empty
 * {@code delta} (the Responses API's stream), how many such lines, and the last {@code usage.completion_tokens} (or the
 * Responses API's {@code usage.output_tokens}, also inside its {@code response} object). Role-only chunks, empty
 * content, other Responses events, {@code [DONE]}, comments and lines that are not JSON do not count. Each {@code data:} line is
 * read on its own (OpenAI-compatible servers send one line per event), by the strict JSON scanner that the ORCA
 * load-report parser uses too ({@link JsonScanner}), which allocates nothing (a line that is not valid JSON, or nests
 * deeper than {@link #MAX_DEPTH}, is skipped). Memory is bounded: a line
 * longer than {@link #MAX_LINE_BYTES} is skipped.
 * <p>
 * This class is not threadsafe: one stream, fed by one thread at a time.
 */
public final class SseStreamMeter
{
    /** Longest line kept for inspection; longer lines are skipped (counted in {@link #skippedLines()}). */
    public static final int MAX_LINE_BYTES = 1 << 20;

    /** Value of the times before the first content line. */
    public static final long NONE = Long.MIN_VALUE;

    /** Deepest nesting of arrays and objects read in a data line (the root object is level 1); deeper is skipped. */
    public static final int MAX_DEPTH = 32;

    // The member names read, as ASCII bytes: compared byte for byte with the line's (escapes decoded).
    private static final byte[] CHOICES = ascii("choices");
    private static final byte[] USAGE = ascii("usage");
    private static final byte[] TEXT = ascii("text");
    private static final byte[] DELTA = ascii("delta");
    private static final byte[] CONTENT = ascii("content");
    private static final byte[] COMPLETION_TOKENS = ascii("completion_tokens");
    private static final byte[] PROMPT_TOKENS = ascii("prompt_tokens");
    private static final byte[] OUTPUT_TOKENS = ascii("output_tokens");
    /** A {@code usage} object's counts: the completion's two names (Chat/Completions, Responses), then the prompt's. */
    private static final byte[][] USAGE_COUNTS =
        { COMPLETION_TOKENS, OUTPUT_TOKENS, PROMPT_TOKENS, ascii("input_tokens") };
    private static final byte[] OUTPUT_TEXT_DELTA = ascii("response.output_text.delta");
    private static final byte[][] ROOT_NAMES = {CHOICES, USAGE, ascii("type"), DELTA, ascii("response")};

    private byte[] line = new byte[256];
    private int lineLength;
    private boolean overflow;
    private boolean afterCr;
    private long firstContentNs = NONE;
    private long lastContentNs = NONE;
    private long contentChunks;
    private long usageCompletionTokens = -1;
    private long usagePromptTokens = -1;
    private long skippedLines;
    private boolean done;
    // The data line being read: its scanner, whether content was seen.
    private final JsonScanner json = new JsonScanner(MAX_DEPTH);
    private boolean lineContent;
    private boolean lineTextDeltaType;
    private boolean lineDeltaText;

    private static byte[] ascii(final String name)
    {
        return name.getBytes(StandardCharsets.US_ASCII);
    }

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
        usagePromptTokens = -1;
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
        int i = offset;
        while (i < end)
        {
            // The run of bytes up to the next line break is copied at once, not byte by byte.
            int runEnd = i;
            while (runEnd < end && bytes[runEnd] != '\n' && bytes[runEnd] != '\r')
            {
                runEnd++;
            }
            if (runEnd > i)
            {
                afterCr = false;
                if (!overflow)
                {
                    append(bytes, i, runEnd - i);
                }
            }
            if (runEnd == end)
            {
                break;
            }
            final byte b = bytes[runEnd];
            i = runEnd + 1;
            if (b == '\n' && afterCr)
            {
                afterCr = false;
                continue;
            }
            afterCr = b == '\r';
            endOfLine(nowNs);
        }
        return before == 0 && contentChunks > 0;
    }

    /** Appends part of a line; a line that would grow beyond {@link #MAX_LINE_BYTES} overflows (it is skipped). */
    private void append(final byte[] bytes, final int offset, final int length)
    {
        final int needed = lineLength + length;
        if (needed > MAX_LINE_BYTES)
        {
            overflow = true;
            return;
        }
        if (needed > line.length)
        {
            line = Arrays.copyOf(line, Math.max(needed, Math.min(MAX_LINE_BYTES, line.length * 2)));
        }
        System.arraycopy(bytes, offset, line, lineLength, length);
        lineLength = needed;
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
        json.reset(line, start, lineLength);
        lineContent = false;
        lineTextDeltaType = false;
        lineDeltaText = false;
        if (!root())
        {
            // A line that is not a JSON object is not content; the bytes pass through to the client as they are anyway.
            skippedLines++;
            return;
        }
        if (lineContent || lineTextDeltaType && lineDeltaText)
        {
            content(nowNs);
        }
    }

    private void content(final long nowNs)
    {
        if (contentChunks == 0)
        {
            firstContentNs = nowNs;
        }
        lastContentNs = nowNs;
        contentChunks++;
    }

    /**
     * Notes one content chunk that a caller has already decoded (a framework's streaming callback, which hands over
     * chunks rather than bytes): counted exactly as a content {@code data:} line, so {@link #tpotNs()} is the one
     * definition of TPOT for both.
     *
     * @param nowNs when the chunk arrived ({@link System#nanoTime()} scale).
     * @return whether it was the stream's first content chunk.
     */
    public boolean onContentChunk(final long nowNs)
    {
        content(nowNs);
        return contentChunks == 1;
    }

    /**
     * Notes the completion tokens a decoded stream reported in its usage (as a {@code usage.completion_tokens} line).
     *
     * @param completionTokens the count, ignored when negative.
     */
    public void onUsageCompletionTokens(final long completionTokens)
    {
        if (completionTokens >= 0)
        {
            usageCompletionTokens = completionTokens;
        }
    }

    /**
     * Reads the next bytes of a non-streamed answer, one JSON object (a chat or text completion, embeddings): kept,
     * line breaks and all, up to {@link #MAX_LINE_BYTES}; a longer body is not read (it still passes to the client as
     * it is). Its {@code usage} is read at {@link #onJsonBodyEnd()}. Allocation-free once the buffer has the body's
     * size.
     *
     * @param bytes the bytes.
     * @param offset where they start.
     * @param length how many.
     */
    public void onJsonBodyBytes(final byte[] bytes, final int offset, final int length)
    {
        if (!overflow)
        {
            append(bytes, offset, length);
        }
    }

    /**
     * The end of a non-streamed answer: its {@code usage} ({@code prompt_tokens}, {@code completion_tokens}) is read, as
     * a stream's, into {@link #usagePromptTokens()} and {@link #usageCompletionTokens()}; a body that is not a JSON
     * object, or was longer than {@link #MAX_LINE_BYTES}, is counted in {@link #skippedLines()} and reports none.
     */
    public void onJsonBodyEnd()
    {
        if (overflow)
        {
            skippedLines++;
        }
        else
        {
            json.reset(line, 0, lineLength);
            if (!root())
            {
                skippedLines++;
            }
        }
        lineLength = 0;
        overflow = false;
    }

    // The reader of one data line below walks the structure through the shared strict JSON scanner; each method returns
    // false on the first byte that is not valid JSON (the line is then skipped); what the root object holds after its
    // closing brace is not read.

    /**
     * The root: an object whose {@code choices} (an array), {@code usage} (an object), and the Responses API's
     * {@code type} and {@code delta} (strings) and {@code response} (an object with {@code usage}) are read.
     */
    private boolean root()
    {
        if (!json.enter('{'))
        {
            return false;
        }
        if (json.emptyContainer('}'))
        {
            return true;
        }
        while (true)
        {
            final int name = json.nameAmong(ROOT_NAMES);
            if (name < 0 || !json.colon())
            {
                return false;
            }
            final boolean ok;
            if (name == 1 && json.at('['))
            {
                ok = choices();
            }
            else if (name == 2 && json.at('{'))
            {
                ok = usage();
            }
            else if (name == 3 && json.at('"'))
            {
                final int type = json.name(OUTPUT_TEXT_DELTA, null, null);
                lineTextDeltaType = type == 1;
                ok = type >= 0;
            }
            else if (name == 4 && json.at('"'))
            {
                final int delta = json.string();
                lineDeltaText = delta > 0;
                ok = delta >= 0;
            }
            else if (name == 5 && json.at('{'))
            {
                ok = response();
            }
            else
            {
                ok = json.skipValue();
            }
            final int next = ok ? json.next('}') : -1;
            if (next != 1)
            {
                return next == 0;
            }
        }
    }

    /** {@code choices}: each object's {@code text} or {@code delta.content}, when a non-empty string, is content. */
    private boolean choices()
    {
        if (!json.enter('['))
        {
            return false;
        }
        if (json.emptyContainer(']'))
        {
            return true;
        }
        while (true)
        {
            final boolean ok = json.at('{') ? choice() : json.skipValue();
            final int next = ok ? json.next(']') : -1;
            if (next != 1)
            {
                return next == 0;
            }
        }
    }

    private boolean choice()
    {
        if (!json.enter('{'))
        {
            return false;
        }
        if (json.emptyContainer('}'))
        {
            return true;
        }
        while (true)
        {
            final int name = json.name(TEXT, DELTA, null);
            if (name < 0 || !json.colon())
            {
                return false;
            }
            final boolean ok;
            if (name == 1 && json.at('"'))
            {
                ok = content();
            }
            else if (name == 2 && json.at('{'))
            {
                ok = delta();
            }
            else
            {
                ok = json.skipValue();
            }
            final int next = ok ? json.next('}') : -1;
            if (next != 1)
            {
                return next == 0;
            }
        }
    }

    private boolean delta()
    {
        if (!json.enter('{'))
        {
            return false;
        }
        if (json.emptyContainer('}'))
        {
            return true;
        }
        while (true)
        {
            final int name = json.name(CONTENT, null, null);
            if (name < 0 || !json.colon())
            {
                return false;
            }
            final boolean ok = name == 1 && json.at('"') ? content() : json.skipValue();
            final int next = ok ? json.next('}') : -1;
            if (next != 1)
            {
                return next == 0;
            }
        }
    }

    /** A {@code text} or {@code content} string: content when not empty. */
    private boolean content()
    {
        final int string = json.string();
        lineContent |= string > 0;
        return string >= 0;
    }

    /** The Responses API's {@code response} object: its {@code usage} is read. */
    private boolean response()
    {
        if (!json.enter('{'))
        {
            return false;
        }
        if (json.emptyContainer('}'))
        {
            return true;
        }
        while (true)
        {
            final int name = json.name(USAGE, null, null);
            if (name < 0 || !json.colon())
            {
                return false;
            }
            final boolean ok = name == 1 && json.at('{') ? usage() : json.skipValue();
            final int next = ok ? json.next('}') : -1;
            if (next != 1)
            {
                return next == 0;
            }
        }
    }

    /**
     * {@code usage}: its {@code completion_tokens} (or the Responses API's {@code output_tokens}) and its
     * {@code prompt_tokens} (or the Responses API's {@code input_tokens}), when integers that fit a long, are kept.
     */
    private boolean usage()
    {
        if (!json.enter('{'))
        {
            return false;
        }
        if (json.emptyContainer('}'))
        {
            return true;
        }
        while (true)
        {
            final int name = json.nameAmong(USAGE_COUNTS);
            if (name < 0 || !json.colon())
            {
                return false;
            }
            final boolean ok;
            if (name >= 1 && json.atNumber())
            {
                ok = json.number();
                if (ok && json.integerFitsLong())
                {
                    if (name <= 2)
                    {
                        usageCompletionTokens = json.integerValue();
                    }
                    else
                    {
                        usagePromptTokens = json.integerValue();
                    }
                }
            }
            else
            {
                ok = json.skipValue();
            }
            final int next = ok ? json.next('}') : -1;
            if (next != 1)
            {
                return next == 0;
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

    /** @return the last {@code usage.prompt_tokens} (or {@code input_tokens}) the stream reported, or -1. */
    public long usagePromptTokens()
    {
        return usagePromptTokens;
    }

    /** @return the last {@code usage.completion_tokens} (or {@code output_tokens}) the stream reported, or -1. */
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
