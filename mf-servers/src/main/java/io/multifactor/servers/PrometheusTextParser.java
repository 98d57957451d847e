package io.multifactor.servers;

import java.nio.charset.StandardCharsets;

/**
 * Reads the samples of a few wanted metric names out of a Prometheus text-format body (version 0.0.4, and the
 * OpenMetrics text that servers send in its place): comments and {@code # HELP} / {@code # TYPE} lines, label sets with
 * the escapes {@code \\}, {@code \"} and {@code \n}, several series of one name, {@code NaN}, {@code +Inf},
 * {@code -Inf}, exponents and timestamps. For each wanted name it keeps the number of accepted series and their sum
 * (the caller sums or averages). A sample is accepted when its value is finite, >= 0 and at most the name's bound;
 * otherwise it is skipped and counted in {@link #samplesRefused()}. A line that is not a sample or a comment is skipped
 * and counted in {@link #linesMalformed()}.
 * <p>
 * It works in place on the caller's bytes: no allocation per line or per parse, never an exception for any input, and
 * time linear in the body. Values are decoded to the nearest double when they have up to 15 significant digits and a
 * decimal exponent within 22 of them (every value a model server publishes); otherwise within a few units in the last
 * place.
 * <p>
 * This class is not threadsafe: one parser per thread (the scrape agent's).
 */
public final class PrometheusTextParser
{
    private final byte[][] names;
    private final double[] upperBounds;
    private final int[] seriesCounts;
    private final double[] sums;
    private int linesMalformed;
    private int samplesRefused;
    private int position;
    private final NumberDecoder decoder = new NumberDecoder();

    /**
     * @param names the metric names wanted, ASCII, exactly as the server writes them (such as
     *     {@code vllm:num_requests_waiting}).
     * @param upperBounds per name, the largest value accepted (such as 1 for a fraction).
     * @throws IllegalArgumentException when the arrays differ in length.
     */
    public PrometheusTextParser(final String[] names, final double[] upperBounds)
    {
        if (names.length != upperBounds.length)
        {
            throw new IllegalArgumentException("one upper bound per name: " + names.length + " names, " +
                upperBounds.length + " bounds");
        }
        this.names = new byte[names.length][];
        for (int i = 0; i < names.length; i++)
        {
            this.names[i] = names[i].getBytes(StandardCharsets.US_ASCII);
        }
        this.upperBounds = upperBounds.clone();
        this.seriesCounts = new int[names.length];
        this.sums = new double[names.length];
    }

    /**
     * Parses a body, replacing the results of the previous parse. Allocation-free; never throws for any content.
     *
     * @param body the bytes.
     * @param offset where the body starts.
     * @param length its length in bytes.
     */
    public void parse(final byte[] body, final int offset, final int length)
    {
        java.util.Arrays.fill(seriesCounts, 0);
        java.util.Arrays.fill(sums, 0.0);
        linesMalformed = 0;
        samplesRefused = 0;
        final int end = offset + length;
        position = offset;
        while (position < end)
        {
            parseLine(body, end);
        }
    }

    /** @return how many names the parser looks for. */
    public int nameCount()
    {
        return names.length;
    }

    /**
     * @param name index of a wanted name, in constructor order.
     * @return how many of its series the last parse accepted.
     */
    public int seriesCount(final int name)
    {
        return seriesCounts[name];
    }

    /**
     * @param name index of a wanted name.
     * @return the sum of its accepted series, 0 when none.
     */
    public double sum(final int name)
    {
        return sums[name];
    }

    /**
     * @param name index of a wanted name.
     * @return the mean of its accepted series, NaN when none.
     */
    public double mean(final int name)
    {
        return seriesCounts[name] == 0 ? Double.NaN : sums[name] / seriesCounts[name];
    }

    /** @return lines of the last parse that were neither a sample nor a comment. */
    public int linesMalformed()
    {
        return linesMalformed;
    }

    /** @return samples of wanted names in the last parse whose value was NaN, infinite, negative or above the bound. */
    public int samplesRefused()
    {
        return samplesRefused;
    }

