package io.multifactor.bench.envoy;

import com.google.protobuf.ByteString;
import io.envoyproxy.envoy.config.core.v3.HeaderMap;
import io.envoyproxy.envoy.config.core.v3.HeaderValue;
import io.envoyproxy.envoy.service.ext_proc.v3.ExternalProcessorGrpc;
import io.envoyproxy.envoy.service.ext_proc.v3.HttpBody;
import io.envoyproxy.envoy.service.ext_proc.v3.HttpHeaders;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingRequest;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.Epoll;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollIoHandler;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.grpc.stub.StreamObserver;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Timed harness for issue 22's figure: what one request's full ext_proc exchange costs the service. The service runs
 * in a child JVM ({@link ExtProcBenchServer}, server flags); this JVM plays Envoy over a loopback socket, one stream per
 * request, each message waiting for its answer as Envoy does: {@code request_headers}, the buffered
 * {@code request_body}, {@code response_headers} and 16 streamed {@code response_body} SSE chunks (the last with
 * {@code end_of_stream}). After a warm-up, the child's process CPU time and allocation are read before and after the
 * measured exchanges; their differences divided by the exchanges are the figures.
 * <p>
 * Each transport (TCP loopback, a Unix domain socket) is run twice, each time in a fresh child JVM: first the floor,
 * a processor that answers every message with continue on the same server settings (what grpc-java, HTTP/2 and the
 * socket cost), then the service; the summary gives both and their difference, what the service's own logic costs.
 * The system properties {@value #SERVICES} and {@value #TRANSPORTS} pick the runs; {@value #SERVER_JVM_ARGS} adds JVM
 * flags to the service's JVM (a flight recording, a profiler agent; {@code RUN} in them becomes the run's name, such as
 * {@code tcp-engine}).
 * <pre>
 *   java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp mf-bench/target/benchmarks.jar \
 *     io.multifactor.bench.envoy.ExtProcExchangeHarness [WARMUP_EXCHANGES] [MEASURED_EXCHANGES]
 * </pre>
 * This class is not threadsafe: one run per process.
 */
public final class ExtProcExchangeHarness
{
    /** Response body chunks per exchange. */
    public static final int CHUNKS = 16;
    /**
     * System property with extra JVM flags for the service's JVM, separated by spaces (for example
     * {@code -Dmf.bench.serverJvmArgs=-XX:StartFlightRecording=filename=server.jfr} to profile it).
     */
    public static final String SERVER_JVM_ARGS = "mf.bench.serverJvmArgs";
    /**
     * System property: which services to run, comma-separated, each in its own JVM: {@code noop} (the transport
     * floor, {@link NoopExternalProcessor}) and {@code engine} (the service). Default both.
     */
    public static final String SERVICES = "mf.bench.extproc.service";
    /**
     * System property: which transports, comma-separated: {@code tcp} (loopback) and {@code unix} (a Unix domain
     * socket, Linux). Default both.
     */
    public static final String TRANSPORTS = "mf.bench.extproc.transport";
    private static final long TIMEOUT_S = 30;
    /** Envoy's default HTTP/2 initial stream window (256 MiB). */
    private static final int ENVOY_WINDOW_BYTES = 256 * 1024 * 1024;

    private static final String CONFIG = String.join("\n",
        "models:",
        "  - name: premium-model",
        "    quality_score: 0.9",
        "    pricing: {prompt_per_1m: 10.0, completion_per_1m: 30.0}",
        "    provider_model_id: acme/premium-v2",
        "  - name: economy-model",
        "    quality_score: 0.6",
        "    pricing: {prompt_per_1m: 0.5, completion_per_1m: 1.5}",
        "decisions:",
        "  - name: quality",
        "    modelRefs:",
        "      - model: premium-model",
        "      - model: economy-model",
        "    algorithm:",
        "      type: multi_factor",
        "      multi_factor:",
        "        weights: {quality: 0.4, latency: 0.2, cost: 0.2, load: 0.2}",
        "");

    private final List<ProcessingRequest> exchange = new ArrayList<>();

