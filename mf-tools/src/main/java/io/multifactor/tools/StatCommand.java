package io.multifactor.tools;

import io.multifactor.kernel.metrics.CounterBuffers;
import io.multifactor.tools.report.StatReport;
import org.agrona.concurrent.status.CountersReader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code mf stat}: reads the counters of a running engine from its counters file, as AeronStat reads a media driver's,
 * and prints a table per decision and model; with {@code --watch}, again every period. Reading costs the observed
 * process nothing: the file is mapped read-only and values are read with volatile loads.
 * <p>
 * This class is not threadsafe: one invocation per instance.
 */
@Command(
    name = "stat",
    mixinStandardHelpOptions = true,
    versionProvider = MfVersion.class,
    description = {
        "Print the counters of a running engine (selections, drops, in-flight, latency, reloads, fleet) from its " +
            "counters file.",
        "The engine writes one when built with countersFile(FILE); bin/mf simulate --counters-file FILE writes one too." })
public final class StatCommand implements Callable<Integer>
{
    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m)?");

    @Option(names = "--counters-file", paramLabel = "FILE", description = "the engine's counters file (default: " +
        "$MF_COUNTERS_FILE, else /dev/shm/multi-factor-USER.counters or the same name in the temporary directory)")
    Path countersFile;

    @Option(names = "--watch", paramLabel = "PERIOD", description = "print again every PERIOD (such as 1s, 500ms) " +
        "until interrupted")
    String watch;

    @Option(names = "--iterations", paramLabel = "N", description = "with --watch, stop after N tables")
    Integer iterations;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        final Path file = countersFile != null ? countersFile : CounterBuffers.defaultFile();
        long periodMs = 0;
        if (watch != null)
        {
            periodMs = periodMs(watch);
            if (periodMs <= 0)
            {
                err.println("--watch: expected a period such as 1s or 500ms (at least 1ms), got " + watch);
                return ExitCodes.INVALID_INPUT;
            }
        }
        if (iterations != null && iterations < 1)
        {
            err.println("--iterations: must be at least 1, got " + iterations);
            return ExitCodes.INVALID_INPUT;
        }
        if (!Files.isRegularFile(file))
        {
            err.println("--counters-file: " + file + " does not exist (build the engine with countersFile(" + file +
                "), or run bin/mf simulate --counters-file " + file + ")");
            return ExitCodes.INVALID_INPUT;
        }
        final CountersReader reader;
        try
        {
            reader = CounterBuffers.openReader(file);
        }
        catch (final RuntimeException ex)
        {
            err.println("--counters-file: " + file + ": " + ex.getMessage());
            return ExitCodes.INVALID_INPUT;
        }
        final int tables = watch == null ? 1 : iterations != null ? iterations : Integer.MAX_VALUE;
        for (int i = 0; i < tables; i++)
        {
            if (i > 0)
            {
                Thread.sleep(periodMs);
                out.println();
            }
            if (watch != null)
            {
                out.println("== " + file + " at " + Instant.now().truncatedTo(ChronoUnit.MILLIS));
            }
            out.print(StatReport.format(reader));
            out.flush();
        }
        return ExitCodes.OK;
    }

    /**
     * @param text a period: a number with {@code ms}, {@code s} (the default) or {@code m}.
     * @return milliseconds, or -1 when the text is not a period.
     */
    static long periodMs(final String text)
    {
        final Matcher matcher = DURATION.matcher(text.trim());
        if (!matcher.matches())
        {
            return -1;
        }
        final double amount = Double.parseDouble(matcher.group(1));
        final String unit = matcher.group(2) == null ? "s" : matcher.group(2);
        final double ms = "ms".equals(unit) ? amount : "m".equals(unit) ? amount * 60_000 : amount * 1000;
        return ms >= 1 && ms <= 86_400_000 ? (long)ms : -1;
    }
}
