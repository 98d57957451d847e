package io.multifactor.serving;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Follows an OpenAI server-sent-event stream as its bytes arrive, cut anywhere, and notes when content came: the first
 * and last {@code data:} line whose JSON has a non-empty {@code choices[].delta.content} (chat) or
 * {@code choices[].text} (completions), how many such lines, and the last {@code usage.completion_tokens}. Role-only
 * chunks, empty content, {@code [DONE]}, comments and lines that are not JSON do not count. Each {@code data:} line is
 * read on its own (OpenAI-compatible servers send one line per event), by a strict JSON scanner that allocates nothing
 * (a line that is not valid JSON, or nests deeper than {@link #MAX_DEPTH}, is skipped). Memory is bounded: a line
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
    /** Most digits of a number's integer, fraction or exponent part; more is skipped. */
    static final int MAX_NUMBER_DIGITS = 1000;

    // The member names read, as ASCII bytes: compared byte for byte with the line's (escapes decoded).
    private static final byte[] CHOICES = ascii("choices");
    private static final byte[] USAGE = ascii("usage");
    private static final byte[] TEXT = ascii("text");
    private static final byte[] DELTA = ascii("delta");
    private static final byte[] CONTENT = ascii("content");
    private static final byte[] COMPLETION_TOKENS = ascii("completion_tokens");
    private static final byte[] TRUE = {'t', 'r', 'u', 'e'};
    private static final byte[] FALSE = {'f', 'a', 'l', 's', 'e'};
    private static final byte[] NULL = {'n', 'u', 'l', 'l'};

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
    // The data line being read: next byte, nesting depth, whether content was seen.
    private int pos;
    private int depth;
    private boolean lineContent;

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
        pos = start;
        depth = 0;
        lineContent = false;
        if (!root())
        {
            // A line that is not a JSON object is not content; the bytes pass through to the client as they are anyway.
            skippedLines++;
            return;
        }
        if (lineContent)
        {
            if (contentChunks == 0)
            {
                firstContentNs = nowNs;
            }
            lastContentNs = nowNs;
            contentChunks++;
        }
    }

    // The reader of one data line below: a strict JSON (RFC 8259) scanner over line[pos..lineLength) that allocates
    // nothing. Each method returns false on the first byte that is not valid JSON (the line is then skipped); what the
    // root object holds after its closing brace is not read.

    /** The root: an object whose {@code choices} (an array) and {@code usage} (an object) are read. */
    private boolean root()
    {
        whitespace();
        if (pos >= lineLength || line[pos] != '{' || !enter())
        {
            return false;
        }
        if (emptyContainer('}'))
        {
            return true;
        }
        while (true)
        {
            final int name = name(CHOICES, USAGE);
            if (name < 0 || !colon())
            {
                return false;
            }
            final boolean ok;
            if (name == 1 && pos < lineLength && line[pos] == '[')
            {
                ok = choices();
            }
            else if (name == 2 && pos < lineLength && line[pos] == '{')
            {
                ok = usage();
            }
            else
            {
                ok = skipValue();
            }
            final int next = ok ? next('}') : -1;
            if (next != 1)
            {
                return next == 0;
            }
        }
    }

    /** {@code choices}: each object's {@code text} or {@code delta.content}, when a non-empty string, is content. */
    private boolean choices()
    {
        if (!enter())
        {
            return false;
        }
        if (emptyContainer(']'))
        {
            return true;
        }
        while (true)
        {
            whitespace();
            final boolean ok = pos < lineLength && line[pos] == '{' ? choice() : skipValue();
            final int next = ok ? next(']') : -1;
            if (next != 1)
            {
                return next == 0;
            }
        }
    }

    private boolean choice()
    {
        if (!enter())
        {
            return false;
        }
        if (emptyContainer('}'))
        {
            return true;
        }
        while (true)
        {
            final int name = name(TEXT, DELTA);
            if (name < 0 || !colon())
            {
                return false;
            }
            final boolean ok;
            if (name == 1 && pos < lineLength && line[pos] == '"')
            {
                final int string = string();
                ok = string >= 0;
                lineContent |= string > 0;
            }
            else if (name == 2 && pos < lineLength && line[pos] == '{')
            {
                ok = delta();
            }
            else
            {
                ok = skipValue();
            }
            final int next = ok ? next('}') : -1;
            if (next != 1)
            {
                return next == 0;
            }
        }
    }

    private boolean delta()
    {
        if (!enter())
        {
            return false;
        }
        if (emptyContainer('}'))
        {
            return true;
        }
        while (true)
        {
            final int name = name(CONTENT, null);
            if (name < 0 || !colon())
            {
                return false;
            }
            final boolean ok;
            if (name == 1 && pos < lineLength && line[pos] == '"')
            {
                final int string = string();
                ok = string >= 0;
                lineContent |= string > 0;
            }
            else
            {
                ok = skipValue();
            }
            final int next = ok ? next('}') : -1;
            if (next != 1)
            {
                return next == 0;
            }
        }
    }

    /** {@code usage}: its {@code completion_tokens}, when an integer that fits a long, is kept. */
    private boolean usage()
    {
        if (!enter())
        {
            return false;
        }
        if (emptyContainer('}'))
        {
            return true;
        }
        while (true)
        {
            final int name = name(COMPLETION_TOKENS, null);
            if (name < 0 || !colon())
            {
                return false;
            }
            final boolean ok;
            if (name == 1 && pos < lineLength && (line[pos] == '-' || (line[pos] >= '0' && line[pos] <= '9')))
            {
                ok = number(true);
            }
            else
            {
                ok = skipValue();
            }
            final int next = ok ? next('}') : -1;
            if (next != 1)
            {
                return next == 0;
            }
        }
    }

    /** Opens the container at {@code pos} (its bracket); false beyond {@link #MAX_DEPTH} levels. */
    private boolean enter()
    {
        pos++;
        return ++depth <= MAX_DEPTH;
    }

    /** After an opening bracket: true (and past it) when the container closes at once. */
    private boolean emptyContainer(final char close)
    {
        whitespace();
        if (pos < lineLength && line[pos] == close)
        {
            pos++;
            depth--;
            return true;
        }
        return false;
    }

    /** After a member: 1 for a comma (another member follows), 0 for the closing bracket (past it), -1 otherwise. */
    private int next(final char close)
    {
        whitespace();
        if (pos >= lineLength)
        {
            return -1;
        }
        final byte b = line[pos++];
        if (b == ',')
        {
            return 1;
        }
        if (b == close)
        {
            depth--;
            return 0;
        }
        return -1;
    }

    private boolean colon()
    {
        whitespace();
        if (pos >= lineLength || line[pos] != ':')
        {
            return false;
        }
        pos++;
        whitespace();
        return true;
    }

    private void whitespace()
    {
        while (pos < lineLength)
        {
            final byte b = line[pos];
            if (b != ' ' && b != '\t' && b != '\n' && b != '\r')
            {
                return;
            }
            pos++;
        }
    }

    /**
     * Reads a member's name (escapes decoded for the comparison).
     *
     * @return 1 when it is {@code first}, 2 when it is {@code secondOrNull}, 0 for another name, -1 when not a string.
     */
    private int name(final byte[] first, final byte[] secondOrNull)
    {
        whitespace();
        if (pos >= lineLength || line[pos] != '"')
        {
            return -1;
        }
        pos++;
        boolean matchFirst = true;
        boolean matchSecond = secondOrNull != null;
        int index = 0;
        while (true)
        {
            if (pos >= lineLength)
            {
                return -1;
            }
            int c = line[pos] & 0xFF;
            if (c == '"')
            {
                pos++;
                break;
            }
            if (c == '\\')
            {
                c = escape();
                if (c < 0)
                {
                    return -1;
                }
            }
            else if (c < 0x20)
            {
                return -1;
            }
            else if (c >= 0x80)
            {
                if (!utf8())
                {
                    return -1;
                }
                matchFirst = false;
                matchSecond = false;
                index++;
                continue;
            }
            else
            {
                pos++;
            }
            matchFirst &= index < first.length && first[index] == c;
            matchSecond &= matchSecond && index < secondOrNull.length && secondOrNull[index] == c;
            index++;
        }
        if (matchFirst && index == first.length)
        {
            return 1;
        }
        return matchSecond && index == secondOrNull.length ? 2 : 0;
    }

    /**
     * Reads a string value.
     *
     * @return 1 when it is not empty, 0 when empty, -1 when not a valid string.
     */
    private int string()
    {
        pos++;
        boolean empty = true;
        while (true)
        {
            if (pos >= lineLength)
            {
                return -1;
            }
            final int c = line[pos] & 0xFF;
            if (c == '"')
            {
                pos++;
                return empty ? 0 : 1;
            }
            empty = false;
            if (c == '\\')
            {
                if (escape() < 0)
                {
                    return -1;
                }
            }
            else if (c < 0x20)
            {
                return -1;
            }
            else if (c >= 0x80)
            {
                if (!utf8())
                {
                    return -1;
                }
            }
            else
            {
                pos++;
            }
        }
    }

    /** At a backslash: reads the escape; returns the character, or -1 for an invalid escape. */
    private int escape()
    {
        if (pos + 1 >= lineLength)
        {
            return -1;
        }
        final byte e = line[pos + 1];
        pos += 2;
        switch (e)
        {
            case '"':
                return '"';
            case '\\':
                return '\\';
            case '/':
                return '/';
            case 'b':
                return '\b';
            case 'f':
                return '\f';
            case 'n':
                return '\n';
            case 'r':
                return '\r';
            case 't':
                return '\t';
            case 'u':
                if (pos + 4 > lineLength)
                {
                    return -1;
                }
                int value = 0;
                for (int i = 0; i < 4; i++)
                {
                    final int digit = Character.digit(line[pos + i], 16);
                    if (digit < 0)
                    {
                        return -1;
                    }
                    value = value << 4 | digit;
                }
                pos += 4;
                return value;
            default:
                return -1;
        }
    }

    /** At a byte of 0x80 or above: reads one UTF-8 encoded character; false when it is not well formed. */
    private boolean utf8()
    {
        final int lead = line[pos] & 0xFF;
        final int continuations = lead >= 0xC0 && lead < 0xE0 ? 1 : lead >= 0xE0 && lead < 0xF0 ? 2 :
            lead >= 0xF0 && lead < 0xF8 ? 3 : -1;
        if (continuations < 0 || pos + continuations >= lineLength)
        {
            return false;
        }
        for (int i = 1; i <= continuations; i++)
        {
            if ((line[pos + i] & 0xC0) != 0x80)
            {
                return false;
            }
        }
        pos += continuations + 1;
        return true;
    }

    /** Skips any value (nested containers to {@link #MAX_DEPTH} levels). */
    private boolean skipValue()
    {
        whitespace();
        if (pos >= lineLength)
        {
            return false;
        }
        final byte b = line[pos];
        switch (b)
        {
            case '"':
                return string() >= 0;
            case '{':
            case '[':
                return skipContainer(b == '{');
            case 't':
                return literal(TRUE);
            case 'f':
                return literal(FALSE);
            case 'n':
                return literal(NULL);
            default:
                return (b == '-' || (b >= '0' && b <= '9')) && number(false);
        }
    }

    private boolean skipContainer(final boolean object)
    {
        if (!enter())
        {
            return false;
        }
        final char close = object ? '}' : ']';
        if (emptyContainer(close))
        {
            return true;
        }
        while (true)
        {
            if (object && (name(CONTENT, null) < 0 || !colon()))
            {
                return false;
            }
            final int next = skipValue() ? next(close) : -1;
            if (next != 1)
            {
                return next == 0;
            }
        }
    }

    private boolean literal(final byte[] word)
    {
        if (pos + word.length > lineLength)
        {
            return false;
        }
        for (int i = 0; i < word.length; i++)
        {
            if (line[pos + i] != word[i])
            {
                return false;
            }
        }
        pos += word.length;
        return true;
    }

    /**
     * Reads a number: {@code -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?}.
     *
     * @param keep when true, an integer that fits a long goes to {@link #usageCompletionTokens}.
     */
    private boolean number(final boolean keep)
    {
        final boolean negative = line[pos] == '-';
        if (negative)
        {
            pos++;
        }
        final int digitsStart = pos;
        // Accumulated negatively, so that Long.MIN_VALUE fits.
        long value = 0;
        boolean overflow = false;
        while (pos < lineLength && line[pos] >= '0' && line[pos] <= '9')
        {
            final int digit = line[pos] - '0';
            if (value < (Long.MIN_VALUE + digit) / 10)
            {
                overflow = true;
            }
            value = value * 10 - digit;
            pos++;
        }
        final int digits = pos - digitsStart;
        if (digits == 0 || digits > MAX_NUMBER_DIGITS || (digits > 1 && line[digitsStart] == '0'))
        {
            return false;
        }
        boolean integer = true;
        if (pos < lineLength && line[pos] == '.')
        {
            integer = false;
            pos++;
            if (!digits())
            {
                return false;
            }
        }
        if (pos < lineLength && (line[pos] == 'e' || line[pos] == 'E'))
        {
            integer = false;
            pos++;
            if (pos < lineLength && (line[pos] == '+' || line[pos] == '-'))
            {
                pos++;
            }
            if (!digits())
            {
                return false;
            }
        }
        if (keep && integer && !overflow && (negative || value != Long.MIN_VALUE))
        {
            usageCompletionTokens = negative ? value : -value;
        }
        return true;
    }

    private boolean digits()
    {
        final int from = pos;
        while (pos < lineLength && line[pos] >= '0' && line[pos] <= '9')
        {
            pos++;
        }
        return pos > from && pos - from <= MAX_NUMBER_DIGITS;
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