    private ExtProcExchangeHarness()
    {
        exchange.add(ProcessingRequest.newBuilder().setRequestHeaders(headers(false,
            ":method", "POST", ":path", "/v1/chat/completions", ":authority", "router.local",
            "content-type", "application/json", "user-agent", "bench/1", "x-request-id", "0f8fad5b-d9cb")).build());
        exchange.add(ProcessingRequest.newBuilder().setRequestBody(HttpBody.newBuilder().setEndOfStream(true)
            .setBody(ByteString.copyFromUtf8("{\"model\":\"quality\",\"stream\":true,\"max_tokens\":256," +
                "\"messages\":[{\"role\":\"system\",\"content\":\"You are terse.\"}," +
                "{\"role\":\"user\",\"content\":\"Summarize the ext_proc protocol in one sentence.\"}]}"))).build());
        exchange.add(ProcessingRequest.newBuilder().setResponseHeaders(headers(false,
            ":status", "200", "content-type", "text/event-stream", "cache-control", "no-cache")).build());
        for (int i = 0; i < CHUNKS; i++)
        {
            final String data = i == CHUNKS - 1 ? "data: [DONE]\n\n" :
                "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":" +
                "{\"content\":\"token" + i + " \"},\"finish_reason\":null}]}\n\n";
            exchange.add(ProcessingRequest.newBuilder().setResponseBody(HttpBody.newBuilder()
                .setBody(ByteString.copyFromUtf8(data)).setEndOfStream(i == CHUNKS - 1)).build());
        }
    }

    private static HttpHeaders headers(final boolean endOfStream, final String... namesAndValues)
    {
        final HeaderMap.Builder map = HeaderMap.newBuilder();
        for (int i = 0; i < namesAndValues.length; i += 2)
        {
            map.addHeaders(HeaderValue.newBuilder().setKey(namesAndValues[i])
                .setRawValue(ByteString.copyFromUtf8(namesAndValues[i + 1])));
        }
        return HttpHeaders.newBuilder().setHeaders(map).setEndOfStream(endOfStream).build();
    }

    /**
     * @param args warm-up exchanges (default 20000), measured exchanges (default 20000).
     * @throws Exception when a child JVM cannot start or an exchange fails.
     */
    public static void main(final String[] args) throws Exception
    {
        final int warmup = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        final int measured = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
        final List<String> services = List.of(System.getProperty(SERVICES, "noop,engine").split(","));
        final List<String> transports = new ArrayList<>(List.of(System.getProperty(TRANSPORTS, "tcp,unix").split(",")));
        for (final String service : services)
        {
            if (!service.equals("noop") && !service.equals("engine"))
            {
                throw new IllegalArgumentException(SERVICES + ": noop or engine, not '" + service + "'");
            }
        }
        for (final String transport : transports)
        {
            if (!transport.equals("tcp") && !transport.equals("unix"))
            {
                throw new IllegalArgumentException(TRANSPORTS + ": tcp or unix, not '" + transport + "'");
            }
        }
        if (transports.contains("unix") && !Epoll.isAvailable())
        {
            System.out.println("unix: skipped, grpc's epoll transport is not available here: " +
                Epoll.unavailabilityCause());
            transports.remove("unix");
        }
        final Path config = Files.createTempFile("mf-envoy-bench", ".yaml");
        Files.writeString(config, CONFIG, StandardCharsets.UTF_8);
        final ExtProcExchangeHarness harness = new ExtProcExchangeHarness();
        System.out.printf("ext_proc full exchange (headers, body, response headers, %d chunks; %d messages), " +
            "%d exchanges measured after %d warm-up, one stream at a time, each run in a fresh service JVM%n",
            CHUNKS, harness.exchange.size(), measured, warmup);
        final Map<String, double[]> results = new HashMap<>();
        try
        {
            for (final String transport : transports)
            {
                for (final String service : services)
                {
                    results.put(transport + ' ' + service, harness.run(config, service, transport, warmup, measured));
                }
            }
        }
        finally
        {
            Files.deleteIfExists(config);
        }
        System.out.println();
        System.out.println("summary, per exchange (budget: 100 us of server CPU). The event loop is the service's" +
            " transport threads (their CPU in user mode in brackets); the process adds GC and JIT, the noisier figure:");
        System.out.printf("  %-9s %-26s %12s %24s %12s%n", "transport", "run", "process CPU", "event loop CPU (user)",
            "allocated");
        for (final String transport : transports)
        {
            final double[] floor = results.get(transport + " noop");
            final double[] full = results.get(transport + " engine");
            row(transport, "floor (noop processor)", floor);
            row(transport, "full (the service)", full);
            if (floor != null && full != null)
            {
                final double[] logic = new double[floor.length];
                for (int i = 0; i < logic.length; i++)
                {
                    logic[i] = full[i] - floor[i];
                }
                row(transport, "the service's logic (diff)", logic);
            }
        }
    }

