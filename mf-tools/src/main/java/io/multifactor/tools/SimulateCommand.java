package io.multifactor.tools;

import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.config.ConfigLoader;
import io.multifactor.config.LoadedConfig;
import io.multifactor.config.model.SignalsConfig;
import io.multifactor.kernel.engine.SignalSettings;
import io.multifactor.serving.BackendChooser;
import io.multifactor.sim.ComparisonFigures;
import io.multifactor.sim.FleetReport;
import io.multifactor.sim.FleetSimulator;
import io.multifactor.sim.IntervalRow;
import io.multifactor.sim.ModelBehaviour;
import io.multifactor.sim.ProfileReader;
import io.multifactor.sim.SimulationListener;
import io.multifactor.sim.SimulationProfile;
import io.multifactor.sim.SimulationReport;
import io.multifactor.sim.Simulator;
import io.multifactor.tools.report.ChartReport;
import io.multifactor.tools.report.CompareTextReport;
import io.multifactor.tools.report.CsvReport;
import io.multifactor.tools.report.FleetTextReport;
import io.multifactor.tools.report.TextReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code bin/mf simulate}: runs the real engine on simulated traffic and a simulated clock, prints one line per report
 * interval and a summary on stdout (the same bytes for the same seed), a progress line on stderr, and optionally
 * writes the intervals as CSV and a chart as PNG. Without arguments it runs {@code examples/router.yaml} with
 * {@code examples/router.profile.yaml}.
 * <p>
 * Exit codes ({@link ExitCodes}): 0 success, 2 invalid input (the message names the file; this includes a {@code --csv}
 * or {@code --plot} file that cannot be created, checked before anything is printed on stdout), 1 an output file that
 * failed while being written.
 * <p>
 * This class is not threadsafe: picocli creates one instance per invocation.
 */
@Command(
    name = "simulate",
    mixinStandardHelpOptions = true,
    versionProvider = MfVersion.class,
    description = {
        "Drive the real engine with simulated traffic on a simulated clock.",
        "Shows how the choice shifts as latency and load change. Without arguments: examples/router.yaml with " +
            "examples/router.profile.yaml." })
public final class SimulateCommand implements Callable<Integer>
{
    /** The bundled example configuration, relative to the repository root. */
    public static final String EXAMPLE_CONFIG = "examples/router.yaml";
    /** System property naming the repository root, set by {@code bin/mf}; defaults to the working directory. */
    public static final String HOME_PROPERTY = "mf.home";

    @Option(names = "--config", paramLabel = "CONFIG", description = "router configuration (default: " +
        EXAMPLE_CONFIG + ")")
    Path config;

    @Option(names = "--profile", paramLabel = "PROFILE", description = "traffic profile (default: the configuration's " +
        "sibling NAME.profile.yaml)")
    Path profile;

    @Option(names = "--seconds", paramLabel = "N", description = "simulated seconds (default: the profile's duration_s)")
    Double seconds;

    @Option(names = "--seed", paramLabel = "S", description = "random seed (default: the profile's seed)")
    Long seed;

    @Option(names = "--csv", paramLabel = "FILE", description = "write the per-interval rows as CSV")
    Path csv;

    @Option(names = "--plot", paramLabel = "FILE.png", description = "draw traffic share and p95 latency per model " +
        "(PNG, or JPEG for a .jpg or .jpeg name)")
    Path plot;

    @Option(names = "--counters-file", paramLabel = "FILE", description = "keep the engine's counters in FILE " +
        "(replaced), for bin/mf stat --counters-file FILE while the simulation runs")
    Path countersFile;

    @Option(names = "--no-ceilings", description = "run the engine with every SLO ceiling off (attainment is still " +
        "measured against the configured ceilings)")
    boolean noCeilings;

