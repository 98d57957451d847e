package io.multifactor.tools;

import io.multifactor.api.ConfigProblem;
import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.config.ConfigLoader;
import io.multifactor.config.LoadedConfig;
import io.multifactor.config.read.Durations;
import io.multifactor.config.reload.ReloadResult;
import io.multifactor.gateway.Gateway;
import io.multifactor.gateway.GatewayOptions;
import io.multifactor.kernel.engine.MultiFactorEngine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * {@code mf serve --config CONFIG [--port 8080]}: runs the OpenAI-compatible gateway until the process is stopped
 * (SIGTERM or Ctrl-C) or the command's thread is interrupted. A refused configuration prints every problem and exits
 * 2; a later bad edit of the file is refused, reported on stderr, and the running configuration stays.
 * <p>
 * This class is not threadsafe: one invocation per instance.
 */
@Command(name = "serve", mixinStandardHelpOptions = true,
    description = "Serve OpenAI-compatible chat and text completions, choosing a model per request and proxying to its "
        + "backend_refs (streaming passed through); GET /metrics, /healthz, /readyz; the config file hot-reloads.")
final class ServeCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Option(names = "--config", required = true, paramLabel = "CONFIG", description = "The YAML configuration file.")
    private Path config;

    @Option(names = "--overlay", paramLabel = "OVERLAY",
        description = "An overlay completing a vLLM Semantic Router CONFIG (signals, fleet, per-model server, " +
            "reliability, backend_refs); applied on every reload and watched like CONFIG.")
    private Path overlay;

    @Option(names = "--port", paramLabel = "PORT", defaultValue = "8080", description = "Port to listen on (default 8080).")
    private int port;

    @Option(names = "--host", paramLabel = "ADDRESS", defaultValue = "127.0.0.1",
        description = "Address to listen on (default 127.0.0.1; 0.0.0.0 for every interface).")
    private String host;

    @Option(names = "--first-byte-timeout", paramLabel = "DURATION", defaultValue = "60s",
        description = "How long a streamed request may wait for a backend's answer, from its arrival and across its " +
            "attempts (default 60s).")
    private String firstByteTimeout;

    @Option(names = "--idle-timeout", paramLabel = "DURATION", defaultValue = "300s",
        description = "How long a streamed response may stay silent between chunks (default 300s).")
    private String idleTimeout;

    @Option(names = "--event-loops", paramLabel = "N", defaultValue = "2",
        description = "Event loops serving requests (default 2).")
    private int eventLoops;

    @Option(names = "--request-timeout", paramLabel = "DURATION", defaultValue = "600s",
        description = "How long a non-streamed request may take for its whole answer, from its arrival and across " +
            "its attempts (default 600s).")
    private String requestTimeout;

    @Option(names = "--max-attempts", paramLabel = "N", defaultValue = "2",
        description = "Attempts a request makes at most: a connect failure, a 5xx or a 429 before the first byte " +
            "moves it to the next candidate (default 2; 1 turns fallback off).")
    private int maxAttempts;

    @Override
    public Integer call()
    {
        final PrintWriter err = spec.commandLine().getErr();
        final long firstByteNs = Durations.parseNs(firstByteTimeout);
        final long idleNs = Durations.parseNs(idleTimeout);
        if (firstByteNs <= 0 || idleNs <= 0 || port < 0 || port > 65535 || eventLoops < 1)
        {
            err.println("mf serve: invalid option: --port " + port + " (0..65535), --first-byte-timeout " +
                firstByteTimeout + ", --idle-timeout " + idleTimeout + " (durations such as 500ms, 60s, 5m), " +
                "--event-loops " + eventLoops + " (>= 1)");
            return ExitCodes.INVALID_INPUT;
        }
        final long requestTimeoutNs = Durations.parseNs(requestTimeout);
        if (requestTimeoutNs <= 0)
        {
            err.println("mf serve: invalid option: --request-timeout " + requestTimeout +
                " (a duration such as 500ms, 60s, 5m)");
            return ExitCodes.INVALID_INPUT;
        }
        if (maxAttempts < 1)
        {
            err.println("mf serve: invalid option: --max-attempts " + maxAttempts + " (>= 1)");
            return ExitCodes.INVALID_INPUT;
        }
        final GatewayOptions defaults = GatewayOptions.defaults();
        final GatewayOptions options = new GatewayOptions(host, port, Math.max(1, firstByteNs / 1_000_000L),
            Math.max(1, idleNs / 1_000_000L), eventLoops, defaults.maxConnectionsPerBackend(), defaults.reloadDebounceMs(),
            Math.max(1, requestTimeoutNs / 1_000_000L), maxAttempts);
        final Gateway gateway;
        final FleetJoin fleet;
        try
        {
            final LoadedConfig loaded =
                ConfigLoader.load(config, overlay, null, MultiFactorEngine.DEFAULT_COUNTER_CAPACITY);
            fleet = FleetJoin.ofOrNull(loaded.config().fleet());
            gateway = Gateway.start(loaded, config, overlay, FleetJoin.exchangeOrNull(fleet), options,
                result -> report(err, result));
        }
        catch (final InvalidConfigurationException ex)
        {
            return Problems.report(err, config.toString(), ex);
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("mf serve: fleet: " + ex.getMessage());
            return ExitCodes.INVALID_INPUT;
        }
        catch (final IOException ex)
        {
            err.println("mf serve: " + ex.getMessage());
            return ExitCodes.INTERNAL_ERROR;
        }
        final CountDownLatch stopped = new CountDownLatch(1);
        final Thread hook = new Thread(() ->
        {
            gateway.close();
            stopped.countDown();
        }, "mf-serve-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        final PrintWriter out = spec.commandLine().getOut();
        out.println("mf serve: listening on http://" + host + ':' + gateway.port() + " (" +
            gateway.engine().plans().decisionCount() + " decisions, " + gateway.engine().plans().modelCount() +
            " models); " + config + " is watched for changes" + FleetJoin.joined(fleet));
        out.flush();
        for (final String warning : gateway.warnings())
        {
            err.println("mf serve: warning: " + warning);
        }
        err.flush();
        try
        {
            stopped.await();
        }
        catch (final InterruptedException ex)
        {
            // Stopped by the caller (in-process use): close with the interrupt cleared, so the close waits as it must.
            Runtime.getRuntime().removeShutdownHook(hook);
            gateway.close();
            Thread.currentThread().interrupt();
        }
        return ExitCodes.OK;
    }

    private static void report(final PrintWriter err, final ReloadResult result)
    {
        if (result.applied())
        {
            err.println("mf serve: reloaded " + result.file() + " (" + result.warnings().size() + " warnings)");
            for (final ConfigProblem warning : result.warnings())
            {
                err.println("  " + warning);
            }
        }
        else
        {
            err.println("mf serve: refused " + result.file() + ", the running configuration stays:");
            for (final ConfigProblem problem : result.problems())
            {
                err.println("  " + problem);
            }
        }
        err.flush();
    }
}
