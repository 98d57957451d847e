package io.multifactor.tools;

import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.fakes.BackendsProfile;
import io.multifactor.fakes.FakeBackends;
import io.multifactor.fakes.FakeModelProfile;
import io.multifactor.fakes.FakeModelServer;
import io.multifactor.fakes.TimeWindow;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code bin/mf backends}: starts the fake OpenAI-compatible model servers of a backends profile on loopback, prints
 * one line per model (name, base URL, metrics URL, behaviour) on stdout, and runs until stopped (Ctrl-C), or for
 * {@code --for SECONDS}, then prints what each served.
 * <p>
 * Exit codes ({@link ExitCodes}): 0 stopped, 2 invalid input (a refused profile, a port already taken).
 * <p>
 * This class is not threadsafe: picocli creates one instance per invocation.
 */
@Command(
    name = "backends",
    mixinStandardHelpOptions = true,
    versionProvider = MfVersion.class,
    description = {
        "Run fake OpenAI-compatible model servers on loopback (streaming, vLLM /metrics, queueing, degradation, 429s).",
        "Without --profile: examples/backends.yaml. Runs until stopped (Ctrl-C)." })
public final class BackendsCommand implements Callable<Integer>
{
    /** The bundled backends profile, relative to the repository root. */
    public static final String EXAMPLE_PROFILE = "examples/backends.yaml";

    @Option(names = "--profile", paramLabel = "PROFILE", description = "backends profile (default: " + EXAMPLE_PROFILE +
        ")")
    Path profile;

    @Option(names = "--for", paramLabel = "SECONDS", description = "stop after this many seconds (default: run until " +
        "stopped)")
    Double forSeconds;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        final Path path = profile != null ? profile : Home.path().resolve(EXAMPLE_PROFILE);
        if (forSeconds != null && !(forSeconds > 0.0 && forSeconds <= 31_536_000.0))
        {
            err.println("--for: must be in (0, 31536000] seconds, got " + forSeconds);
            return ExitCodes.INVALID_INPUT;
        }
        final BackendsProfile read;
        try
        {
            read = BackendsProfileReader.read(path);
        }
        catch (final InvalidConfigurationException ex)
        {
            return Problems.report(err, path.toString(), ex);
        }
        final FakeBackends backends;
        try
        {
            backends = FakeBackends.start(read);
        }
        catch (final IllegalStateException ex)
        {
            err.println("backends: " + ex.getMessage());
            return ExitCodes.INVALID_INPUT;
        }
        final CountDownLatch stopped = new CountDownLatch(1);
        final Thread hook = new Thread(() ->
        {
            backends.close();
            stopped.countDown();
        }, "mf-backends-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        for (final String model : backends.models())
        {
            out.println(describe(backends.server(model)));
        }
        out.flush();
        err.println(forSeconds == null ? "backends: running; stop with Ctrl-C" :
            String.format(Locale.ROOT, "backends: running for %.1f s", forSeconds));
        err.flush();
        if (forSeconds == null)
        {
            stopped.await();
            return ExitCodes.OK;
        }
        stopped.await((long)(forSeconds * 1000.0), TimeUnit.MILLISECONDS);
        Runtime.getRuntime().removeShutdownHook(hook);
        backends.close();
        for (final String model : backends.models())
        {
            final FakeModelServer server = backends.server(model);
            out.println(String.format(Locale.ROOT, "%-16s requests %d, completed %d, 429 %d, 500 %d, cancelled %d", model,
                server.requests(), server.completed(), server.rateLimited(), server.failed(), server.cancelled()));
        }
        return ExitCodes.OK;
    }

    private static String describe(final FakeModelServer server)
    {
        final FakeModelProfile p = server.profile();
        final StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
            "%-16s http://127.0.0.1:%d/v1  metrics http://127.0.0.1:%d/metrics  ttft %.0f ms, tpot %.0f ms, batch %d",
            p.name(), server.port(), server.port(), p.ttftMs(), p.tpotMs(), p.batch()));
        for (final TimeWindow w : p.degraded())
        {
            line.append(String.format(Locale.ROOT, ", degraded %.0f-%.0f s (ttft x%.1f, tpot x%.1f)", w.fromS(),
                w.untilS(), w.ttftFactor(), w.tpotFactor()));
        }
        for (final TimeWindow w : p.rateLimited())
        {
            line.append(String.format(Locale.ROOT, ", 429 %.0f-%.0f s (Retry-After %d)", w.fromS(), w.untilS(),
                w.retryAfterS()));
        }
        if (p.errorRate() > 0.0)
        {
            line.append(String.format(Locale.ROOT, ", errors %.0f%%", 100.0 * p.errorRate()));
        }
        return line.toString();
    }
}
