package io.multifactor.servers;

/**
 * A strict JSON (RFC 8259) scanner over a region of bytes that allocates nothing: the one reader of JSON text on the
 * request path, shared by the ORCA load-report parser and the SSE meter of {@code mf-serving}. Its caller walks the
 * structure it cares about and skips the rest: {@link #enter}, {@link #emptyContainer}, {@link #name},
 * {@link #colon}, {@link #string}, {@link #number}, {@link #skipValue} and {@link #next}. Each returns false (or a
 * negative code) on the first byte that is not valid JSON, so a caller stops at once; nesting deeper than the
 * scanner's maximum depth is refused the same way. Member names are compared with their escapes decoded.
 * <p>
 * This class is not threadsafe: one owner reads one region at a time.
 */
public final class JsonScanner
{
    /** Most digits of a number's integer, fraction or exponent part; more is refused. */
    public static final int MAX_NUMBER_DIGITS = 1000;

    /** {@link #stringChar()}: not a valid character. */
    private static final int INVALID = -1;
    /** {@link #stringChar()}: the closing quote. */
    private static final int STRING_END = -2;
    /** {@link #stringChar()}: a character beyond ASCII (equal to no byte of an ASCII name). */
    private static final int NON_ASCII = Integer.MAX_VALUE;

    private static final byte[] TRUE = {'t', 'r', 'u', 'e'};
    private static final byte[] FALSE = {'f', 'a', 'l', 's', 'e'};
    private static final byte[] NULL = {'n', 'u', 'l', 'l'};

    private final int maxDepth;
    private byte[] bytes = new byte[0];
    private int pos;
    private int limit;
    private int depth;
    private boolean integer;
    private boolean fitsLong;
    private long integerValue;

    /** @param maxDepth deepest nesting of arrays and objects read (the root container is level 1). */
    public JsonScanner(final int maxDepth)
    {
        this.maxDepth = maxDepth;
    }

    /**
     * Starts reading a region; the bytes are not copied (the caller keeps them unchanged while it reads).
     *
     * @param bytes the text, UTF-8.
     * @param from the first byte.
     * @param to one past the last byte.
     */
    public void reset(final byte[] bytes, final int from, final int to)
    {
        this.bytes = bytes;
        this.pos = from;
        this.limit = to;
        this.depth = 0;
    }

    /** @return the next byte to read. */
    public int position()
    {
        return pos;
    }

    /** @return whether the next byte, after blanks, is {@code c} (nothing is consumed but the blanks). */
    public boolean at(final char c)
    {
        whitespace();
        return pos < limit && bytes[pos] == c;
    }

    /** @return whether the next byte, after blanks, starts a number. */
    public boolean atNumber()
    {
        whitespace();
        return pos < limit && (bytes[pos] == '-' || (bytes[pos] >= '0' && bytes[pos] <= '9'));
    }

    /**
     * Opens the container whose bracket is the next byte (after blanks).
     *
     * @param open the opening brace of an object or bracket of an array.
     * @return false when the next byte is not that bracket or the nesting is too deep.
     */
    public boolean enter(final char open)
    {
        whitespace();
        if (pos >= limit || bytes[pos] != open)
        {
            return false;
        }
        pos++;
        return ++depth <= maxDepth;
    }

    /**
     * After an opening bracket: whether the container closes at once (then the scanner is past it).
     *
     * @param close the closing brace of an object or bracket of an array.
     * @return true when the container is empty.
     */
    public boolean emptyContainer(final char close)
    {
        whitespace();
        if (pos < limit && bytes[pos] == close)
        {
            pos++;
            depth--;
            return true;
        }
        return false;
    }