    @Option(names = "--replicas", paramLabel = "N", description = "run N router replicas behind a round-robin load " +
        "balancer, each with its own engine, sharing signals through the in-memory fleet exchange (period: the " +
        "configuration's fleet.exchange_every, default 250ms); the report compares with isolated replicas, same seed")
    Integer replicas;

    @Option(names = "--no-fleet", description = "with --replicas: only the run where replicas share nothing")
    boolean noFleet;

    @Option(names = "--compare", paramLabel = "CONFIG", description = "also run CONFIG (repeatable) on the same " +
        "profile and seed, and print the runs side by side: SLO attainment, p99 TTFT, the largest share one model " +
        "got in a refresh period, seconds from a model's recovery to its traffic (with --replicas: the fleet runs)")
    List<Path> compare;

    @Spec
    CommandSpec spec;

    private PrintWriter out;
    private PrintWriter err;

    /** Writes the report to the command line's out (stdout) and progress and problems to its err (stderr). */
    @Override
    public Integer call()
    {
        out = spec.commandLine().getOut();
        err = spec.commandLine().getErr();
        final Path configPath = config != null ? config : home().resolve(EXAMPLE_CONFIG);
        final Path profilePath = profile != null ? profile : siblingProfile(configPath);

        final LoadedConfig loaded;
        final SimulationProfile traffic;
        try
        {
            loaded = ConfigLoader.load(configPath);
            if (profile == null && !Files.exists(profilePath))
            {
                // The user named a configuration only: say which profile was looked for, not "no such file".
                err.println("simulate: no traffic profile for " + configPath + ": --profile was not given and " +
                    profilePath + " (NAME.profile.yaml beside the configuration) does not exist; write one (see " +
                    "examples/router.profile.yaml and docs/configuration.md) and pass it with --profile FILE");
                return ExitCodes.INVALID_INPUT;
            }
            SimulationProfile read = ProfileReader.read(profilePath, loaded.plans());
            if (seconds != null)
            {
                if (!(seconds > 0.0 && seconds <= 86_400.0))
                {
                    err.println("--seconds: must be in (0, 86400], got " + seconds);
                    return ExitCodes.INVALID_INPUT;
                }
                read = read.withDurationS(seconds);
            }
            if (seed != null)
            {
                read = read.withSeed(seed);
            }
            traffic = read;
        }
        catch (final InvalidConfigurationException ex)
        {
            // The problems name their file: the configuration or the profile, whichever was refused.
            return Problems.report(err, ex.problems().get(0).file(), ex);
        }

        // An output file that cannot be created is a command-line mistake: refuse it before any output (exit 2).
        final String csvProblem = outputProblem("--csv", csv);
        String plotProblem = outputProblem("--plot", plot);
        if (plotProblem == null && plot != null && ChartReport.formatProblem(plot) != null)
        {
            plotProblem = "--plot: " + ChartReport.formatProblem(plot);
        }
        final String countersProblem = outputProblem("--counters-file", countersFile);
        if (countersProblem != null)
        {
            err.println(countersProblem);
            return ExitCodes.INVALID_INPUT;
        }
        if (csvProblem != null || plotProblem != null)
        {
            if (csvProblem != null)
            {
                err.println(csvProblem);
            }
            if (plotProblem != null)
            {
                err.println(plotProblem);
            }
            return ExitCodes.INVALID_INPUT;
        }

        if (compare != null && !compare.isEmpty())
        {
            return simulateCompared(loaded, traffic, configPath, profilePath);
        }
        if (replicas != null || noFleet)
        {
            return simulateFleet(loaded, traffic, configPath, profilePath);
        }

        final Simulator simulator;
        try
        {
            simulator = new Simulator(loaded.plans(), settings(loaded.config().signals()), traffic, !noCeilings,
                chooser(loaded, traffic));
        }
        catch (final IllegalArgumentException ex)
        {
            err.println(profilePath + ": " + ex.getMessage() + " (configuration " + configPath + ")");
            return ExitCodes.INVALID_INPUT;
        }

        // The bundled example is named as in the README wherever the repository lives and whatever the working
        // directory, so the same seed prints the same bytes.
        final Path shownConfig = config == null ? Path.of(EXAMPLE_CONFIG) : shown(configPath);
        final Path shownProfile = profile == null ? siblingProfile(shownConfig) : shown(profilePath);
        out.printf(Locale.ROOT, "simulating %s with %s: %.0f s, %s arrivals/s, seed %d%n%n", shownConfig,
            shownProfile, traffic.durationS(), trim(traffic.arrivalsPerS()), traffic.seed());
        out.print(TextReport.header(simulator.modelNames()));
        out.flush();
        final Progress progress = new Progress(traffic);
        final SimulationReport report = simulator.run(progress, countersFile);
        progress.clear();
        out.print(TextReport.legend());
        out.println();
        out.print(TextReport.summary(report));
        out.print(TextReport.serving(report.serving()));
        if (comparesEjection(loaded, traffic))
        {
            // The same traffic on the same plans with every reliability removed: what ejection changed.
            final SimulationReport without = new Simulator(loaded.plans().withoutEjectionPolicies(),
                settings(loaded.config().signals()), traffic, !noCeilings, chooser(loaded, traffic))
                .run(SimulationListener.NONE);
            out.println();
            out.print(TextReport.ejectionComparison(without, report, traffic));
        }
        out.flush();

        try
        {
            if (csv != null)
            {
                try (Writer writer = Files.newBufferedWriter(csv, StandardCharsets.UTF_8))
                {
                    CsvReport.write(report.rows(), writer);
                }
                err.println("wrote " + csv);
            }
            if (plot != null)
            {
                ChartReport.write(report, traffic, loaded.plans(), plot);
                err.println("wrote " + plot);
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            err.println("cannot write output: " + ex);
            return ExitCodes.INTERNAL_ERROR;
        }
        return ExitCodes.OK;
    }

    // A configuration with reliability and traffic in which some model fails: the run is compared with one without.
    /**
     * A profile that gives a model servers simulates them one by one, behind mf-serving's backend choice.
     *
     * @param loaded the configuration simulated.
     * @param traffic the profile.
     * @return the backend choice of the configuration, or null when no model has servers.
     */
    private static BackendChooser chooser(final LoadedConfig loaded, final SimulationProfile traffic)
    {
        // API keys are never sent in a simulation: an empty environment.
        return traffic.servers().isEmpty() ? null : BackendChooser.of(loaded, Map.of());
    }

    private static boolean comparesEjection(final LoadedConfig loaded, final SimulationProfile traffic)
    {
        if (!loaded.plans().hasEjectionPolicies())
        {
            return false;
        }
        for (final ModelBehaviour model : traffic.models().values())
        {
            if (model.failures().fails())
            {
                return true;
            }
        }
        return false;
    }

    // --compare: the same traffic (profile, seed) on each configuration, one row each.
    private int simulateCompared(
        final LoadedConfig loaded, final SimulationProfile traffic, final Path configPath, final Path profilePath)
    {
        final List<Path> paths = new ArrayList<>();
        paths.add(configPath);
        paths.addAll(compare);
        final List<String> labels = new ArrayList<>();
        final List<ComparisonFigures> runs = new ArrayList<>();
        for (int i = 0; i < paths.size(); i++)
        {
            final Path path = paths.get(i);
            final LoadedConfig run;
            try
            {
                run = i == 0 ? loaded : ConfigLoader.load(path);
            }
            catch (final InvalidConfigurationException ex)
            {
                return Problems.report(err, path.toString(), ex);
            }
            try
            {
                if (replicas != null)
                {
                    runs.add(new FleetSimulator(run.plans(), settings(run.config().signals()), traffic, replicas,
                        !noFleet, run.config().fleet().exchangeEveryNs()).run().figures());
                }
                else
                {
                    runs.add(new Simulator(run.plans(), settings(run.config().signals()), traffic, !noCeilings,
                        chooser(run, traffic)).run(SimulationListener.NONE).figures());
                }
            }
            catch (final IllegalArgumentException ex)
            {
                err.println(profilePath + ": " + ex.getMessage() + " (configuration " + path + ")");
                return ExitCodes.INVALID_INPUT;
            }
            labels.add(shown(path).toString());
        }
        final Path shownProfile = profile == null ? siblingProfile(shown(configPath)) : shown(profilePath);
        out.printf(Locale.ROOT, "comparing %d configurations on %s: %.0f s, %s arrivals/s, seed %d%s%n%n", paths.size(),
            shownProfile, traffic.durationS(), trim(traffic.arrivalsPerS()), traffic.seed(),
            replicas == null ? "" : ", " + replicas + " replicas" + (noFleet ? " (no fleet)" : " sharing signals"));
        out.print(CompareTextReport.render(labels, runs));
        out.flush();
        return ExitCodes.OK;
    }

    private int simulateFleet(final LoadedConfig loaded, final SimulationProfile traffic, final Path configPath,
        final Path profilePath)
    {
        final int n = replicas == null ? 1 : replicas;
        final long everyNs = loaded.config().fleet().exchangeEveryNs();
        final FleetReport isolated;
        FleetReport shared = null;
        FleetReport withServers = null;
        final boolean scrapes = loaded.serverMetrics() != null && !loaded.serverBackends().isEmpty();
        try
        {
            isolated = new FleetSimulator(loaded.plans(), settings(loaded.config().signals()), traffic, n, false, everyNs)
                .run();
            if (scrapes)
            {
                // The same isolated replicas, seeing the simulated servers' queues and KV-cache use.
                withServers = new FleetSimulator(loaded.plans(), settings(loaded.config().signals()), traffic, n, false,
                    everyNs).withServers(loaded.serverMetrics(), loaded.serverBackends()).run();
            }
            if (!noFleet)
            {
                shared = new FleetSimulator(loaded.plans(), settings(loaded.config().signals()), traffic, n, true,
                    everyNs).run();
            }
        }
        catch (final IllegalArgumentException ex)
        {
            err.println(profilePath + ": " + ex.getMessage() + " (configuration " + configPath + ")");
            return ExitCodes.INVALID_INPUT;
        }
        final Path shownConfig = config == null ? Path.of(EXAMPLE_CONFIG) : shown(configPath);
        final Path shownProfile = profile == null ? siblingProfile(shownConfig) : shown(profilePath);
        out.printf(Locale.ROOT, "simulating %s with %s: %d replicas, %.0f s, %s arrivals/s, seed %d, %s%n%n",
            shownConfig, shownProfile, n, traffic.durationS(), trim(traffic.arrivalsPerS()), traffic.seed(),
            noFleet ? "isolated (no fleet)" : "fleet exchange every " + everyNs / 1_000_000 + " ms vs isolated");
        if (withServers != null)
        {
            out.printf(Locale.ROOT, "model-server signals, isolated replicas (scrape every %d ms, answers %d ms late, " +
                "stale after %d ms): without / with%n", loaded.serverMetrics().everyNs() / 1_000_000,
                FleetSimulator.SCRAPE_DELAY_NS / 1_000_000, loaded.serverMetrics().staleAfterNs() / 1_000_000);
            out.print(FleetTextReport.serverSignals(isolated, withServers));
            out.println();
        }
        out.print(FleetTextReport.compare(shared, isolated));
        out.flush();
        return ExitCodes.OK;
    }

    /**
     * Checks, before the run, that an output file can be written: its directory exists and it is not a directory or a
     * read-only file. A failure while writing it later (a full disk) is still an internal error.
     *
     * @param option the option that named it, such as {@code --csv}.
     * @param file the file, or {@code null} when the option is absent.
     * @return the problem, naming the option and the file, or {@code null} when it can be written.
     */
    static String outputProblem(final String option, final Path file)
    {
        if (file == null)
        {
            return null;
        }
        final Path parent = file.toAbsolutePath().getParent();
        if (parent == null || !Files.isDirectory(parent))
        {
            return option + ": cannot write " + file + ": directory " + parent + " does not exist";
        }
        if (Files.isDirectory(file))
        {
            return option + ": cannot write " + file + ": it is a directory";
        }
        if (Files.exists(file) ? !Files.isWritable(file) : !Files.isWritable(parent))
        {
            return option + ": cannot write " + file + ": permission denied";
        }
        return null;
    }

    /**
     * @param signals the configuration's {@code signals:} block.
     * @return the engine's settings for it.
     */
    public static SignalSettings settings(final SignalsConfig signals)
    {
        return signals.settings();
    }

    /**
     * @param configPath a configuration such as {@code examples/router.yaml}.
     * @return its profile by convention, such as {@code examples/router.profile.yaml}.
     */
    public static Path siblingProfile(final Path configPath)
    {
        final String name = configPath.getFileName().toString();
        final int dot = name.lastIndexOf('.');
        final String stem = dot > 0 ? name.substring(0, dot) : name;
        return configPath.resolveSibling(stem + ".profile.yaml");
    }

    /**
     * Where the bundled example lives: the {@value #HOME_PROPERTY} property when set, else the working directory when it
     * holds the example, else the nearest ancestor of this class's jar or classes directory that holds it.
     */
    private static Path home()
    {
        final String home = System.getProperty(HOME_PROPERTY);
        if (home != null && !home.isEmpty())
        {
            return Path.of(home).normalize();
        }
        final Path here = Path.of("");
        if (Files.isRegularFile(here.resolve(EXAMPLE_CONFIG)))
        {
            return here;
        }
        try
        {
            Path dir = Path.of(SimulateCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            while (dir != null)
            {
                if (Files.isRegularFile(dir.resolve(EXAMPLE_CONFIG)))
                {
                    return dir;
                }
                dir = dir.getParent();
            }
        }
        catch (final URISyntaxException | RuntimeException ex)
        {
            // No code source to search from: fall back to the working directory, whose error names the path tried.
        }
        return here;
    }

    /** A path as the user would type it: relative to the working directory when it lies under it. */
    private static Path shown(final Path path)
    {
        final Path here = Path.of("").toAbsolutePath();
        final Path absolute = path.toAbsolutePath().normalize();
        return path.isAbsolute() && absolute.startsWith(here) ? here.relativize(absolute) : path;
    }

    private static String trim(final double value)
    {
        return value == Math.rint(value) ? String.format(Locale.ROOT, "%.0f", value) : String.valueOf(value);
    }

    /** Prints interval lines on stdout and keeps a progress line on stderr out of their way. */
    private final class Progress implements SimulationListener
    {
        private final SimulationProfile traffic;
        private final boolean console = System.console() != null;
        private int lastQuarter;
        private boolean shown;

        Progress(final SimulationProfile traffic)
        {
            this.traffic = traffic;
        }

        @Override
        public void onInterval(final IntervalRow row)
        {
            clear();
            out.print(TextReport.line(row, traffic));
            out.flush();
        }

        @Override
        public void onProgress(final double simulatedS, final double durationS, final long requests)
        {
            final String line = String.format(Locale.ROOT, "simulated %.0f/%.0f s, %d requests", simulatedS, durationS,
                requests);
            if (console)
            {
                err.print('\r' + line);
                err.flush();
                shown = true;
            }
            else
            {
                final int quarter = (int)(4 * simulatedS / durationS);
                if (quarter > lastQuarter)
                {
                    lastQuarter = quarter;
                    err.println(line);
                }
            }
        }

        void clear()
        {
            if (shown)
            {
                err.print("\r\033[K");
                err.flush();
                shown = false;
            }
        }
    }
}
