package io.multifactor.bench;

import io.multifactor.kernel.signal.ServerKind;
import io.multifactor.servers.ServerMetricsReader;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Reading one vLLM {@code /metrics} body of {@code sizeKib} KiB (as a vLLM v1 server with two engines writes it:
 * {@code # HELP} / {@code # TYPE} lines, histograms with {@code le} labels, the three gauges the agent reads among
 * them) with the scrape agent's reader, which reuses its buffers: the goal is at most 200 us for 64 KiB and no
 * allocation ({@code -prof gc}: {@code gc.alloc.rate.norm} 0 B/op). The baseline splits the same body into lines and
 * decodes the wanted values with {@link Double#parseDouble}, as a straightforward parser would.
 * <p>
 * This class is a JMH {@code Scope.Thread} state: each benchmark thread has its own body and reader.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = BenchFlags.AGRONA_ADD_EXPORTS)
public class MetricsParseBenchmark
{
    /** Body size in KiB. */
    @Param({"64"})
    public int sizeKib;

    byte[] body;
    ServerMetricsReader reader;

    /** Builds the body and the reader. */
    @Setup(Level.Trial)
    public void setup()
    {
        body = vllmBody(sizeKib << 10);
        reader = new ServerMetricsReader(ServerKind.VLLM);
        if (!reader.read(body, 0, body.length) || reader.waiting() != 5.0 || reader.kvUse() != 0.5)
        {
            throw new IllegalStateException("the benchmark body does not read as expected");
        }
    }

    /** @return the KV-cache use read from the body. */
    @Benchmark
    public double reader()
    {
        reader.read(body, 0, body.length);
        return reader.kvUse() + reader.waiting();
    }

    /** @return the same values from a line split and {@link Double#parseDouble}. */
    @Benchmark
    public double splitAndParseDouble()
    {
        double waiting = 0;
        double kv = 0;
        int kvSeries = 0;
        for (final String line : new String(body, StandardCharsets.UTF_8).split("\n"))
        {
            if (line.startsWith("#"))
            {
                continue;
            }
            final int space = line.lastIndexOf(' ');
            final int brace = line.indexOf('{');
            final String name = line.substring(0, brace >= 0 ? brace : Math.max(space, 0));
            if ("vllm:num_requests_waiting".equals(name))
            {
                waiting += Double.parseDouble(line.substring(space + 1));
            }
            else if ("vllm:kv_cache_usage_perc".equals(name))
            {
                kv += Double.parseDouble(line.substring(space + 1));
                kvSeries++;
            }
        }
        return kv / kvSeries + waiting;
    }

    /**
     * @param size bytes wanted.
     * @return a vLLM-style body of about that size: the read gauges, then histogram series until it is full.
     */
    static byte[] vllmBody(final int size)
    {
        final StringBuilder text = new StringBuilder(size + 256);
        final String model = "model_name=\"meta-llama/Llama-3.1-8B-Instruct\"";
        text.append("# HELP vllm:num_requests_running Number of requests in model execution batches.\n")
            .append("# TYPE vllm:num_requests_running gauge\n");
        for (int engine = 0; engine < 2; engine++)
        {
            text.append("vllm:num_requests_running{engine=\"").append(engine).append("\",").append(model).append("} 3.0\n");
        }
        text.append("# HELP vllm:num_requests_waiting Number of requests waiting to be processed.\n")
            .append("# TYPE vllm:num_requests_waiting gauge\n")
            .append("vllm:num_requests_waiting{engine=\"0\",").append(model).append("} 4.0\n")
            .append("vllm:num_requests_waiting{engine=\"1\",").append(model).append("} 1.0\n")
            .append("# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.\n")
            .append("# TYPE vllm:kv_cache_usage_perc gauge\n")
            .append("vllm:kv_cache_usage_perc{engine=\"0\",").append(model).append("} 0.25\n")
            .append("vllm:kv_cache_usage_perc{engine=\"1\",").append(model).append("} 0.75\n");
        final String[] les = {"0.001", "0.005", "0.01", "0.02", "0.04", "0.06", "0.08", "0.1", "0.25", "0.5", "0.75",
            "1.0", "2.5", "5.0", "7.5", "10.0", "20.0", "40.0", "80.0", "+Inf"};
        int histogram = 0;
        while (text.length() < size - 200)
        {
            final String name = "vllm:request_latency_" + histogram++ + "_seconds";
            text.append("# HELP ").append(name).append(" Histogram of a request latency in seconds.\n")
                .append("# TYPE ").append(name).append(" histogram\n");
            for (int i = 0; i < les.length && text.length() < size - 200; i++)
            {
                text.append(name).append("_bucket{engine=\"0\",le=\"").append(les[i]).append("\",").append(model)
                    .append("} ").append(i * 17 + histogram).append(".0\n");
            }
            text.append(name).append("_sum{engine=\"0\",").append(model).append("} 1.2288e+04\n");
        }
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }
}
