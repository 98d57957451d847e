package io.multifactor.tools;

import io.multifactor.api.ConfigProblem;
import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.config.ConfigLoader;
import io.multifactor.config.LoadedConfig;
import io.multifactor.config.read.Durations;
import io.multifactor.config.reload.ReloadResult;
import io.multifactor.gateway.AccessLog;
import io.multifactor.gateway.ApiKeys;
import io.multifactor.gateway.Gateway;
import io.multifactor.gateway.GatewayOptions;
import io.multifactor.gateway.OperatingOptions;
import io.multifactor.gateway.TlsFiles;
import io.multifactor.kernel.engine.MultiFactorEngine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.BindException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * {@code mf serve --config CONFIG [--port 8080]}: runs the OpenAI-compatible gateway until the process is stopped
 * (SIGTERM or Ctrl-C: a graceful drain, then exit 0) or the command's thread is interrupted (closed at once). A
 * refused configuration prints every problem and exits 2, as do an invalid option (naming it and its value), a bad
 * keys or TLS file (naming the file and line) and a port in use (naming it); a later bad edit of the file is refused,
 * reported on stderr, and the running configuration stays.
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

    @Option(names = "--api-keys", paramLabel = "FILE",
        description = "Client keys, one a line (KEY or sha256:HEX, optionally followed by decisions=a,b; # comments): " +
            "API requests then need Authorization: Bearer KEY. Without it, the MF_API_KEYS variable is read.")
    private Path apiKeysFile;

    @Option(names = "--admin-port", paramLabel = "PORT", defaultValue = "-1",
        description = "Serve /metrics, /healthz and /readyz on this port (never behind keys) instead of the main port " +
            "(default: off; 0 picks a free one).")
    private int adminPort;

    @Option(names = "--tls-cert", paramLabel = "PEM",
        description = "Serve HTTPS (HTTP/1.1 and HTTP/2 by ALPN) with this certificate chain; with --tls-key. Both files " +
            "are re-read when they change.")
    private Path tlsCert;

    @Option(names = "--tls-key", paramLabel = "PEM", description = "The private key of --tls-cert (PKCS#8 or PKCS#1 PEM).")
    private Path tlsKey;

    @Option(names = "--access-log", paramLabel = "FILE", defaultValue = "-",
        description = "One JSON line per request to this file (appended), - for stdout (the default), off for none.")
    private String accessLog;

    @Option(names = "--drain-delay", paramLabel = "DURATION", defaultValue = "5s",
        description = "On SIGTERM, how long new connections are still accepted after /readyz says 503 (default 5s).")
    private String drainDelay;

    @Option(names = "--drain-timeout", paramLabel = "DURATION", defaultValue = "30s",
        description = "Then how long open requests may finish before they are cut (default 30s).")
    private String drainTimeout;

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
        final long drainDelayNs = Durations.parseNs(drainDelay);
        final long drainTimeoutNs = Durations.parseNs(drainTimeout);
        final String invalid = port < 0 || port > 65535 ? "--port " + port + " (0..65535)" :
            firstByteNs <= 0 ? "--first-byte-timeout " + firstByteTimeout + " (a duration such as 500ms, 60s, 5m)" :
            idleNs <= 0 ? "--idle-timeout " + idleTimeout + " (a duration such as 500ms, 60s, 5m)" :
            eventLoops < 1 ? "--event-loops " + eventLoops + " (>= 1)" :
            adminPort < -1 || adminPort > 65535 ? "--admin-port " + adminPort + " (0..65535)" :
            drainDelayNs < 0 ? "--drain-delay " + drainDelay + " (a duration such as 0s, 500ms, 5s)" :
            drainTimeoutNs < 0 ? "--drain-timeout " + drainTimeout + " (a duration such as 0s, 500ms, 30s)" :
            (tlsCert == null) != (tlsKey == null) ? (tlsCert == null ? "--tls-key " + tlsKey : "--tls-cert " + tlsCert) +
                " (--tls-cert and --tls-key go together)" : null;
        if (invalid != null)
        {
            err.println("mf serve: invalid option " + invalid);
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
        final ApiKeys keys;
        final TlsFiles tls;
        try
        {
            keys = apiKeys();
            tls = tlsCert == null ? null : TlsFiles.load(tlsCert, tlsKey);
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("mf serve: " + ex.getMessage());
            return ExitCodes.INVALID_INPUT;
        }
        final AccessLog log;
        try
        {
            log = "off".equals(accessLog) ? null : "-".equals(accessLog) ? AccessLog.to(spec.commandLine().getOut()) :
                AccessLog.append(Path.of(accessLog));
        }
        catch (final IOException | RuntimeException ex)
        {
            err.println("mf serve: invalid option --access-log " + accessLog + " (cannot be opened for appending: " +
                ex.getClass().getSimpleName() + ')');
            return ExitCodes.INVALID_INPUT;
        }
        final OperatingOptions operating = new OperatingOptions(keys, adminPort, tls, log,
            drainDelayNs / 1_000_000L, drainTimeoutNs / 1_000_000L);
        final Gateway gateway;
        final FleetJoin fleet;
        try
        {
            final LoadedConfig loaded =
                ConfigLoader.load(config, overlay, null, MultiFactorEngine.DEFAULT_COUNTER_CAPACITY);
            fleet = FleetJoin.ofOrNull(loaded.config().fleet());
            gateway = Gateway.start(loaded, config, overlay, FleetJoin.exchangeOrNull(fleet), options, operating,
                result -> report(err, result));
        }
        catch (final InvalidConfigurationException ex)
        {
            closeQuietly(log);
            return Problems.report(err, config.toString(), ex);
        }
        catch (final IllegalArgumentException ex)
        {
            closeQuietly(log);
            err.println("mf serve: fleet: " + ex.getMessage());
            return ExitCodes.INVALID_INPUT;
        }
        catch (final IOException ex)
        {
            closeQuietly(log);
            if (inUse(ex))
            {
                err.println("mf serve: cannot listen on " + host + ':' + port + " (--port " + port + ")" +
                    (adminPort > 0 ? " or " + host + ':' + adminPort + " (--admin-port " + adminPort + ")" : "") +
                    ": address already in use");
                return ExitCodes.INVALID_INPUT;
            }
            err.println("mf serve: " + ex.getMessage());
            return ExitCodes.INTERNAL_ERROR;
        }
        final CountDownLatch stopped = new CountDownLatch(1);
        final Thread hook = new Thread(() ->
        {
            // SIGTERM: drain (readiness 503, drain delay, open requests finish within the drain timeout), then exit 0:
            // the JVM would otherwise exit with 143, which process managers read as a crash.
            gateway.drain();
            stopped.countDown();
            System.out.flush();
            System.err.flush();
            Runtime.getRuntime().halt(ExitCodes.OK);
        }, "mf-serve-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        final PrintWriter out = spec.commandLine().getOut();
        out.println("mf serve: listening on " + (tls == null ? "http://" : "https://") + host + ':' + gateway.port() + " (" +
            gateway.engine().plans().decisionCount() + " decisions, " + gateway.engine().plans().modelCount() +
            " models); " + config + " is watched for changes" + FleetJoin.joined(fleet) +
            (gateway.adminPort() < 0 ? "" : "; /metrics, /healthz and /readyz on http://" + host + ':' +
            gateway.adminPort()) + (keys == null ? "" : "; " + keys.size() + " client keys"));
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

    /** @return the keys of {@code --api-keys}, else of {@code MF_API_KEYS}, else null (no keys). */
    private ApiKeys apiKeys()
    {
        if (apiKeysFile != null)
        {
            final String text;
            try
            {
                text = Files.readString(apiKeysFile, StandardCharsets.UTF_8);
            }
            catch (final IOException ex)
            {
                throw new IllegalArgumentException("invalid option --api-keys " + apiKeysFile + " (cannot be read: " +
                    ex.getClass().getSimpleName() + ')', ex);
            }
            return ApiKeys.parseFile(text, apiKeysFile.toString());
        }
        final String variable = System.getenv("MF_API_KEYS");
        return variable == null || variable.isBlank() ? null : ApiKeys.parseVariable(variable, "MF_API_KEYS");
    }

    private static boolean inUse(final Throwable ex)
    {
        for (Throwable cause = ex; cause != null; cause = cause.getCause())
        {
            if (cause instanceof BindException ||
                (cause.getMessage() != null && cause.getMessage().contains("Address already in use")))
            {
                return true;
            }
        }
        return false;
    }

    private static void closeQuietly(final AccessLog log)
    {
        if (log != null)
        {
            log.close();
        }
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
