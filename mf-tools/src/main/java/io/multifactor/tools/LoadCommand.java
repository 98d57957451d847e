package io.multifactor.tools;

import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.config.ConfigLoader;
import io.multifactor.config.LoadedConfig;
import io.multifactor.config.model.BackendRef;
import io.multifactor.config.model.DecisionConfig;
import io.multifactor.config.model.ModelConfig;
import io.multifactor.config.model.SloConfig;
import io.multifactor.fakes.BackendsProfile;
import io.multifactor.fakes.FakeBackends;
import io.multifactor.sim.load.LoadGenerator;
import io.multifactor.sim.load.LoadProfile;
import io.multifactor.sim.load.LoadProfileReader;
import io.multifactor.sim.load.LoadResults;
import io.multifactor.sim.load.LoadSummary;
import io.multifactor.sim.load.LoadTimeline;
import io.multifactor.sim.load.PrefixCacheCounters;
import io.multifactor.tools.report.ChartReport;
import io.multifactor.tools.report.LoadChartReport;
import io.multifactor.tools.report.LoadCsvReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code bin/mf load}: sends the open-loop streaming load of a load profile to a gateway or a model server and prints,
 * per serving model and overall, requests, errors, SLO attainment and p50/p99 TTFT and TPOT (stdout), with a progress
 * line per interval (stderr); optionally every request as CSV and a chart.
 * <p>
 * The SLO ceilings are the profile's {@code slo}; with {@code --config}, those of the profile's decision in that
 * configuration (its {@code multi_factor} block) unless the profile sets its own. With {@code --backends}, the fake
 * servers of that profile run in this process for the length of the load.
 * <p>
 * It also prints the input tokens per second (prompt tokens of the requests answered 2xx) and the prefix hit rate of
 * the servers' own {@code vllm:prefix_cache_*} counters, read from each server's {@code /metrics} before and after
 * the run: the servers of {@code --backends}, else the backends of {@code --config}, else the target itself.
 * <p>
 * Exit codes ({@link ExitCodes}): 0 done, 2 invalid input (a refused profile or configuration, a bad URL, an output
 * file that cannot be created), 1 an output file that failed while being written.
 * <p>
 * This class is not threadsafe: picocli creates one instance per invocation.
 */
@Command(
    name = "load",
    mixinStandardHelpOptions = true,
    versionProvider = MfVersion.class,
    description = {
        "Send open-loop (Poisson) streaming load to a gateway or a server and measure TTFT, TPOT and SLO attainment.",
        "Without --profile: examples/load.yaml." })
public final class LoadCommand implements Callable<Integer>
{
    /** The bundled load profile, relative to the repository root. */
    public static final String EXAMPLE_PROFILE = "examples/load.yaml";

    @Option(names = "--target", required = true, paramLabel = "URL", description = "base URL of the gateway or " +
        "server, such as http://127.0.0.1:8080")
    String target;

    @Option(names = "--profile", paramLabel = "PROFILE", description = "load profile (default: " + EXAMPLE_PROFILE + ")")
    Path profile;

    @Option(names = "--config", paramLabel = "CONFIG", description = "take the SLO ceilings from the profile's " +
        "decision in this configuration")
    Path config;

    @Option(names = "--backends", paramLabel = "PROFILE", description = "first start the fake servers of this " +
        "backends profile in this process (their windows then count from the start of the load), stop them at the end")
    Path backends;

    @Option(names = "--seed", paramLabel = "S", description = "seed of the arrivals (default: the profile's seed)")
    Long seed;

    @Option(names = "--csv", paramLabel = "FILE", description = "write every request as CSV")
    Path csv;

