package io.multifactor.redis;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The 100-replica measurement of docs/fleet.md, by hand (not part of the build: it takes a minute and two cores):
 * one real {@code redis-server}, {@code JVMS} child JVMs of {@link FleetLoadMain} with {@code REPLICAS / JVMS}
 * replicas each, {@code MODELS} models, the default 250 ms period; after the replicas are connected and a warm-up, it
 * reads Redis's {@code INFO} (network bytes, CPU) at the start and the end of a {@code SECONDS} window and prints the
 * traffic per replica per second, Redis's CPU and the agents' CPU per replica and period.
 * <p>
 * Usage: {@code FleetLoadRun REPLICAS JVMS MODELS SECONDS}, on the test class path of {@code mf-redis} with the
 * {@code --add-exports} flag Agrona needs; docs/fleet.md, "Measured against a real Redis", has the commands.
 * <p>
 * This class runs on its main thread.
 */
public final class FleetLoadRun
{
    private static final long PERIOD_MS = 250;
    private static final long WARM_UP_S = 10;

    private FleetLoadRun()
    {
    }

    /**
     * @param args replicas, JVMs, models, seconds.
     * @throws Exception when a child or Redis fails.
     */
    public static void main(final String[] args) throws Exception
    {
        final int replicas = Integer.parseInt(args[0]);
        final int jvms = Integer.parseInt(args[1]);
        final int models = Integer.parseInt(args[2]);
        final long seconds = Long.parseLong(args[3]);
        try (RedisServer server = new RedisServer(null).start())
        {
            final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            final List<Process> children = new ArrayList<>();
            final List<BufferedReader> outputs = new ArrayList<>();
            int first = 0;
            for (int j = 0; j < jvms; j++)
            {
                final int count = replicas / jvms + (j < replicas % jvms ? 1 : 0);
                final Process child = new ProcessBuilder(java, "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
                    // A replica of 64 models holds its engine and its remote fleet signals: about 80 MB of heap.
                    "-Xmx" + (128 + 80 * count) + "m", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
                    FleetLoadMain.class.getName(), server.urlWithoutPassword(), "load", Integer.toString(count),
                    Integer.toString(first), Integer.toString(models), Long.toString(seconds + 2 * WARM_UP_S),
                    Long.toString(PERIOD_MS))
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
                first += count;
                children.add(child);
                outputs.add(new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8)));
            }
            for (final BufferedReader output : outputs)
            {
                final String ready = output.readLine();
                if (!"ready".equals(ready))
                {
                    throw new IllegalStateException("a child did not start: " + ready);
                }
            }
            Thread.sleep(TimeUnit.SECONDS.toMillis(WARM_UP_S));
            final Map<String, String> before = info(server.port());
            final long startNs = System.nanoTime();
            Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
            final Map<String, String> after = info(server.port());
            final double windowS = (System.nanoTime() - startNs) / 1e9;

            long periods = 0;
            long agentCpuNs = 0;
            long exchanged = 0;
            long failed = 0;
            for (int j = 0; j < jvms; j++)
            {
                for (String line = outputs.get(j).readLine(); line != null; line = outputs.get(j).readLine())
                {
                    if (line.startsWith("cpu "))
                    {
                        final String[] f = line.split(" ");
                        periods += Long.parseLong(f[1]) * Long.parseLong(f[2]);
                        agentCpuNs += Long.parseLong(f[3]);
                        exchanged += Long.parseLong(f[4]);
                        failed += Long.parseLong(f[5]);
                    }
                }
                children.get(j).waitFor(60, TimeUnit.SECONDS);
            }
            final double in = delta(before, after, "total_net_input_bytes") / windowS / replicas;
            final double out = delta(before, after, "total_net_output_bytes") / windowS / replicas;
            final double redisCpuS = delta(before, after, "used_cpu_sys") + delta(before, after, "used_cpu_user");
            System.out.printf(Locale.ROOT, "%d replicas x %d models, period %d ms, %d JVMs, window %.1f s%n",
                replicas, models, PERIOD_MS, jvms, windowS);
            System.out.printf(Locale.ROOT, "per replica: %.1f KB/s to Redis, %.1f KB/s from Redis (%.1f KB/s in all)%n",
                in / 1024, out / 1024, (in + out) / 1024);
            System.out.printf(Locale.ROOT, "Redis: %.1f MB/s in all, CPU %.1f%% of one core (%.2f s in %.1f s)%n",
                (in + out) * replicas / 1024 / 1024, 100 * redisCpuS / windowS, redisCpuS, windowS);
            System.out.printf(Locale.ROOT, "exchange agents: %.0f us of CPU per replica and period (%d replica-periods)," +
                " %d exchanges done, %d failed%n", agentCpuNs / 1e3 / Math.max(1, periods), periods, exchanged, failed);
            System.out.printf(Locale.ROOT, "Redis commands: %d in the window%n",
                (long)delta(before, after, "total_commands_processed"));
        }
    }

    private static double delta(final Map<String, String> before, final Map<String, String> after, final String key)
    {
        return Double.parseDouble(after.get(key)) - Double.parseDouble(before.get(key));
    }

    /** {@code INFO} over a plain socket (no client library needed): every {@code key:value} line. */
    private static Map<String, String> info(final int port) throws IOException
    {
        try (Socket socket = new Socket("127.0.0.1", port))
        {
            socket.getOutputStream().write("INFO\r\n".getBytes(StandardCharsets.US_ASCII));
            final InputStream in = socket.getInputStream();
            final StringBuilder header = new StringBuilder();
            for (int c = in.read(); c != '\n'; c = in.read())
            {
                header.append((char)c);
            }
            final int length = Integer.parseInt(header.toString().strip().substring(1));
            final byte[] body = in.readNBytes(length);
            final Map<String, String> values = new HashMap<>();
            for (final String line : new String(body, StandardCharsets.US_ASCII).split("\r\n"))
            {
                final int colon = line.indexOf(':');
                if (colon > 0 && !line.startsWith("#"))
                {
                    values.put(line.substring(0, colon), line.substring(colon + 1));
                }
            }
            return values;
        }
    }
}
