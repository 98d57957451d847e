package io.multifactor.kernel.metrics;

import java.util.Arrays;
import java.util.Objects;

/**
 * The label of one engine counter, parsed: a metric name and its tags. Labels follow this grammar (the one Prometheus
 * uses for a series), so that another process can tell counters apart without knowing the engine's handles:
 * <pre>
 *   label  = name [ "{" tag *( "," tag ) "}" ]
 *   name   = 1*( "a"-"z" / "A"-"Z" / "0"-"9" / "." / "_" )
 *   tag    = name "=" DQUOTE *( char / "\\" / "\"" / "\n" ) DQUOTE   ; backslash escapes \ " and newline
 * </pre>
 * for example {@code mf.drops{model="premium-model",reason="tpot"}}. Agrona keeps at most 380 bytes of a label: a
 * label cut there (names of hundreds of characters) does not parse, and readers show it as it is.
 * <p>
 * Instances are immutable and threadsafe; {@link #format} and {@link #parse} allocate and belong off the request path.
 */
public final class CounterLabel
{
    private final String name;
    private final String[] keys;
    private final String[] values;

    private CounterLabel(final String name, final String[] keys, final String[] values)
    {
        this.name = name;
        this.keys = keys;
        this.values = values;
    }

    /**
     * Formats a label.
     *
     * @param name metric name, such as {@code "mf.drops"}.
     * @param keysAndValues tag keys and values, alternating: {@code "model", "m1", "reason", "tpot"}.
     * @return the label.
     * @throws IllegalArgumentException for an odd number of strings or a name or key outside the grammar.
     */
    public static String format(final String name, final String... keysAndValues)
    {
        requireName(name);
        if (keysAndValues.length % 2 != 0)
        {
            throw new IllegalArgumentException("tag keys and values must alternate: " + Arrays.toString(keysAndValues));
        }
        final StringBuilder out = new StringBuilder(name);
        for (int i = 0; i < keysAndValues.length; i += 2)
        {
            requireName(keysAndValues[i]);
            out.append(i == 0 ? '{' : ',').append(keysAndValues[i]).append("=\"");
            final String value = Objects.requireNonNull(keysAndValues[i + 1], "tag value");
            for (int c = 0; c < value.length(); c++)
            {
                final char ch = value.charAt(c);
                if (ch == '\\' || ch == '"')
                {
                    out.append('\\').append(ch);
                }
                else if (ch == '\n')
                {
                    out.append("\\n");
                }
                else
                {
                    out.append(ch);
                }
            }
            out.append('"');
        }
        if (keysAndValues.length > 0)
        {
            out.append('}');
        }
        return out.toString();
    }

    /**
     * Parses a label.
     *
     * @param label a counter label.
     * @return the parsed label, or null when it does not follow the grammar (a foreign or truncated label).
     */
    public static CounterLabel parse(final String label)
    {
        final int length = label.length();
        int i = 0;
        while (i < length && isNameChar(label.charAt(i)))
        {
            i++;
        }
        if (i == 0)
        {
            return null;
        }
        final String name = label.substring(0, i);
        if (i == length)
        {
            return new CounterLabel(name, new String[0], new String[0]);
        }
        if (label.charAt(i) != '{')
        {
            return null;
        }
        i++;
        final java.util.List<String> keys = new java.util.ArrayList<>();
        final java.util.List<String> values = new java.util.ArrayList<>();
        final StringBuilder value = new StringBuilder();
        while (true)
        {
            final int keyStart = i;
            while (i < length && isNameChar(label.charAt(i)))
            {
                i++;
            }
            if (i == keyStart || i + 1 >= length || label.charAt(i) != '=' || label.charAt(i + 1) != '"')
            {
                return null;
            }
            keys.add(label.substring(keyStart, i));
            i += 2;
            value.setLength(0);
            boolean closed = false;
            while (i < length)
            {
                final char ch = label.charAt(i++);
                if (ch == '"')
                {
                    closed = true;
                    break;
                }
                if (ch == '\\')
                {
                    if (i == length)
                    {
                        return null;
                    }
                    final char escaped = label.charAt(i++);
                    value.append(escaped == 'n' ? '\n' : escaped);
                }
                else
                {
                    value.append(ch);
                }
            }
            if (!closed || i == length)
            {
                return null;
            }
            values.add(value.toString());
            final char next = label.charAt(i++);
            if (next == '}')
            {
                return i == length ? new CounterLabel(name, keys.toArray(new String[0]), values.toArray(new String[0])) :
                    null;
            }
            if (next != ',')
            {
                return null;
            }
        }
    }

    /** @return the metric name, such as {@code "mf.drops"}. */
    public String name()
    {
        return name;
    }

    /** @return the number of tags. */
    public int tagCount()
    {
        return keys.length;
    }

    /**
     * @param index tag position, 0 to {@link #tagCount()} - 1.
     * @return its key.
     */
    public String key(final int index)
    {
        return keys[index];
    }

    /**
     * @param index tag position, 0 to {@link #tagCount()} - 1.
     * @return its value, unescaped.
     */
    public String value(final int index)
    {
        return values[index];
    }

    /**
     * @param key a tag key.
     * @return its value, or null when the label has no such tag.
     */
    public String tag(final String key)
    {
        for (int i = 0; i < keys.length; i++)
        {
            if (keys[i].equals(key))
            {
                return values[i];
            }
        }
        return null;
    }

    @Override
    public String toString()
    {
        final String[] keysAndValues = new String[keys.length * 2];
        for (int i = 0; i < keys.length; i++)
        {
            keysAndValues[2 * i] = keys[i];
            keysAndValues[2 * i + 1] = values[i];
        }
        return format(name, keysAndValues);
    }

    private static boolean isNameChar(final char ch)
    {
        return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.' || ch == '_';
    }

    private static void requireName(final String name)
    {
        if (name == null || name.isEmpty())
        {
            throw new IllegalArgumentException("empty metric or tag name");
        }
        for (int i = 0; i < name.length(); i++)
        {
            if (!isNameChar(name.charAt(i)))
            {
                throw new IllegalArgumentException("metric or tag name outside [A-Za-z0-9._]: " + name);
            }
        }
    }
}