    private void parseLine(final byte[] b, final int end)
    {
        int p = skipBlanks(b, position, end);
        if (p >= end)
        {
            position = end;
            return;
        }
        final byte first = b[p];
        if (first == '\n')
        {
            position = p + 1;
            return;
        }
        if (first == '#')
        {
            position = nextLine(b, p, end);
            return;
        }
        if (!isNameStart(first))
        {
            malformed(b, p, end);
            return;
        }
        final int nameStart = p;
        p++;
        while (p < end && isNameChar(b[p]))
        {
            p++;
        }
        final int wanted = wanted(b, nameStart, p - nameStart);
        if (wanted < 0)
        {
            // Not a wanted name: a label value cannot hold a raw newline, so the line ends at the next one.
            position = nextLine(b, p, end);
            return;
        }
        p = skipBlanks(b, p, end);
        if (p < end && b[p] == '{')
        {
            p = skipLabels(b, p + 1, end);
            if (p < 0)
            {
                malformed(b, -p - 1, end);
                return;
            }
        }
        final int valueStart = skipBlanks(b, p, end);
        if (valueStart >= end || b[valueStart] == '\n')
        {
            malformed(b, valueStart, end); // no value
            return;
        }
        int valueEnd = valueStart;
        while (valueEnd < end && b[valueEnd] != ' ' && b[valueEnd] != '\t' && b[valueEnd] != '\n' && b[valueEnd] != '\r')
        {
            valueEnd++;
        }
        if (!decoder.decode(b, valueStart, valueEnd))
        {
            malformed(b, valueEnd, end);
            return;
        }
        final double value = decoder.value();
        p = skipBlanks(b, valueEnd, end);
        if (p < end && b[p] != '\n')
        {
            // An optional timestamp: an integer (milliseconds), possibly negative; ignored.
            int t = p;
            if (b[t] == '-' || b[t] == '+')
            {
                t++;
            }
            final int digits = t;
            while (t < end && b[t] >= '0' && b[t] <= '9')
            {
                t++;
            }
            if (t == digits)
            {
                malformed(b, t, end);
                return;
            }
            p = skipBlanks(b, t, end);
            if (p < end && b[p] != '\n')
            {
                malformed(b, p, end);
                return;
            }
        }
        position = p < end ? p + 1 : end;
        if (value >= 0.0 && value <= upperBounds[wanted])
        {
            seriesCounts[wanted]++;
            sums[wanted] += value;
        }
        else
        {
            samplesRefused++; // NaN fails both comparisons
        }
    }

    /**
     * @return the position after the closing brace, or {@code -(position of the fault) - 1} when the label set is
     *     malformed.
     */
    private static int skipLabels(final byte[] b, final int from, final int end)
    {
        int p = from;
        while (true)
        {
            p = skipBlanks(b, p, end);
            if (p >= end)
            {
                return -p - 1;
            }
            if (b[p] == '}')
            {
                return p + 1;
            }
            if (b[p] == '"')
            {
                p = skipQuoted(b, p + 1, end); // a quoted label name (the UTF-8 names of newer servers)
                if (p < 0)
                {
                    return p;
                }
            }
            else if (isLabelStart(b[p]))
            {
                p++;
                while (p < end && isLabelChar(b[p]))
                {
                    p++;
                }
            }
            else
            {
                return -p - 1;
            }
            p = skipBlanks(b, p, end);
            if (p < end && (b[p] == ',' || b[p] == '}'))
            {
                // A bare quoted string is a metric name inside the braces: {"name", label="v"}.
                if (b[p] == ',')
                {
                    p++;
                }
                continue;
            }
            if (p >= end || b[p] != '=')
            {
                return -p - 1;
            }
            p = skipBlanks(b, p + 1, end);
            if (p >= end || b[p] != '"')
            {
                return -p - 1;
            }
            p = skipQuoted(b, p + 1, end);
            if (p < 0)
            {
                return p;
            }
            p = skipBlanks(b, p, end);
            if (p < end && b[p] == ',')
            {
                p++;
            }
            else if (p >= end || b[p] != '}')
            {
                return -p - 1;
            }
        }
    }

    /** @return the position after the closing quote, or {@code -(position of the fault) - 1}. */
    private static int skipQuoted(final byte[] b, final int from, final int end)
    {
        int p = from;
        while (p < end)
        {
            final byte c = b[p];
            if (c == '"')
            {
                return p + 1;
            }
            if (c == '\n')
            {
                return -p - 1;
            }
            if (c == '\\')
            {
                if (p + 1 >= end || b[p + 1] == '\n')
                {
                    return -p - 1;
                }
                p += 2;
                continue;
            }
            p++;
        }
        return -p - 1;
    }

    private int wanted(final byte[] b, final int from, final int length)
    {
        for (int i = 0; i < names.length; i++)
        {
            final byte[] name = names[i];
            if (name.length != length)
            {
                continue;
            }
            int j = 0;
            while (j < length && name[j] == b[from + j])
            {
                j++;
            }
            if (j == length)
            {
                return i;
            }
        }
        return -1;
    }

    private void malformed(final byte[] b, final int at, final int end)
    {
        linesMalformed++;
        position = nextLine(b, Math.max(at, position), end);
    }

    private static int nextLine(final byte[] b, final int from, final int end)
    {
        int p = from;
        while (p < end && b[p] != '\n')
        {
            p++;
        }
        return p < end ? p + 1 : end;
    }

    private static int skipBlanks(final byte[] b, final int from, final int end)
    {
        int p = from;
        while (p < end && (b[p] == ' ' || b[p] == '\t' || b[p] == '\r'))
        {
            p++;
        }
        return p;
    }

    private static boolean isNameStart(final byte c)
    {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == ':';
    }

    private static boolean isNameChar(final byte c)
    {
        return isNameStart(c) || c >= '0' && c <= '9';
    }

    private static boolean isLabelStart(final byte c)
    {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_';
    }

    private static boolean isLabelChar(final byte c)
    {
        return isLabelStart(c) || c >= '0' && c <= '9';
    }
}
