package io.multifactor.bench;

import java.util.Map;

/**
 * One benchmark result as the report needs it, independent of JMH's result classes.
 * <p>
 * Instances are immutable and threadsafe when built with an unmodifiable map.
 *
 * @param benchmark simple name, {@code Class.method} (such as {@code SelectBenchmark.engine}).
 * @param params JMH parameters in declaration order.
 * @param nsPerOp mean time per operation in nanoseconds.
 * @param errorNs half-width of the 99.9% confidence interval in nanoseconds, NaN when JMH could not compute it.
 * @param bytesPerOp allocation per operation ({@code gc.alloc.rate.norm}), NaN when not measured.
 */
public record ReportRow(String benchmark, Map<String, String> params, double nsPerOp, double errorNs, double bytesPerOp)
{
    /** @return the class part of {@link #benchmark()}. */
    public String benchmarkClass()
    {
        final int dot = benchmark.indexOf('.');
        return dot < 0 ? benchmark : benchmark.substring(0, dot);
    }

    /** @return the method part of {@link #benchmark()}. */
    public String method()
    {
        final int dot = benchmark.indexOf('.');
        return dot < 0 ? benchmark : benchmark.substring(dot + 1);
    }

    /** @return the parameters as {@code k=v k=v}, or {@code -} when there are none. */
    public String paramsLabel()
    {
        if (params.isEmpty())
        {
            return "-";
        }
        final StringBuilder out = new StringBuilder();
        for (final Map.Entry<String, String> e : params.entrySet())
        {
            if (out.length() > 0)
            {
                out.append(' ');
            }
            out.append(e.getKey()).append('=').append(e.getValue());
        }
        return out.toString();
    }
}