    /** Prints one line of the summary: {process CPU us, allocated bytes, event loop CPU us, its user-mode part}. */
    private static void row(final String transport, final String run, final double[] figures)
    {
        if (figures != null)
        {
            System.out.printf("  %-9s %-26s %9.1f us %12.1f us (%6.1f us) %10.0f B%n", transport, run, figures[0],
                figures[2], figures[3], figures[1]);
        }
    }

    /**
     * One service JVM: warm-up, then the measured exchanges; prints the run's figures.
     *
     * @return per exchange: {server process CPU us, allocated bytes, the event loop threads' CPU us, their user-mode
     *     part}.
     */
    private double[] run(final Path config, final String service, final String transport, final int warmup,
        final int measured) throws Exception
    {
        final Path socketDir = transport.equals("unix") ? Files.createTempDirectory("mf-extproc") : null;
        final String listen = socketDir == null ? "tcp" : "unix:" + socketDir.resolve("ext_proc.sock");
        final Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        final List<String> command = new ArrayList<>(List.of(java.toString(),
            "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "-XX:+UseG1GC"));
        final String extra = System.getProperty(SERVER_JVM_ARGS, "").trim();
        if (!extra.isEmpty())
        {
            // The run's name in a file name of the flags (a profile per run): RUN becomes tcp-noop, unix-engine, ...
            command.addAll(List.of(extra.replace("RUN", transport + '-' + service).split("\\s+")));
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), ExtProcBenchServer.class.getName(),
            config.toString(), service, listen));
        final Process server = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        final BufferedReader fromServer = new BufferedReader(
            new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
        final PrintWriter toServer = new PrintWriter(new OutputStreamWriter(server.getOutputStream(),
            StandardCharsets.UTF_8), true);
        ManagedChannel channel = null;
        EventLoopGroup clientLoop = null;
        try
        {
            String listening = fromServer.readLine();
            while (listening != null && !listening.startsWith("listening "))
            {
                // the JVM's own notes (a flight recording or a profiler starting) come before the service's line
                listening = fromServer.readLine();
            }
            if (listening == null)
            {
                throw new IllegalStateException("the server did not start");
            }
            if (listening.startsWith("listening unix "))
            {
                clientLoop = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
                channel = NettyChannelBuilder.forAddress(new DomainSocketAddress(listening.substring(15)))
                    .channelType(EpollDomainSocketChannel.class).eventLoopGroup(clientLoop)
                    .withOption(ChannelOption.SO_KEEPALIVE, null)
                    .flowControlWindow(ENVOY_WINDOW_BYTES).usePlaintext().build();
            }
            else
            {
                channel = NettyChannelBuilder.forAddress("127.0.0.1", Integer.parseInt(listening.substring(14)))
                    // A fixed window, as Envoy has (it sends no BDP pings, which grpc-java's client would add).
                    .flowControlWindow(ENVOY_WINDOW_BYTES).usePlaintext().build();
            }
            final ExternalProcessorGrpc.ExternalProcessorStub stub = ExternalProcessorGrpc.newStub(channel);
            for (int i = 0; i < warmup; i++)
            {
                runOne(stub);
            }
            final Map<String, long[]> threadsBefore = threadCpu(toServer, fromServer);
            final long[] before = stats(toServer, fromServer);
            final long startNs = System.nanoTime();
            for (int i = 0; i < measured; i++)
            {
                runOne(stub);
            }
            final long wallNs = System.nanoTime() - startNs;
            final long[] after = stats(toServer, fromServer);
            final Map<String, long[]> threadsAfter = threadCpu(toServer, fromServer);
            final double cpuUs = (after[0] - before[0]) / 1_000.0 / measured;
            final double allocBytes = (double)(after[1] - before[1]) / measured;
            System.out.printf("%n%s, %s:%n", transport.equals("tcp") ? "TCP loopback" : "Unix domain socket",
                service.equals("noop") ? "floor (a processor that answers continue, no engine)" :
                "the service (engine, vsr mode)");
            System.out.printf("  wall time per exchange (client and server): %.1f us%n", wallNs / 1_000.0 / measured);
            System.out.printf("  server process CPU per exchange:            %.1f us%n", cpuUs);
            System.out.printf("  server allocation per exchange:             %.0f bytes%n", allocBytes);
            System.out.println("  server CPU per exchange by Java thread, total and in user mode (the rest of the process's" +
                " CPU is the VM's own: GC, JIT):");
            final List<Map.Entry<String, long[]>> byThread = new ArrayList<>();
            for (final Map.Entry<String, long[]> entry : threadsAfter.entrySet())
            {
                final long[] start = threadsBefore.getOrDefault(entry.getKey(), new long[2]);
                final long[] delta = {entry.getValue()[0] - start[0], entry.getValue()[1] - start[1]};
                if (delta[0] > 0)
                {
                    byThread.add(Map.entry(entry.getKey(), delta));
                }
            }
            byThread.sort((a, b) -> Long.compare(b.getValue()[0], a.getValue()[0]));
            long eventLoopNs = 0;
            long eventLoopUserNs = 0;
            for (final Map.Entry<String, long[]> entry : byThread)
            {
                System.out.printf("    %-36s %8.1f us  (user %.1f us)%n", entry.getKey(),
                    entry.getValue()[0] / 1_000.0 / measured, entry.getValue()[1] / 1_000.0 / measured);
                // grpc's default worker event loops (TCP) and the service's own (Unix domain socket)
                if (entry.getKey().contains("-worker-"))
                {
                    eventLoopNs += entry.getValue()[0];
                    eventLoopUserNs += entry.getValue()[1];
                }
            }
            return new double[] {cpuUs, allocBytes, eventLoopNs / 1_000.0 / measured,
                eventLoopUserNs / 1_000.0 / measured};
        }
        finally
        {
            if (channel != null)
            {
                channel.shutdownNow();
                channel.awaitTermination(5, TimeUnit.SECONDS);
            }
            if (clientLoop != null)
            {
                clientLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
            }
            toServer.println("quit");
            if (!server.waitFor(10, TimeUnit.SECONDS))
            {
                server.destroyForcibly();
            }
            if (socketDir != null)
            {
                // The server removed its socket at shutdown; one it could not remove goes with the directory.
                Files.deleteIfExists(socketDir.resolve("ext_proc.sock"));
                Files.deleteIfExists(socketDir);
            }
        }
    }

    private static long[] stats(final PrintWriter toServer, final BufferedReader fromServer) throws IOException
    {
        toServer.println("stats");
        final String line = fromServer.readLine();
        if (line == null || !line.startsWith("stats "))
        {
            throw new IllegalStateException("no stats from the server: " + line);
        }
        final String[] parts = line.split(" ");
        return new long[] {Long.parseLong(parts[1]), Long.parseLong(parts[2])};
    }

    /**
     * @return CPU time so far of each live Java thread of the service, by name (same names summed): {total, user}
     *     nanoseconds.
     */
    private static Map<String, long[]> threadCpu(final PrintWriter toServer, final BufferedReader fromServer)
        throws IOException
    {
        toServer.println("threads");
        final Map<String, long[]> cpuNs = new HashMap<>();
        String line;
        while ((line = fromServer.readLine()) != null && !line.equals("end"))
        {
            final String[] parts = line.split(" ", 4);
            if (parts.length == 4 && parts[0].equals("thread"))
            {
                final long[] sums = cpuNs.computeIfAbsent(parts[3], name -> new long[2]);
                sums[0] += Long.parseLong(parts[1]);
                sums[1] += Long.parseLong(parts[2]);
            }
        }
        return cpuNs;
    }

    /** One stream: every message sent once its predecessor was answered, then the half-close Envoy sends. */
    private void runOne(final ExternalProcessorGrpc.ExternalProcessorStub stub) throws InterruptedException
    {
        final BlockingQueue<Object> answers = new ArrayBlockingQueue<>(exchange.size() + 1);
        final StreamObserver<ProcessingRequest> requests = stub.process(new StreamObserver<>()
        {
            @Override
            public void onNext(final ProcessingResponse value)
            {
                answers.add(value);
            }

            @Override
            public void onError(final Throwable t)
            {
                answers.add(t);
            }

            @Override
            public void onCompleted()
            {
                answers.add(Boolean.TRUE);
            }
        });
        for (final ProcessingRequest message : exchange)
        {
            requests.onNext(message);
            final Object answer = answers.poll(TIMEOUT_S, TimeUnit.SECONDS);
            if (!(answer instanceof ProcessingResponse))
            {
                throw new IllegalStateException("unexpected answer to " + message.getRequestCase() + ": " + answer);
            }
        }
        requests.onCompleted();
        final Object end = answers.poll(TIMEOUT_S, TimeUnit.SECONDS);
        if (end != Boolean.TRUE)
        {
            throw new IllegalStateException("the stream did not complete: " + end);
        }
    }
}
