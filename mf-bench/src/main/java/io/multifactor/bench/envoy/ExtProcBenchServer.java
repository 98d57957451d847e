package io.multifactor.bench.envoy;

import io.multifactor.envoy.EnvoyMode;
import io.multifactor.envoy.ExtProcContext;
import io.multifactor.envoy.ExtProcServer;
import io.multifactor.envoy.ExtProcService;
import io.multifactor.serving.EngineHost;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The service under measurement, in its own JVM: {@code ExtProcBenchServer CONFIG SERVICE LISTEN} serves ext_proc
 * ({@code SERVICE} {@code engine}: the service with its engine; {@code noop}: the {@link NoopExternalProcessor} floor,
 * on the same server settings) on {@code LISTEN} ({@code tcp}: a free loopback port; {@code unix:PATH}: a Unix domain
 * socket), prints {@code listening tcp PORT} or {@code listening unix PATH}, then answers each {@code stats} line on
 * stdin with {@code stats CPU_NS ALLOC_BYTES}: the process's CPU time and the bytes allocated by its live threads, so
 * far; each {@code threads} line with one
 * {@code thread CPU_NS USER_NS NAME} line per live Java thread (its CPU time, and the part of it
 * spent outside the kernel), then {@code end}. {@code quit} (or the end of stdin) stops it.
 * <p>
 * This class is not threadsafe: one instance per process, driven by its main thread.
 */
public final class ExtProcBenchServer
{
    private ExtProcBenchServer()
    {
    }

    /**
     * @param args the configuration file, {@code engine} or {@code noop}, {@code tcp} or {@code unix:PATH}.
     * @throws Exception when the service cannot start.
     */
    public static void main(final String[] args) throws Exception
    {
        final boolean noop = args[1].equals("noop");
        final SocketAddress address = args[2].startsWith("unix:") ?
            UnixDomainSocketAddress.of(args[2].substring(5)) : new InetSocketAddress("127.0.0.1", 0);
        // The engine runs in both cases (its refresh thread costs the same CPU); only the service uses it.
        try (EngineHost host = EngineHost.start(Path.of(args[0]), null);
            ExtProcServer server = noop ? ExtProcServer.startProcessor(new NoopExternalProcessor(), address, 1_000) :
                ExtProcServer.start(new ExtProcService(new ExtProcContext(host.engine(), EnvoyMode.VSR,
                    host.loaded())), address, 1_000))
        {
            System.out.println(server.address() instanceof UnixDomainSocketAddress unix ?
                "listening unix " + unix.getPath() : "listening tcp " + server.port());
            System.out.flush();
            final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null && !line.equals("quit"))
            {
                if (line.equals("stats"))
                {
                    System.out.println("stats " + processCpuNs() + ' ' + allocatedBytes());
                    System.out.flush();
                }
                else if (line.equals("threads"))
                {
                    printThreadCpu();
                }
            }
        }
    }

    /** @return this process's CPU time (every thread: the service's, the GC's, the JIT's), nanoseconds. */
    static long processCpuNs()
    {
        return ((com.sun.management.OperatingSystemMXBean)ManagementFactory.getOperatingSystemMXBean())
            .getProcessCpuTime();
    }

    /** Prints each live Java thread's CPU time so far, then {@code end}. */
    private static void printThreadCpu()
    {
        final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        for (final ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds()))
        {
            if (info != null)
            {
                final long cpuNs = threads.getThreadCpuTime(info.getThreadId());
                final long userNs = threads.getThreadUserTime(info.getThreadId());
                if (cpuNs >= 0 && userNs >= 0)
                {
                    System.out.println("thread " + cpuNs + ' ' + userNs + ' ' + info.getThreadName());
                }
            }
        }
        System.out.println("end");
        System.out.flush();
    }

    /** @return bytes allocated so far by the live threads of this process (Java heap, TLABs included). */
    static long allocatedBytes()
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final long[] ids = ((ThreadMXBean)threads).getAllThreadIds();
        long total = 0;
        for (final long allocated : threads.getThreadAllocatedBytes(ids))
        {
            total += Math.max(0, allocated);
        }
        return total;
    }
}
