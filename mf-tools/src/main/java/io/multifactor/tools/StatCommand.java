package io.multifactor.tools;

import io.multifactor.kernel.metrics.CounterBuffers;
import io.multifactor.kernel.metrics.CountersFileLayout;
import io.multifactor.kernel.metrics.CountersFileReader;
import io.multifactor.kernel.metrics.DamagedCountersFileException;
import io.multifactor.tools.report.StatReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code mf stat}: reads the counters of an engine from its counters file, as AeronStat reads a media driver's, and
 * prints whether the engine is alive (its heartbeat, the refresh agent's last cycle, at most 3 s old), then a table
 * per decision and model; with {@code --watch}, again every period, reopening the file each time, so a restarted engine
 * (a new file at the same path) is followed and said so. Reading costs the observed process nothing: the file is read
 * with ordinary reads, never mapped, and every record is checked before use, so a truncated, replaced or damaged file
 * gives a message, never a fault.
 * <p>
 * Exit status (of the last table with {@code --watch}): 0 the engine is alive; 4 ({@link ExitCodes#NOT_ALIVE}) the
 * engine is closed or its heartbeat is stale (its last counts are printed); 2 the file is missing or damaged (the
 * message names it; without {@code --watch} it goes to stderr and nothing to stdout), or a bad option.
 * <p>
 * This class is not threadsafe: one invocation per instance.
 */
@Command(
    name = "stat",
    mixinStandardHelpOptions = true,
    versionProvider = MfVersion.class,
    description = {
        "Print the counters of a running engine (selections, drops, in-flight, latency, reloads, fleet) from its " +
            "counters file, and whether the engine is alive.",
        "The engine writes one when built with countersFile(FILE); bin/mf simulate --counters-file FILE writes one too.",
        "Exit status: 0 alive, 4 not alive (closed, or no heartbeat for 3 s), 2 missing or damaged file." })
public final class StatCommand implements Callable<Integer>
{
    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m)?");

    @Option(names = "--counters-file", paramLabel = "FILE", description = "the engine's counters file (default: " +
        "$MF_COUNTERS_FILE, else /dev/shm/multi-factor-USER.counters or the same name in the temporary directory)")
    Path countersFile;

    @Option(names = "--watch", paramLabel = "PERIOD", description = "print again every PERIOD (such as 1s, 500ms) " +
        "until interrupted, following an engine that restarts")
    String watch;

    @Option(names = "--iterations", paramLabel = "N", description = "with --watch, stop after N tables")
    Integer iterations;

    @Spec
    CommandSpec spec;

    /** The engine a table was last read from: its process id and start time. */
    private long lastPid = -1;
    private long lastStartEpochMs = -1;

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
        final CountersFileReader reader = new CountersFileReader();
        if (watch == null)
        {
            return once(reader, file, out, err);
        }
        final int tables = iterations != null ? iterations : Integer.MAX_VALUE;
        int status = ExitCodes.OK;
        for (int i = 0; i < tables; i++)
        {
            if (i > 0)
            {
                Thread.sleep(periodMs);
                out.println();
            }
            out.println("== " + file + " at " + Instant.now().truncatedTo(ChronoUnit.MILLIS));
            // Under --watch every problem is one more line of the stream being watched, and the watch goes on.
            status = once(reader, file, out, out);
            out.flush();
        }
        return status;
    }

    private int once(final CountersFileReader reader, final Path file, final PrintWriter out, final PrintWriter problems)
    {
        final CountersFileReader.Snapshot snapshot;
        try
        {
            snapshot = reader.read(file);
        }
        catch (final NoSuchFileException ex)
        {
            problems.println("--counters-file: " + file + " does not exist (build the engine with countersFile(" +
                file + "), or run bin/mf simulate --counters-file " + file + ")");
            return ExitCodes.INVALID_INPUT;
        }
        catch (final DamagedCountersFileException ex)
        {
            problems.println(ex.getMessage());
            return ExitCodes.INVALID_INPUT;
        }
        catch (final IOException ex)
        {
            problems.println("--counters-file: " + file + ": cannot read it: " + ex.getMessage());
            return ExitCodes.INVALID_INPUT;
        }
        final long nowMs = System.currentTimeMillis();
        if (lastPid >= 0 && (snapshot.pid() != lastPid || snapshot.startEpochMs() != lastStartEpochMs))
        {
            out.println("engine restarted: pid " + lastPid + " started " + instant(lastStartEpochMs) + ", now pid " +
                snapshot.pid() + " started " + instant(snapshot.startEpochMs()));
        }
        lastPid = snapshot.pid();
        lastStartEpochMs = snapshot.startEpochMs();
        out.println(liveness(snapshot, nowMs));
        out.println();
        out.print(StatReport.format(snapshot.counters()));
        return snapshot.alive(nowMs) ? ExitCodes.OK : ExitCodes.NOT_ALIVE;
    }

    /**
     * @param snapshot a read of the file.
     * @param nowMs the reader's clock, epoch milliseconds.
     * @return one line: the engine's process, start, heartbeat age and whether it is alive.
     */
    static String liveness(final CountersFileReader.Snapshot snapshot, final long nowMs)
    {
        final String engine = "engine pid " + snapshot.pid() + ", started " + instant(snapshot.startEpochMs());
        if (snapshot.closed())
        {
            return engine + ", closed at " + instant(snapshot.heartbeatEpochMs()) +
                ": NOT ALIVE (the counts below are its last)";
        }
        final String age = String.format(Locale.ROOT, "%.1f s", (nowMs - snapshot.heartbeatEpochMs()) / 1000.0);
        if (snapshot.alive(nowMs))
        {
            return engine + ", heartbeat " + age + " ago: alive";
        }
        return engine + ", last heartbeat " + age + " ago (more than " + CountersFileLayout.STALE_AFTER_MS / 1000 +
            " s): NOT ALIVE (it died, hangs, or runs no refresh agent; the counts below are its last)";
    }

    private static String instant(final long epochMs)
    {
        return Instant.ofEpochMilli(epochMs).truncatedTo(ChronoUnit.MILLIS).toString();
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
