package io.multifactor.gateway;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A small strict reader of the Prometheus text exposition format (version 0.0.4), for tests: every line is a
 * {@code # HELP}, a {@code # TYPE} or a sample; a sample's family must have been typed before it; names, label names,
 * escaped label values and numbers must be well formed. Anything else fails with the line.
 */
final class PrometheusText
{
    private static final String NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
    private static final Pattern HELP = Pattern.compile("# HELP (" + NAME + ") (.*)");
    private static final Pattern TYPE = Pattern.compile("# TYPE (" + NAME + ") (counter|gauge|histogram|summary|untyped)");
    private static final Pattern SAMPLE = Pattern.compile("(" + NAME + ")(\\{(.*)\\})? (\\S+)( -?[0-9]+)?");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\\\n]|\\\\[\\\\\"n])*)\"");
    private static final Set<String> SUFFIXES = Set.of("_total", "_count", "_sum", "_bucket", "_max", "_created");

    /** Sample key ({@code name{a="x",b="y"}} with labels sorted) to value. */
    final Map<String, Double> samples = new LinkedHashMap<>();
    final Map<String, String> types = new HashMap<>();
    /** Family to its HELP text. */
    final Map<String, String> helps = new HashMap<>();

    static PrometheusText parse(final String text)
    {
        final PrometheusText out = new PrometheusText();
        int lineNo = 0;
        for (final String line : text.split("\n", -1))
        {
            lineNo++;
            if (line.isEmpty())
            {
                continue;
            }
            Matcher m = TYPE.matcher(line);
            if (m.matches())
            {
                if (out.types.put(m.group(1), m.group(2)) != null)
                {
                    throw new AssertionError("line " + lineNo + ": second TYPE for " + m.group(1));
                }
                continue;
            }
            m = HELP.matcher(line);
            if (m.matches())
            {
                if (out.helps.put(m.group(1), m.group(2)) != null)
                {
                    throw new AssertionError("line " + lineNo + ": second HELP for " + m.group(1));
                }
                continue;
            }
            if (line.startsWith("#"))
            {
                throw new AssertionError("line " + lineNo + ": bad comment: " + line);
            }
            m = SAMPLE.matcher(line);
            if (!m.matches())
            {
                throw new AssertionError("line " + lineNo + ": not a sample: " + line);
            }
            final String name = m.group(1);
            if (!out.types.containsKey(family(name, out.types)))
            {
                throw new AssertionError("line " + lineNo + ": sample before its TYPE: " + line);
            }
            final Map<String, String> labels = new TreeMap<>();
            if (m.group(3) != null && !m.group(3).isEmpty())
            {
                final String body = m.group(3).endsWith(",") ? m.group(3).substring(0, m.group(3).length() - 1)
                    : m.group(3);
                final Matcher l = LABEL.matcher(body);
                int at = 0;
                while (at < body.length())
                {
                    if (!l.find(at) || l.start() != at)
                    {
                        throw new AssertionError("line " + lineNo + ": bad labels: " + line);
                    }
                    if (labels.put(l.group(1), l.group(2)) != null)
                    {
                        throw new AssertionError("line " + lineNo + ": duplicate label " + l.group(1));
                    }
                    at = l.end();
                    if (at < body.length())
                    {
                        if (body.charAt(at) != ',')
                        {
                            throw new AssertionError("line " + lineNo + ": bad labels: " + line);
                        }
                        at++;
                    }
                }
            }
            final double value;
            switch (m.group(4))
            {
                case "NaN":
                    value = Double.NaN;
                    break;
                case "+Inf":
                    value = Double.POSITIVE_INFINITY;
                    break;
                case "-Inf":
                    value = Double.NEGATIVE_INFINITY;
                    break;
                default:
                    try
                    {
                        value = Double.parseDouble(m.group(4));
                    }
                    catch (final NumberFormatException ex)
                    {
                        throw new AssertionError("line " + lineNo + ": bad value: " + line, ex);
                    }
            }
            final String key = key(name, labels);
            if (out.samples.put(key, value) != null)
            {
                throw new AssertionError("line " + lineNo + ": duplicate sample " + key);
            }
        }
        return out;
    }

    private static String family(final String name, final Map<String, String> types)
    {
        if (types.containsKey(name))
        {
            return name;
        }
        for (final String suffix : SUFFIXES)
        {
            if (name.endsWith(suffix) && types.containsKey(name.substring(0, name.length() - suffix.length())))
            {
                return name.substring(0, name.length() - suffix.length());
            }
        }
        return name;
    }

    static String key(final String name, final Map<String, String> labels)
    {
        final StringBuilder sb = new StringBuilder(name).append('{');
        for (final Map.Entry<String, String> e : new TreeMap<>(labels).entrySet())
        {
            sb.append(sb.charAt(sb.length() - 1) == '{' ? "" : ",").append(e.getKey()).append("=\"").append(e.getValue())
                .append('"');
        }
        return sb.append('}').toString();
    }

    /**
     * @param name a sample name.
     * @param labels alternating label names and values.
     * @return its value.
     */
    double value(final String name, final String... labels)
    {
        final Map<String, String> map = new TreeMap<>();
        for (int i = 0; i < labels.length; i += 2)
        {
            map.put(labels[i], labels[i + 1]);
        }
        final Double v = samples.get(key(name, map));
        if (v == null)
        {
            throw new AssertionError("no sample " + key(name, map) + " among " + samples.keySet());
        }
        return v;
    }
}
