package io.multifactor.fakes;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Method;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Measures what a routing integration adds to each call, as the CPU time of a routed call minus that of calling the
 * delegate directly (the frameworks' routing chat models against their own clients on the fake servers): blocks of
 * direct and routed calls interleaved in pairs after a warm-up long enough for the JIT to compile the routing code, the
 * order inside a pair alternating (so neither side always runs first), and the median and quartiles of the pairs' per-call differences,
 * for the calling thread's CPU (what the routing code runs there) and the whole process's (what it moves to other
 * threads too: a client's I/O threads, the fake server on its event loop, the garbage collector). Both sides call the
 * same delegate object, so they share its connection pool. Not a JMH benchmark and never a test: a figure from a busy
 * machine gives a direction only; {@link #verdict} says so.
 * <p>
 * This class is not threadsafe: one thread measures, and the calls it makes run on that thread.
 */
public final class CallOverhead
{
    /** The goal: at most this much CPU per call above calling the delegate directly, in microseconds. */
    public static final double GOAL_MICROS = 20.0;

    /**
     * The routing file both harnesses route with: decision {@code d} over models {@code m} (chosen, quality 0.9) and
     * {@code n}, each delegate called with its name.
     */
    public static final String ROUTER_YAML = String.join("\n",
        "models:",
        "  - {name: m, quality_score: 0.9}",
        "  - {name: n, quality_score: 0.5}",
        "decisions:",
        "  - name: d",
        "    modelRefs: [{model: m}, {model: n}]",
        "    algorithm: {type: multi_factor, multi_factor: {weights: {quality: 0.5, latency: 0.3, load: 0.2}}}",
        "");

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final OperatingSystemMXBean OS = ManagementFactory.getOperatingSystemMXBean();
    private static final Method PROCESS_CPU_TIME = processCpuTime();

    private final String what;
    private final double loadAtStart;
    private final double[] directThreadMicros;
    private final double[] routedThreadMicros;
    private final double[] directProcessMicros;
    private final double[] routedProcessMicros;
    private final int callsPerBlock;

    CallOverhead(final String what, final int callsPerBlock, final double loadAtStart, final double[] directThreadMicros,
        final double[] routedThreadMicros, final double[] directProcessMicros, final double[] routedProcessMicros)
    {
        this.what = what;
        this.loadAtStart = loadAtStart;
        this.directThreadMicros = directThreadMicros;
        this.routedThreadMicros = routedThreadMicros;
        this.directProcessMicros = directProcessMicros;
        this.routedProcessMicros = routedProcessMicros;
        this.callsPerBlock = callsPerBlock;
    }

    /** @return the fake server both harnesses call: one model {@code m} on loopback that answers at once. */
    public static FakeBackends startServer()
    {
        return FakeBackends.start(new BackendsProfile(1, List.of(FakeModelProfile.steady("m", 0.01, 0.01, 1024, 1))));
    }

    /**
     * A harness's arguments, all optional: calls per block (default 100), pairs of blocks (default 30), warm-up calls of
     * each side (default 15,000).
     *
     * @param args the command line.
     * @param index 0, 1 or 2.
     * @return the argument, or its default.
     */
    public static int argument(final String[] args, final int index)
    {
        final int[] defaults = {100, 30, 15_000};
        return args.length > index ? Integer.parseInt(args[index]) : defaults[index];
    }

    /**
     * Warms both sides up, then runs the pairs of blocks.
     *
     * @param what what is measured, for the report.
     * @param direct one direct call of the delegate.
     * @param routed one call of the routing model (over the same delegate).
     * @param callsPerBlock calls in each block, >= 1.
     * @param warmUpCalls calls of each side first, in alternating blocks, not measured (>= 0): enough for the JIT to
     *     compile the routing code fully (HotSpot's C2 takes about 10,000 invocations of a method; before it, the
     *     routing code runs in its profiling tier, several times slower than in a server that has run for a while).
     * @param pairs pairs measured, >= 1.
     * @return the figures.
     */
    public static CallOverhead measure(final String what, final Runnable direct, final Runnable routed,
        final int callsPerBlock, final int warmUpCalls, final int pairs)
    {
        if (callsPerBlock < 1 || warmUpCalls < 0 || pairs < 1)
        {
            throw new IllegalArgumentException("callsPerBlock >= 1, warmUpCalls >= 0, pairs >= 1: " + callsPerBlock +
                ", " + warmUpCalls + ", " + pairs);
        }
        final long[] cpu = new long[2];
        for (int done = 0; done < warmUpCalls; done += callsPerBlock)
        {
            block(direct, callsPerBlock, cpu);
            block(routed, callsPerBlock, cpu);
        }
        final CallOverhead figures = new CallOverhead(what, callsPerBlock, OS.getSystemLoadAverage(), new double[pairs],
            new double[pairs], new double[pairs], new double[pairs]);
        for (int pair = 0; pair < pairs; pair++)
        {
            final boolean directFirst = (pair & 1) == 0;
            block(directFirst ? direct : routed, callsPerBlock, cpu);
            final long firstThreadNs = cpu[0];
            final long firstProcessNs = cpu[1];
            block(directFirst ? routed : direct, callsPerBlock, cpu);
            figures.directThreadMicros[pair] = perCall(directFirst ? firstThreadNs : cpu[0], callsPerBlock);
            figures.routedThreadMicros[pair] = perCall(directFirst ? cpu[0] : firstThreadNs, callsPerBlock);
            figures.directProcessMicros[pair] = perCall(directFirst ? firstProcessNs : cpu[1], callsPerBlock);
            figures.routedProcessMicros[pair] = perCall(directFirst ? cpu[1] : firstProcessNs, callsPerBlock);
        }
        return figures;
    }

    private static void block(final Runnable call, final int calls, final long[] cpuNs)
    {
        final long thread = THREADS.getCurrentThreadCpuTime();
        final long process = processCpuNs();
        for (int i = 0; i < calls; i++)
        {
            call.run();
        }
        cpuNs[0] = THREADS.getCurrentThreadCpuTime() - thread;
        cpuNs[1] = processCpuNs() - process;
    }

    /**
     * @return the CPU time of every thread of the process (the JVM's own too: compiler, collector), in nanoseconds: on
     *     Linux the sum of each task's {@code /proc/self/task/N/schedstat} (nanoseconds; the JVM's process CPU time
     *     counts in clock ticks, 10 ms, too coarse for a block); elsewhere the JVM's figure.
     */
    static long processCpuNs()
    {
        final Path tasks = Path.of("/proc/self/task");
        if (Files.isDirectory(tasks))
        {
            long sum = 0;
            try (DirectoryStream<Path> each = Files.newDirectoryStream(tasks))
            {
                for (final Path task : each)
                {
                    try
                    {
                        final String schedstat = Files.readString(task.resolve("schedstat"));
                        sum += Long.parseLong(schedstat.substring(0, schedstat.indexOf(' ')));
                    }
                    catch (final IOException | RuntimeException ex)
                    {
                        // A thread that ended between the listing and the read: its time is lost to both sides alike.
                    }
                }
                return sum;
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
        }
        try
        {
            return PROCESS_CPU_TIME == null ? 0L : (Long)PROCESS_CPU_TIME.invoke(OS);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new IllegalStateException("the JVM's process CPU time cannot be read", ex);
        }
    }

    // The JDK's own extension (com.sun.management), looked up by name: this module's classes depend on java.* only.
    private static Method processCpuTime()
    {
        try
        {
            return Class.forName("com.sun.management.OperatingSystemMXBean").getMethod("getProcessCpuTime");
        }
        catch (final ReflectiveOperationException ex)
        {
            return null;
        }
    }

    private static double perCall(final long ns, final int calls)
    {
        return ns / 1e3 / calls;
    }

    /** @return the median of the pairs' calling-thread CPU differences, in microseconds per call. */
    public double threadOverheadMicros()
    {
        return quantile(differences(routedThreadMicros, directThreadMicros), 0.5);
    }

    /** @return the median of the pairs' whole-process CPU differences, in microseconds per call. */
    public double processOverheadMicros()
    {
        return quantile(differences(routedProcessMicros, directProcessMicros), 0.5);
    }

    /** @return one line: per call, the medians of both sides and of the differences with their quartiles. */
    public String report()
    {
        final double[] thread = differences(routedThreadMicros, directThreadMicros);
        final double[] process = differences(routedProcessMicros, directProcessMicros);
        return String.format(Locale.ROOT, "%s: %d pairs of %d-call blocks, per call (median [quartiles] of the pairs):" +
            " calling thread CPU direct %.1f us, routed %.1f us, overhead %.1f us [%.1f, %.1f];" +
            " process CPU direct %.1f us, routed %.1f us, overhead %.1f us [%.1f, %.1f]; load %.2f at start", what,
            thread.length, callsPerBlock, quantile(directThreadMicros, 0.5), quantile(routedThreadMicros, 0.5),
            quantile(thread, 0.5), quantile(thread, 0.25), quantile(thread, 0.75), quantile(directProcessMicros, 0.5),
            quantile(routedProcessMicros, 0.5), quantile(process, 0.5), quantile(process, 0.25),
            quantile(process, 0.75), loadAtStart);
    }

    /**
     * @return one line against {@link #GOAL_MICROS} on the calling thread's CPU: met when the upper quartile of the
     *     differences is within it, failed when the lower quartile is above it, else inconclusive; with the machine's
     *     load, since a figure from a busy machine gives a direction only.
     */
    public String verdict()
    {
        final double[] thread = differences(routedThreadMicros, directThreadMicros);
        final double low = quantile(thread, 0.25);
        final double high = quantile(thread, 0.75);
        final String verdict = high <= GOAL_MICROS ? "met" : low > GOAL_MICROS ? "failed" : "inconclusive";
        final int cores = OS.getAvailableProcessors();
        // Half a core's worth of other work per core already moves a figure by more than the goal.
        return String.format(Locale.ROOT, "verdict (%s): %s: calling-thread CPU overhead %.1f us [%.1f, %.1f] " +
            "against <= %.0f us (process CPU overhead %.1f us); %s", what, verdict, quantile(thread, 0.5), low, high,
            GOAL_MICROS, processOverheadMicros(), String.format(Locale.ROOT, loadAtStart < 0.5 * cores ?
            "load %.2f on %d cores" : "BUSY machine (load %.2f on %d cores): a direction only", loadAtStart, cores));
    }

    private static double[] differences(final double[] routed, final double[] direct)
    {
        final double[] differences = new double[routed.length];
        for (int i = 0; i < routed.length; i++)
        {
            differences[i] = routed[i] - direct[i];
        }
        return differences;
    }

    // The q-quantile by linear interpolation between the closest ranks.
    static double quantile(final double[] values, final double q)
    {
        final double[] sorted = values.clone();
        Arrays.sort(sorted);
        final double rank = q * (sorted.length - 1);
        final int below = (int)Math.floor(rank);
        final int above = Math.min(below + 1, sorted.length - 1);
        return sorted[below] + (rank - below) * (sorted[above] - sorted[below]);
    }
}