    @Option(names = "--plot", paramLabel = "FILE.png", description = "draw traffic share and p95 TTFT per model over " +
        "time (PNG, or JPEG for a .jpg or .jpeg name)")
    Path plot;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call()
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        final Path profilePath = profile != null ? profile : Home.path().resolve(EXAMPLE_PROFILE);
        LoadProfile load;
        BackendsProfile servers = null;
        LoadedConfig loadedOrNull = null;
        try
        {
            load = LoadProfileReader.read(profilePath);
            if (backends != null)
            {
                servers = BackendsProfileReader.read(backends);
            }
            if (config != null)
            {
                loadedOrNull = ConfigLoader.load(config);
                load = withDecisionCeilings(load, loadedOrNull, err);
                if (load == null)
                {
                    return ExitCodes.INVALID_INPUT;
                }
            }
        }
        catch (final InvalidConfigurationException ex)
        {
            return Problems.report(err, ex.problems().get(0).file(), ex);
        }
        if (seed != null)
        {
            load = load.withSeed(seed);
        }
        final String problem = outputProblems(csv, plot);
        if (problem != null)
        {
            err.println(problem);
            return ExitCodes.INVALID_INPUT;
        }
        final LoadResults results;
        FakeBackends started = null;
        List<URI> cacheServers;
        PrefixCacheCounters cacheBefore;
        PrefixCacheCounters cacheRun;
        try
        {
            started = servers == null ? null : FakeBackends.start(servers);
            cacheServers = cacheServers(started, loadedOrNull, target);
            cacheBefore = PrefixCacheCounters.read(cacheServers);
            results = LoadGenerator.run(target, load, line ->
            {
                err.println(line);
                err.flush();
            });
            cacheRun = PrefixCacheCounters.read(cacheServers).since(cacheBefore);
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("--target: " + ex.getMessage());
            return ExitCodes.INVALID_INPUT;
        }
        catch (final IllegalStateException ex)
        {
            err.println("--backends: " + ex.getMessage());
            return ExitCodes.INVALID_INPUT;
        }
        finally
        {
            if (started != null)
            {
                started.close();
            }
        }
        final LoadSummary summary = LoadSummary.of(results, load.maxTtftMs(), load.maxTpotMs());
        out.print(summary.table());
        out.printf(Locale.ROOT, "input tokens/s: %.1f%n", results.inputTokensPerS());
        out.println(cacheRun.line());
        out.flush();
        return writeOutputs(results, load, summary, err);
    }

    /**
     * @param startedOrNull the fake servers this process runs, or null.
     * @param loadedOrNull the {@code --config} configuration, or null.
     * @param target the {@code --target} URL.
     * @return whose {@code /metrics} to read for the prefix counters: the fake servers, else every backend of the
     *     configuration, else the target.
     */
    static List<URI> cacheServers(final FakeBackends startedOrNull, final LoadedConfig loadedOrNull,
        final String target)
    {
        final List<URI> uris = new ArrayList<>();
        if (startedOrNull != null)
        {
            for (final String model : startedOrNull.models())
            {
                uris.add(URI.create("http://127.0.0.1:" + startedOrNull.port(model)));
            }
        }
        else if (loadedOrNull != null)
        {
            for (final ModelConfig model : loadedOrNull.config().models())
            {
                for (final BackendRef ref : model.backendRefs())
                {
                    final URI uri = URI.create((ref.https() ? "https://" : "http://") + ref.host() + ':' + ref.port());
                    if (!uris.contains(uri))
                    {
                        uris.add(uri);
                    }
                }
            }
        }
        if (uris.isEmpty())
        {
            try
            {
                uris.add(URI.create(target));
            }
            catch (final IllegalArgumentException ex)
            {
                // The load itself says what is wrong with the target.
            }
        }
        return uris;
    }

    /**
     * @param csvFile the {@code --csv} file, or null.
     * @param plotFile the {@code --plot} file, or null.
     * @return what is wrong with them, or null.
     */
    static String outputProblems(final Path csvFile, final Path plotFile)
    {
        final String csvProblem = SimulateCommand.outputProblem("--csv", csvFile);
        if (csvProblem != null)
        {
            return csvProblem;
        }
        final String plotProblem = SimulateCommand.outputProblem("--plot", plotFile);
        if (plotProblem != null)
        {
            return plotProblem;
        }
        return plotFile != null && ChartReport.formatProblem(plotFile) != null ?
            "--plot: " + ChartReport.formatProblem(plotFile) : null;
    }

    /**
     * @param load the profile.
     * @param loaded the configuration.
     * @param err where to say what is wrong.
     * @return the profile with its decision's ceilings (unless it sets its own), or null when the profile names no
     *     decision of the configuration (reported).
     */
    static LoadProfile withDecisionCeilings(final LoadProfile load, final LoadedConfig loaded, final PrintWriter err)
    {
        for (final DecisionConfig decision : loaded.config().decisions())
        {
            if (decision.name().equals(load.decision()))
            {
                if (load.maxTtftMs() > 0.0 || load.maxTpotMs() > 0.0)
                {
                    return load;
                }
                final SloConfig slo = decision.multiFactor().slo();
                return load.withCeilings(slo.maxTtftMs(), slo.maxTpotMs());
            }
        }
        err.println("--config: the profile's decision " + (load.decision() == null ? "(none: set decision: NAME)" :
            '"' + load.decision() + '"') + " is not a decision of " + loaded.file());
        return null;
    }

    private int writeOutputs(final LoadResults results, final LoadProfile load, final LoadSummary summary,
        final PrintWriter err)
    {
        try
        {
            if (csv != null)
            {
                try (Writer writer = Files.newBufferedWriter(csv, StandardCharsets.UTF_8))
                {
                    LoadCsvReport.write(results, load.maxTtftMs(), load.maxTpotMs(), writer);
                }
            }
            if (plot != null)
            {
                LoadChartReport.writeRun(LoadTimeline.of(results, load.intervalS(), load.maxTtftMs(), load.maxTpotMs()),
                    String.format(Locale.ROOT, "bin/mf load: %d requests to %s, SLO attainment %.1f%%", results.count(),
                        target, 100.0 * summary.overall().attainment()), load.maxTtftMs(), plot);
            }
            return ExitCodes.OK;
        }
        catch (final IOException ex)
        {
            err.println("load: writing failed: " + ex.getMessage());
            return ExitCodes.INTERNAL_ERROR;
        }
    }
}