    /**
     * After a member or element.
     *
     * @param close the closing brace of an object or bracket of an array.
     * @return 1 for a comma (another one follows), 0 for the closing bracket (the scanner is past it), -1 otherwise.
     */
    public int next(final char close)
    {
        whitespace();
        if (pos >= limit)
        {
            return -1;
        }
        final byte b = bytes[pos++];
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

    /** @return whether a colon came (after blanks); the blanks after it are read too. */
    public boolean colon()
    {
        whitespace();
        if (pos >= limit || bytes[pos] != ':')
        {
            return false;
        }
        pos++;
        whitespace();
        return true;
    }

    private void whitespace()
    {
        while (pos < limit)
        {
            final byte b = bytes[pos];
            if (b != ' ' && b != '\t' && b != '\n' && b != '\r')
            {
                return;
            }
            pos++;
        }
    }

    /**
     * Reads a member's name (escapes decoded for the comparison) and compares it with up to three ASCII names.
     *
     * @param first a name.
     * @param secondOrNull another, or {@code null}.
     * @param thirdOrNull another, or {@code null}.
     * @return 1, 2 or 3 for the name it is, 0 for another name, -1 when not a valid string.
     */
    public int name(final byte[] first, final byte[] secondOrNull, final byte[] thirdOrNull)
    {
        whitespace();
        if (pos >= limit || bytes[pos] != '"')
        {
            return -1;
        }
        pos++;
        boolean matchFirst = true;
        boolean matchSecond = secondOrNull != null;
        boolean matchThird = thirdOrNull != null;
        int index = 0;
        while (true)
        {
            final int c = stringChar();
            if (c == STRING_END)
            {
                break;
            }
            if (c == INVALID)
            {
                return -1;
            }
            matchFirst &= index < first.length && first[index] == c;
            matchSecond &= matchSecond && index < secondOrNull.length && secondOrNull[index] == c;
            matchThird &= matchThird && index < thirdOrNull.length && thirdOrNull[index] == c;
            index++;
        }
        if (matchFirst && index == first.length)
        {
            return 1;
        }
        if (matchSecond && index == secondOrNull.length)
        {
            return 2;
        }
        return matchThird && index == thirdOrNull.length ? 3 : 0;
    }

    /**
     * As {@link #name(byte[], byte[], byte[])}, for more than three names: compares the member's name (or a string
     * value) with each of {@code names}. Allocates nothing.
     *
     * @param names ASCII names, none {@code null}.
     * @return 1 + the index of the name it is, 0 for another name, -1 when not a valid string.
     */
    public int nameAmong(final byte[][] names)
    {
        whitespace();
        if (pos >= limit || bytes[pos] != '"')
        {
            return -1;
        }
        pos++;
        // One bit per name still matching (names beyond 64 never match).
        long matching = names.length >= 64 ? -1L : (1L << names.length) - 1;
        int index = 0;
        while (true)
        {
            final int c = stringChar();
            if (c == STRING_END)
            {
                break;
            }
            if (c == INVALID)
            {
                return -1;
            }
            for (int n = 0; n < names.length && n < 64; n++)
            {
                if ((matching & (1L << n)) != 0 && (index >= names[n].length || names[n][index] != c))
                {
                    matching &= ~(1L << n);
                }
            }
            index++;
        }
        for (int n = 0; n < names.length && n < 64; n++)
        {
            if ((matching & (1L << n)) != 0 && index == names[n].length)
            {
                return n + 1;
            }
        }
        return 0;
    }

    /**
     * Reads a string value; the next byte must be its opening quote.
     *
     * @return 1 when it is not empty, 0 when empty, -1 when not a valid string.
     */
    public int string()
    {
        pos++;
        boolean empty = true;
        while (true)
        {
            final int c = stringChar();
            if (c == STRING_END)
            {
                return empty ? 0 : 1;
            }
            if (c == INVALID)
            {
                return -1;
            }
            empty = false;
        }
    }

    /**
     * Reads one character of a string: its code (an escape decoded), {@link #NON_ASCII} for a well-formed UTF-8
     * sequence, {@link #STRING_END} past the closing quote, or {@link #INVALID}.
     */
    private int stringChar()
    {
        if (pos >= limit)
        {
            return INVALID;
        }
        final int c = bytes[pos] & 0xFF;
        if (c == '"')
        {
            pos++;
            return STRING_END;
        }
        if (c == '\\')
        {
            return escape();
        }
        if (c < 0x20)
        {
            return INVALID;
        }
        if (c >= 0x80)
        {
            return utf8() ? NON_ASCII : INVALID;
        }
        pos++;
        return c;
    }

    /** At a backslash: reads the escape; returns the character, or {@link #INVALID} for an invalid escape. */
    private int escape()
    {
        if (pos + 1 >= limit)
        {
            return -1;
        }
        final byte e = bytes[pos + 1];
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
                if (pos + 4 > limit)
                {
                    return -1;
                }
                int value = 0;
                for (int i = 0; i < 4; i++)
                {
                    final int digit = Character.digit(bytes[pos + i], 16);
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
        final int lead = bytes[pos] & 0xFF;
        final int continuations = lead >= 0xC0 && lead < 0xE0 ? 1 : lead >= 0xE0 && lead < 0xF0 ? 2 :
            lead >= 0xF0 && lead < 0xF8 ? 3 : -1;
        if (continuations < 0 || pos + continuations >= limit)
        {
            return false;
        }
        for (int i = 1; i <= continuations; i++)
        {
            if ((bytes[pos + i] & 0xC0) != 0x80)
            {
                return false;
            }
        }
        pos += continuations + 1;
        return true;
    }

    /** @return whether a value of any kind came (nested containers within the maximum depth), now skipped. */
    public boolean skipValue()
    {
        whitespace();
        if (pos >= limit)
        {
            return false;
        }
        final byte b = bytes[pos];
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
                return (b == '-' || (b >= '0' && b <= '9')) && number();
        }
    }

    private boolean skipContainer(final boolean object)
    {
        if (!enter(object ? '{' : '['))
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
            if (object && (name(NULL, null, null) < 0 || !colon()))
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
        if (pos + word.length > limit)
        {
            return false;
        }
        for (int i = 0; i < word.length; i++)
        {
            if (bytes[pos + i] != word[i])
            {
                return false;
            }
        }
        pos += word.length;
        return true;
    }

    /**
     * Reads a number, {@code -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?}; the next byte must be its first. After it,
     * {@link #integerFitsLong()} says whether it was an integer that fits a {@code long}, and {@link #integerValue()}
     * holds that integer.
     *
     * @return whether it was a valid number.
     */
    public boolean number()
    {
        integer = false;
        fitsLong = false;
        final boolean negative = bytes[pos] == '-';
        if (negative)
        {
            pos++;
        }
        final int digitsStart = pos;
        // Accumulated negatively, so that Long.MIN_VALUE fits.
        long value = 0;
        boolean overflow = false;
        while (pos < limit && bytes[pos] >= '0' && bytes[pos] <= '9')
        {
            final int digit = bytes[pos] - '0';
            if (value < (Long.MIN_VALUE + digit) / 10)
            {
                overflow = true;
            }
            value = value * 10 - digit;
            pos++;
        }
        final int digits = pos - digitsStart;
        if (digits == 0 || digits > MAX_NUMBER_DIGITS || (digits > 1 && bytes[digitsStart] == '0'))
        {
            return false;
        }
        boolean isInteger = true;
        if (pos < limit && bytes[pos] == '.')
        {
            isInteger = false;
            pos++;
            if (!digits())
            {
                return false;
            }
        }
        if (pos < limit && (bytes[pos] == 'e' || bytes[pos] == 'E'))
        {
            isInteger = false;
            pos++;
            if (pos < limit && (bytes[pos] == '+' || bytes[pos] == '-'))
            {
                pos++;
            }
            if (!digits())
            {
                return false;
            }
        }
        integer = isInteger;
        fitsLong = isInteger && !overflow && (negative || value != Long.MIN_VALUE);
        integerValue = fitsLong ? (negative ? value : -value) : 0;
        return true;
    }

    private boolean digits()
    {
        final int from = pos;
        while (pos < limit && bytes[pos] >= '0' && bytes[pos] <= '9')
        {
            pos++;
        }
        return pos > from && pos - from <= MAX_NUMBER_DIGITS;
    }

    /** @return whether the last {@link #number()} read an integer that fits a {@code long}. */
    public boolean integerFitsLong()
    {
        return fitsLong;
    }

    /** @return the integer the last {@link #number()} read, when {@link #integerFitsLong()}; else 0. */
    public long integerValue()
    {
        return integerValue;
    }
}
