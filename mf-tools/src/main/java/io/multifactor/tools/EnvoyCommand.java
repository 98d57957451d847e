package io.multifactor.tools;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.multifactor.api.ConfigProblem;
import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.config.ConfigLoader;
import io.multifactor.config.LoadedConfig;
import io.multifactor.config.read.Durations;
import io.multifactor.config.reload.ReloadResult;
import io.multifactor.envoy.EnvoyMode;
import io.multifactor.envoy.ExtProcApp;
import io.multifactor.envoy.MetricsEndpoint;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.serving.EngineHost;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * {@code mf envoy --config CONFIG [--port 50051 | --unix PATH] [--mode vsr|endpoint]}: serves the Envoy external-processing (ext_proc
 * v3) gRPC service until the process is stopped. SIGTERM or SIGINT drain it as {@code serve} drains: health says
 * {@code NOT_SERVING} at once, new streams are accepted for the drain delay, then refused while open streams get the
 * grace period, after which every lease still open is ended; exit 0. One line on stdout when it serves; reloads and
 * problems on stderr.
 * <p>
 * This class is not threadsafe: one invocation per instance.
 */
@Command(name = "envoy", mixinStandardHelpOptions = true,
    description = "Serve the Envoy ext_proc (v3) service that selects a model for each request Envoy forwards.")
