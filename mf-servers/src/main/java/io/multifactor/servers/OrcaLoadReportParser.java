package io.multifactor.servers;

import java.nio.charset.StandardCharsets;

/**
 * Reads a model server's load from an ORCA {@code endpoint-load-metrics} response header, as vLLM sends it when the
 * request asked with {@code endpoint-load-metrics-format}: {@code TEXT named_metrics.kv_cache_usage_perc=0.4,
 * named_metrics.num_requests_waiting=3} or {@code JSON {"named_metrics": {"kv_cache_usage_perc": 0.4,
 * "num_requests_waiting": 3}}}. It reads the named metrics {@code num_requests_waiting}, {@code num_requests_running}
 * and {@code kv_cache_usage_perc}; every other field is ignored. A value that is not a finite number >= 0 (or, for the
 * KV-cache use, above 1) is skipped and counted; a header over {@link #MAX_HEADER_CHARS}, without a known format
 * prefix, or not of that shape is refused.
 * <p>
 * It allocates nothing per header (a bounded buffer is reused) and never throws for any content. This class is not
 * threadsafe: one parser per thread.
 */
public final class OrcaLoadReportParser
{
    /** Longest header read. */
    public static final int MAX_HEADER_CHARS = 8192;

    private static final String PREFIX = "named_metrics.";
    private static final String WAITING = "num_requests_waiting";
    private static final String RUNNING = "num_requests_running";
    private static final String KV = "kv_cache_usage_perc";
    /** Deepest nesting read in the JSON format (the root object is level 1). */
    private static final int MAX_JSON_DEPTH = 32;
    private static final byte[] NAMED_METRICS = ascii("named_metrics");
    private static final byte[] WAITING_BYTES = ascii(WAITING);
    private static final byte[] RUNNING_BYTES = ascii(RUNNING);
    private static final byte[] KV_BYTES = ascii(KV);

    private final byte[] buffer = new byte[MAX_HEADER_CHARS];
    private final NumberDecoder decoder = new NumberDecoder();
    private final JsonScanner json = new JsonScanner(MAX_JSON_DEPTH);
    private int length;
    private int position;
    private double waiting;
    private double running;
    private double kvUse;
    private int valuesRefused;

    /**
     * Parses a header value.
     *
     * @param header the value of {@code endpoint-load-metrics}, or {@code null}.
     * @return whether it held a usable waiting count and KV-cache use (then {@link #waiting()} and {@link #kvUse()}
     *     are set; {@link #running()} is NaN when absent).
     */
    public boolean parse(final CharSequence header)
    {
        waiting = Double.NaN;
        running = Double.NaN;
        kvUse = Double.NaN;
        valuesRefused = 0;
        if (header == null || header.length() > MAX_HEADER_CHARS)
        {
            return false;
        }
        length = header.length();
        for (int i = 0; i < length; i++)
        {
            final char c = header.charAt(i);
            buffer[i] = c < 128 ? (byte)c : (byte)'?';
        }
        position = 0;
        skipBlanks();
        if (startsWith("TEXT "))
        {
            position += 5;
            text();
        }
        else if (startsWith("JSON "))
        {
            position += 5;
            json();
        }
        return !Double.isNaN(waiting) && !Double.isNaN(kvUse);
    }

    /** @return waiting requests of the last header, NaN when absent or refused. */
    public double waiting()
    {
        return waiting;
    }

    /** @return running requests of the last header, NaN when absent or refused. */
    public double running()
    {
        return running;
    }

    /** @return KV-cache use of the last header, NaN when absent or refused. */
    public double kvUse()
    {
        return kvUse;
    }

    /** @return values of the read metrics in the last header that were skipped as out of range or not numbers. */
    public int valuesRefused()
    {
        return valuesRefused;
    }

    private void text()
    {
        while (position < length)
        {
            skipBlanks();
            final int keyStart = position;
            while (position < length && buffer[position] != '=' && buffer[position] != ',')
            {
                position++;
            }
            int keyEnd = position;
            while (keyEnd > keyStart && buffer[keyEnd - 1] == ' ')
            {
                keyEnd--;
            }
            if (position >= length || buffer[position] != '=')
            {
                position++;
                continue;
            }
            position++;
            skipBlanks();
            final int valueStart = position;
            while (position < length && buffer[position] != ',')
            {
                position++;
            }
            int valueEnd = position;
            while (valueEnd > valueStart && buffer[valueEnd - 1] == ' ')
            {
                valueEnd--;
            }
            position++;
            if (equals(keyStart, keyEnd, PREFIX, WAITING))
            {
                store(0, valueStart, valueEnd);
            }
            else if (equals(keyStart, keyEnd, PREFIX, RUNNING))
            {
                store(1, valueStart, valueEnd);
            }
            else if (equals(keyStart, keyEnd, PREFIX, KV))
            {
                store(2, valueStart, valueEnd);
            }
        }
    }

    /**
     * The top-level object, read by the strict {@link JsonScanner} (the SSE meter's too): only {@code named_metrics} is
     * entered, every other value skipped; the first byte that is not valid JSON ends the reading.
     */
    private void json()
    {
        json.reset(buffer, position, length);
        if (!json.enter('{') || json.emptyContainer('}'))
        {
            return;
        }
        while (true)
        {
            final int name = json.name(NAMED_METRICS, null, null);
            if (name < 0 || !json.colon())
            {
                return;
            }
            final boolean ok = name == 1 && json.at('{') ? namedMetrics() : json.skipValue();
            if (!ok || json.next('}') != 1)
            {
                return;
            }
        }
    }

    private boolean namedMetrics()
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
            final int name = json.name(WAITING_BYTES, RUNNING_BYTES, KV_BYTES);
            if (name < 0 || !json.colon())
            {
                return false;
            }
            final int valueStart = json.position();
            if (!json.skipValue())
            {
                return false;
            }
            if (name > 0)
            {
                store(name - 1, valueStart, json.position());
            }
            final int next = json.next('}');
            if (next != 1)
            {
                return next == 0;
            }
        }
    }

    private void store(final int which, final int from, final int to)
    {
        if (!decoder.decode(buffer, from, to))
        {
            valuesRefused++;
            return;
        }
        final double value = decoder.value();
        final double max = which == 2 ? 1.0 : Double.MAX_VALUE;
        if (!(value >= 0.0 && value <= max))
        {
            valuesRefused++;
            return;
        }
        if (which == 0)
        {
            waiting = value;
        }
        else if (which == 1)
        {
            running = value;
        }
        else
        {
            kvUse = value;
        }
    }

    private boolean equals(final int from, final int to, final String prefix, final String name)
    {
        if (to - from != prefix.length() + name.length())
        {
            return false;
        }
        for (int i = 0; i < prefix.length(); i++)
        {
            if (buffer[from + i] != prefix.charAt(i))
            {
                return false;
            }
        }
        for (int i = 0; i < name.length(); i++)
        {
            if (buffer[from + prefix.length() + i] != name.charAt(i))
            {
                return false;
            }
        }
        return true;
    }

    private static byte[] ascii(final String name)
    {
        return name.getBytes(StandardCharsets.US_ASCII);
    }

    private boolean startsWith(final String word)
    {
        if (length - position < word.length())
        {
            return false;
        }
        for (int i = 0; i < word.length(); i++)
        {
            if (buffer[position + i] != word.charAt(i))
            {
                return false;
            }
        }
        return true;
    }

    private void skipBlanks()
    {
        while (position < length && (buffer[position] == ' ' || buffer[position] == '\t'))
        {
            position++;
        }
    }
}
