package io.multifactor.bench.verdict;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The fork means of JMH runs, pooled per row over every JSON result file of a verdict run.
 * <p>
 * A row is a jar label ({@code new}, or {@code base} for a baseline jar), the benchmark's short name
 * ({@code SelectBenchmark.engine}) and its parameters ({@code candidates=4,ceilings=all}). Each JMH result holds, in
 * {@code primaryMetric.rawData}, one array of iteration scores per fork; a fork's mean is the mean of its iterations,
 * kept in nanoseconds per operation whatever the benchmark's output unit.
 * The allocation per operation is the largest fork mean of {@code gc.alloc.rate.norm}, when the run had {@code -prof gc}.
 * <p>
 * This class is not threadsafe: one thread fills it, then reads it.
 */
public final class ForkScores
{
    private final Map<String, List<Double>> forkMeansByRow = new TreeMap<>();
    private final Map<String, Double> maxBytesPerOpByRow = new TreeMap<>();
    private final Map<String, Boolean> busyByRow = new TreeMap<>();

    /**
     * The key of one row.
     *
     * @param label the jar's label.
     * @param benchmark the benchmark's short name, {@code Class.method}.
     * @param params the parameters as {@code name=value} joined by commas, in name order; empty without parameters.
     * @return the row's key.
     */
    public static String rowKey(final String label, final String benchmark, final String params)
    {
        return label + " " + benchmark + (params.isEmpty() ? "" : " " + params);
    }

    /**
     * Adds every result of one JMH JSON file.
     *
     * @param label the jar's label.
     * @param json the file JMH wrote with {@code -rf json}.
     * @param busy whether the step that wrote it started on a busy machine (load average at or over the limit).
     * @throws IOException when the file cannot be read or is not JMH's JSON.
     */
    public void addJmhJson(final String label, final Path json, final boolean busy) throws IOException
    {
        final Object root;
        try (InputStream in = Files.newInputStream(json); JsonParser parser = new JsonFactory().createParser(in))
        {
            parser.nextToken();
            root = read(parser);
        }
        if (!(root instanceof List))
        {
            throw new IOException(json + ": not a JMH JSON result (no top-level array)");
        }
        for (final Object element : (List<?>)root)
        {
            addResult(label, json, (Map<?, ?>)element, busy);
        }
    }

    private void addResult(final String label, final Path json, final Map<?, ?> result, final boolean busy)
        throws IOException
    {
        final String benchmark = shortName(String.valueOf(result.get("benchmark")));
        final Map<?, ?> params = result.get("params") instanceof Map ? (Map<?, ?>)result.get("params") : Map.of();
        final StringBuilder paramsText = new StringBuilder();
        for (final Map.Entry<?, ?> e : new TreeMap<>(params).entrySet())
        {
            paramsText.append(paramsText.length() == 0 ? "" : ",").append(e.getKey()).append('=').append(e.getValue());
        }
        final String key = rowKey(label, benchmark, paramsText.toString());
        final Map<?, ?> primary = (Map<?, ?>)result.get("primaryMetric");
        if (primary == null || !(primary.get("rawData") instanceof List))
        {
            throw new IOException(json + ": " + benchmark + " has no primaryMetric.rawData");
        }
        final double toNs = nanosPerUnit(String.valueOf(primary.get("scoreUnit")));
        if (Double.isNaN(toNs))
        {
            throw new IOException(json + ": " + benchmark + " reports in " + primary.get("scoreUnit") +
                ", not a time per operation");
        }
        final List<Double> means = forkMeansByRow.computeIfAbsent(key, k -> new ArrayList<>());
        for (final double forkMean : forkMeans((List<?>)primary.get("rawData")))
        {
            means.add(forkMean * toNs);
        }
        busyByRow.merge(key, busy, Boolean::logicalOr);
        final Map<?, ?> secondary = result.get("secondaryMetrics") instanceof Map ?
            (Map<?, ?>)result.get("secondaryMetrics") : Map.of();
        final Object alloc = secondary.get("gc.alloc.rate.norm");
        if (alloc instanceof Map && ((Map<?, ?>)alloc).get("rawData") instanceof List)
        {
            for (final double forkBytes : forkMeans((List<?>)((Map<?, ?>)alloc).get("rawData")))
            {
                maxBytesPerOpByRow.merge(key, forkBytes, Math::max);
            }
        }
    }

    private static List<Double> forkMeans(final List<?> rawData)
    {
        final List<Double> means = new ArrayList<>();
        for (final Object fork : rawData)
        {
            double sum = 0;
            int n = 0;
            for (final Object iteration : (List<?>)fork)
            {
                sum += number(iteration);
                n++;
            }
            if (n > 0)
            {
                means.add(sum / n);
            }
        }
        return means;
    }

    private static double nanosPerUnit(final String scoreUnit)
    {
        switch (scoreUnit)
        {
            case "ns/op":
                return 1;
            case "us/op":
                return 1e3;
            case "ms/op":
                return 1e6;
            case "s/op":
                return 1e9;
            default:
                return Double.NaN;
        }
    }

    private static String shortName(final String benchmark)
    {
        final int method = benchmark.lastIndexOf('.');
        final int type = method > 0 ? benchmark.lastIndexOf('.', method - 1) : -1;
        return benchmark.substring(type + 1);
    }

    /**
     * @param key a row's key ({@link #rowKey}).
     * @return the row's fork means, ns/op, in the order they were added (empty when the row was not run).
     */
    public double[] forkMeans(final String key)
    {
        final List<Double> means = forkMeansByRow.getOrDefault(key, List.of());
        final double[] out = new double[means.size()];
        for (int i = 0; i < out.length; i++)
        {
            out[i] = means.get(i);
        }
        return out;
    }

    /**
     * @param key a row's key.
     * @return the largest fork mean of bytes allocated per operation, or NaN when the run had no GC profiler.
     */
    public double maxBytesPerOp(final String key)
    {
        return maxBytesPerOpByRow.getOrDefault(key, Double.NaN);
    }

    /**
     * @param key a row's key.
     * @return whether any step that measured the row started on a busy machine.
     */
    public boolean busy(final String key)
    {
        return busyByRow.getOrDefault(key, false);
    }

    /**
     * @return every row's key, sorted.
     */
    public List<String> rows()
    {
        return new ArrayList<>(forkMeansByRow.keySet());
    }

    private static Object read(final JsonParser parser) throws IOException
    {
        final JsonToken token = parser.currentToken();
        if (token == JsonToken.START_ARRAY)
        {
            final List<Object> list = new ArrayList<>();
            while (parser.nextToken() != JsonToken.END_ARRAY)
            {
                list.add(read(parser));
            }
            return list;
        }
        if (token == JsonToken.START_OBJECT)
        {
            final Map<String, Object> map = new LinkedHashMap<>();
            while (parser.nextToken() == JsonToken.FIELD_NAME)
            {
                final String name = parser.currentName();
                parser.nextToken();
                map.put(name, read(parser));
            }
            return map;
        }
        if (token == JsonToken.VALUE_NUMBER_INT || token == JsonToken.VALUE_NUMBER_FLOAT)
        {
            return parser.getDoubleValue();
        }
        if (token == JsonToken.VALUE_NULL)
        {
            return null;
        }
        if (token == JsonToken.VALUE_TRUE || token == JsonToken.VALUE_FALSE)
        {
            return token == JsonToken.VALUE_TRUE;
        }
        return parser.getText();
    }

    private static double number(final Object value)
    {
        // JMH writes NaN and the infinities as strings.
        return value instanceof Number ? ((Number)value).doubleValue() : Double.parseDouble(String.valueOf(value));
    }
}