final class EnvoyCommand implements java.util.concurrent.Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Option(names = "--config", required = true, paramLabel = "CONFIG", description = "The YAML configuration file.")
    private Path config;

    @Option(names = "--overlay", paramLabel = "OVERLAY",
        description = "An overlay completing a vLLM Semantic Router CONFIG (signals, fleet, per-model server, " +
            "reliability, backend_refs); applied on every reload and watched like CONFIG.")
    private Path overlay;

    @Option(names = "--port", paramLabel = "PORT", defaultValue = "50051",
        description = "gRPC port (default: ${DEFAULT-VALUE}; 0 picks a free one).")
    private int port;

    @Option(names = "--host", paramLabel = "ADDRESS", defaultValue = "127.0.0.1",
        description = "Address to listen on (default: ${DEFAULT-VALUE}, loopback only, as serve; 0.0.0.0 for every " +
            "interface).")
    private String host;

    @Option(names = "--unix", paramLabel = "PATH",
        description = "Serve gRPC on this Unix domain socket instead of a TCP port (Linux; an Envoy cluster with a " +
            "pipe address reaches it). A stale socket file is replaced; the file is removed at shutdown.")
    private Path unixSocket;

    @Option(names = "--mode", paramLabel = "MODE", defaultValue = "vsr",
        description = "vsr: header x-selected-model and the body's model rewritten; endpoint: header and envoy.lb " +
            "metadata x-gateway-destination-endpoint (default: ${DEFAULT-VALUE}).")
    private String mode;

    @Option(names = "--metrics-port", paramLabel = "PORT", defaultValue = "-1",
        description = "Serve Prometheus metrics on http://ADDRESS:PORT/metrics (default: off; 0 picks a free port).")
    private int metricsPort;

    @Option(names = "--grace-ms", paramLabel = "MS", defaultValue = "5000",
        description = "On shutdown, how long open streams may finish before they are cancelled (default: " +
            "${DEFAULT-VALUE}).")
    private long graceMs;

    @Option(names = "--drain-delay", paramLabel = "DURATION", defaultValue = "5s",
        description = "On SIGTERM, how long new streams are still accepted after health says NOT_SERVING (default 5s).")
    private String drainDelay;

    @Override
    public Integer call() throws InterruptedException
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        final EnvoyMode envoyMode;
        try
        {
            envoyMode = EnvoyMode.parse(mode);
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("mf envoy: --mode: " + ex.getMessage());
            return ExitCodes.INVALID_INPUT;
        }
        final String invalid = port < 0 || port > 65535 ? "--port " + port + " (0..65535)" :
            metricsPort < -1 || metricsPort > 65535 ? "--metrics-port " + metricsPort + " (0..65535)" :
            graceMs < 0 ? "--grace-ms " + graceMs + " (a number >= 0)" :
            Durations.parseNs(drainDelay) < 0 ? "--drain-delay " + drainDelay + " (a duration such as 0s, 500ms, 5s)" :
            null;
        if (invalid != null)
        {
            err.println("mf envoy: invalid option " + invalid);
            return ExitCodes.INVALID_INPUT;
        }
        if (unixSocket != null && spec.commandLine().getParseResult().hasMatchedOption("--port"))
        {
            err.println("mf envoy: --unix and --port exclude each other: gRPC is served on one of them");
            return ExitCodes.INVALID_INPUT;
        }
        final SocketAddress address = unixSocket == null ? new InetSocketAddress(host, port) :
            UnixDomainSocketAddress.of(unixSocket);
        final String where = unixSocket == null ? host + ':' + port : "unix:" + unixSocket;
        final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        final ExtProcApp app;
        final FleetJoin fleet;
        try
        {
            final LoadedConfig loaded =
                ConfigLoader.load(config, overlay, null, MultiFactorEngine.DEFAULT_COUNTER_CAPACITY);
            fleet = FleetJoin.ofOrNull(loaded.config().fleet());
            app = ExtProcApp.start(EngineHost.start(loaded, config, overlay, FleetJoin.exchangeOrNull(fleet)),
                envoyMode, address, graceMs, registry, result -> reported(err, result));
        }
        catch (final InvalidConfigurationException ex)
        {
            return Problems.report(err, config.toString(), ex);
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("mf envoy: fleet: " + ex.getMessage());
            return ExitCodes.INVALID_INPUT;
        }
        catch (final IOException ex)
        {
            err.println("mf envoy: cannot serve on " + where + ": " + ex.getMessage());
            return ExitCodes.INVALID_INPUT;
        }
        MetricsEndpoint metrics = null;
        try
        {
            if (metricsPort >= 0)
            {
                metrics = MetricsEndpoint.start(registry, new InetSocketAddress(host, metricsPort));
            }
        }
        catch (final IOException ex)
        {
            app.close();
            err.println("mf envoy: cannot serve metrics on " + host + ':' + metricsPort + ": " + ex.getMessage());
            return ExitCodes.INVALID_INPUT;
        }
        if (envoyMode == EnvoyMode.ENDPOINT)
        {
            for (final String problem : app.context().routingProblems())
            {
                err.println("mf envoy: warning: " + problem);
            }
        }
        final CountDownLatch stopped = new CountDownLatch(1);
        final MetricsEndpoint metricsEndpoint = metrics;
        final long drainDelayMs = Durations.parseNs(drainDelay) / 1_000_000L;
        final Thread hook = new Thread(() ->
        {
            // SIGTERM: drain as serve does, then exit 0 (the JVM would exit 143, which process managers read as a crash).
            app.drain(drainDelayMs);
            if (metricsEndpoint != null)
            {
                metricsEndpoint.close();
            }
            stopped.countDown();
            System.out.flush();
            System.err.flush();
            Runtime.getRuntime().halt(ExitCodes.OK);
        }, "mf-envoy-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        out.println("mf envoy: serving ext_proc (mode " + envoyMode.word() + ") on " +
            (unixSocket == null ? host + ':' + app.port() : "unix:" + unixSocket) +
            (metricsEndpoint == null ? "" : ", metrics on http://" + host + ':' + metricsEndpoint.port() + "/metrics") +
            FleetJoin.joined(fleet));
        out.flush();
        stopped.await();
        return ExitCodes.OK;
    }

    private static void reported(final PrintWriter err, final ReloadResult result)
    {
        if (result.applied())
        {
            err.println("mf envoy: reloaded " + result.file());
        }
        else
        {
            err.println("mf envoy: reload of " + result.file() + " refused, running plans kept:");
        }
        for (final ConfigProblem problem : result.problems())
        {
            err.println("  " + problem);
        }
        for (final ConfigProblem warning : result.warnings())
        {
            err.println("  warning: " + warning);
        }
        err.flush();
    }
}
