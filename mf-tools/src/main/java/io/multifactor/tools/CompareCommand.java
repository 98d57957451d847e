package io.multifactor.tools;

import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.config.ConfigLoader;
import io.multifactor.config.LoadedConfig;
import io.multifactor.fakes.BackendsProfile;
import io.multifactor.kernel.plan.AlgorithmType;
import io.multifactor.sim.load.LoadProfile;
import io.multifactor.sim.load.LoadProfileReader;
import io.multifactor.sim.load.PolicyComparison;
import io.multifactor.sim.suite.ComparisonSuite;
import io.multifactor.sim.suite.Scenario;
import io.multifactor.sim.suite.ScenarioResult;
import io.multifactor.tools.report.GatewaySuiteReport;
import io.multifactor.tools.report.LoadChartReport;
import io.multifactor.tools.report.SuiteChartReport;
import io.multifactor.tools.report.SuiteTextReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code bin/mf compare}: the policy comparison. For {@code multi_factor} and each baseline in turn, starts the fake
 * backends of a backends profile and an in-process gateway on loopback ports serving the configuration with every
 * decision's type swapped, sends the same seeded load, and prints one table (attainment, p50/p99 TTFT and TPOT,
 * errors, which models served) and a verdict line; optionally a chart. The ceilings are those of the load profile's
 * decision in the configuration, unless the profile sets its own. With {@code --suite DIR}, the comparison suite in the
 * simulator ({@link ComparisonSuite}), then with {@code --through-gateway} some of its scenarios through the gateway
 * and fake servers ({@link GatewaySuite}).
 * <p>
 * Exit codes ({@link ExitCodes}): 0 done (whatever the verdict), 2 invalid input (a refused file, a port taken, an
 * output file that cannot be created), 1 an output file that failed while being written.
 * <p>
 * This class is not threadsafe: picocli creates one instance per invocation.
 */
@Command(
    name = "compare",
    mixinStandardHelpOptions = true,
    versionProvider = MfVersion.class,
    description = {
        "Compare multi_factor with the baseline policies under the same seeded load through the gateway;",
        "with --suite, every policy on the scenarios of a folder in the simulator, each at its load knee;",
        "with --suite and --through-gateway, then scenarios 1, 2 and 5 through the gateway and fake servers too.",
        "Defaults: examples/gateway.yaml, examples/backends.yaml, examples/load.yaml." })
public final class CompareCommand implements Callable<Integer>
{
    @Option(names = "--config", paramLabel = "CONFIG", description = "gateway configuration (default: " +
        "examples/gateway.yaml)")
    Path config;

    @Option(names = "--backends", paramLabel = "PROFILE", description = "fake backends its backend_refs point at " +
        "(default: " + BackendsCommand.EXAMPLE_PROFILE + ")")
    Path backends;

    @Option(names = "--profile", paramLabel = "PROFILE", description = "load profile (default: " +
        LoadCommand.EXAMPLE_PROFILE + ")")
    Path profile;

    @Option(names = "--seed", paramLabel = "S", description = "seed of the arrivals (default: the load profile's)")
    Long seed;

    @Option(names = "--policies", paramLabel = "LIST", split = ",", description = "policies to run, in order " +
        "(default: multi_factor,round_robin,random,least_inflight,lowest_latency; the peers' policies " +
        "litellm_simple_shuffle,litellm_least_busy,aibrix_least_request run when listed)")
    List<String> policies;

    @Option(names = "--warmup", paramLabel = "SECONDS", description = "seconds of a first, discarded run that warms " +
        "the JIT up, also before the runs of --through-gateway (default: 3; 0: none)")
    double warmupS = 3.0;

    @Option(names = "--plot", paramLabel = "FILE.png", description = "draw attainment and p95 TTFT per policy over " +
        "time (PNG, or JPEG for a .jpg or .jpeg name)")
    Path plot;

    @Option(names = "--suite", paramLabel = "DIR", description = "run the comparison suite of the scenarios in DIR " +
        "(NAME.profile.yaml, NAME.yaml, NAME.recommended.yaml) in the simulator: per scenario the load knee, then every " +
        "policy x seed at the knee; prints a table per scenario and writes a chart per scenario")
    Path suite;

    @Option(names = "--seeds", paramLabel = "N", description = "with --suite: seeds 1..N per policy (default: 5)")
    int seeds = 5;

    @Option(names = "--out", paramLabel = "DIR", description = "with --suite: where the charts go (default: " +
        "compare-suite)")
    Path out;

    @Option(names = "--seconds", paramLabel = "S", description = "with --suite: simulated seconds measured per run, " +
        "after the warm-up (default: 120)")
    double measuredS = ComparisonSuite.MEASURED_S;

    @Option(names = "--warmup-seconds", paramLabel = "S", description = "with --suite: simulated seconds of warm-up " +
        "per run, not measured (default: 20)")
    double suiteWarmupS = ComparisonSuite.WARMUP_S;

    @Option(names = "--threads", paramLabel = "N", description = "with --suite: simulations run at once (default: " +
        "the number of processors)")
    int threads = Runtime.getRuntime().availableProcessors();

    @Option(names = "--through-gateway", description = "with --suite: then run scenarios 1, 2 and 5 (--gateway-" +
        "scenarios) through bin/mf serve's gateway, in this process, and fake model servers on loopback ports: every " +
        "policy, seed 1, at the knee the simulator found; prints a table per scenario")
    boolean throughGateway;

    @Option(names = "--gateway-seconds", paramLabel = "S", description = "with --through-gateway: seconds of load " +
        "per policy and scenario (default: 60)")
    double gatewayS = GatewaySuite.RUN_S;

    @Option(names = "--gateway-rate", paramLabel = "R", description = "with --through-gateway: arrivals per second " +
        "of every run (default: each scenario's knee in the simulator)")
    double gatewayRatePerS = Double.NaN;

    @Option(names = "--gateway-scenarios", paramLabel = "LIST", split = ",", description = "with --through-gateway: " +
        "the scenarios run through the gateway (default: those of " +
        "1-degrading,2-chat-sessions,5-failing-model the folder has)")
    List<String> gatewayScenarios;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call()
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        if (suite != null)
        {
            return runSuite(out, err);
        }
        final Path configPath = config != null ? config : Home.path().resolve("examples/gateway.yaml");
        final Path backendsPath = backends != null ? backends : Home.path().resolve(BackendsCommand.EXAMPLE_PROFILE);
        final Path loadPath = profile != null ? profile : Home.path().resolve(LoadCommand.EXAMPLE_PROFILE);
        final List<Integer> types = new ArrayList<>();
        // By default the baselines written here, as before the peers' policies came: those are opted in by name.
        final List<String> names = policies != null ? policies :
            List.of(AlgorithmType.labels()).subList(0, AlgorithmType.FIRST_PEER);
        for (final String name : names)
        {
            final int type = AlgorithmType.parse(name.trim());
            if (type < 0)
            {
                err.println("--policies: unknown policy \"" + name + "\" (expected " +
                    String.join(", ", AlgorithmType.labels()) + ')');
                return ExitCodes.INVALID_INPUT;
            }
            types.add(type);
        }
        if (!(warmupS >= 0.0 && warmupS <= 3600.0))
        {
            err.println("--warmup: must be in [0, 3600] seconds, got " + warmupS);
            return ExitCodes.INVALID_INPUT;
        }
        final String problem = LoadCommand.outputProblems(null, plot);
        if (problem != null)
        {
            err.println(problem);
            return ExitCodes.INVALID_INPUT;
        }
        final LoadedConfig loaded;
        final BackendsProfile servers;
        LoadProfile load;
        try
        {
            loaded = ConfigLoader.load(configPath);
            servers = BackendsProfileReader.read(backendsPath);
            load = LoadCommand.withDecisionCeilings(LoadProfileReader.read(loadPath), loaded, err);
            if (load == null)
            {
                return ExitCodes.INVALID_INPUT;
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
        final List<PolicyComparison.Run> runs;
        try
        {
            runs = GatewayComparison.run(loaded, servers, load, types, warmupS, (policy, line) ->
            {
                err.println(String.format(Locale.ROOT, "%-15s %s", policy, line));
                err.flush();
            });
        }
        catch (final IOException | IllegalStateException ex)
        {
            err.println("compare: " + ex.getMessage());
            return ExitCodes.INVALID_INPUT;
        }
        out.print(PolicyComparison.table(runs));
        out.println(String.format(Locale.ROOT, "SLO: max_ttft_ms %s, max_tpot_ms %s; seed %d; %d requests per policy " +
            "at %.0f/s", ceiling(load.maxTtftMs()), ceiling(load.maxTpotMs()), load.seed(), runs.get(0).results().count(),
            load.arrivalsPerS()));
        if (types.get(0) == AlgorithmType.MULTI_FACTOR)
        {
            out.println(PolicyComparison.verdict(runs));
        }
        out.flush();
        if (plot != null)
        {
            try
            {
                LoadChartReport.writeComparison(PolicyComparison.timelines(runs, load.intervalS(), load),
                    String.format(Locale.ROOT, "bin/mf compare: %s, %s, seed %d", shown(config, "examples/gateway.yaml"),
                        shown(profile, LoadCommand.EXAMPLE_PROFILE), load.seed()),
                    load.maxTtftMs(), plot);
            }
            catch (final IOException ex)
            {
                err.println("compare: writing failed: " + ex.getMessage());
                return ExitCodes.INTERNAL_ERROR;
            }
        }
        return ExitCodes.OK;
    }

    // --suite: the scenarios of a folder in the simulator, every policy x seed at each one's knee.
    private int runSuite(final PrintWriter stdout, final PrintWriter err)
    {
        if (seeds < 1 || seeds > 1000)
        {
            err.println("--seeds: must be in 1..1000, got " + seeds);
            return ExitCodes.INVALID_INPUT;
        }
        if (!(measuredS > 0.0 && measuredS <= 86_400.0) || !(suiteWarmupS >= 0.0 && suiteWarmupS <= 86_400.0))
        {
            err.println("--seconds must be in (0, 86400] and --warmup-seconds in [0, 86400], got " + measuredS + " and " +
                suiteWarmupS);
            return ExitCodes.INVALID_INPUT;
        }
        if (threads < 1 || threads > 256)
        {
            err.println("--threads: must be in 1..256, got " + threads);
            return ExitCodes.INVALID_INPUT;
        }
        final List<String> names = new ArrayList<>();
        for (final String name : policies != null ? policies : ComparisonSuite.policies())
        {
            if (!ComparisonSuite.policies().contains(name.trim()))
            {
                err.println("--policies: unknown policy \"" + name + "\" (expected " +
                    String.join(", ", ComparisonSuite.policies()) + ')');
                return ExitCodes.INVALID_INPUT;
            }
            names.add(name.trim());
        }
        final Path charts = out != null ? out : Path.of("compare-suite");
        final List<Scenario> scenarios;
        try
        {
            if (!Files.isDirectory(suite))
            {
                err.println("--suite: " + suite + " is not a folder");
                return ExitCodes.INVALID_INPUT;
            }
            scenarios = ComparisonSuite.load(suite);
            Files.createDirectories(charts);
        }
        catch (final InvalidConfigurationException ex)
        {
            return Problems.report(err, ex.problems().get(0).file(), ex);
        }
        catch (final IOException ex)
        {
            err.println("compare: " + ex.getMessage());
            return ExitCodes.INVALID_INPUT;
        }
        final List<Scenario> viaGateway = throughGateway ? gatewayScenarios(scenarios, err) : List.of();
        if (viaGateway == null)
        {
            return ExitCodes.INVALID_INPUT;
        }
        final long startNs = System.nanoTime();
        final List<ScenarioResult> results;
        try
        {
            results = ComparisonSuite.run(scenarios, names, seeds, suiteWarmupS, measuredS, threads, line ->
            {
                synchronized (err)
                {
                    err.println(line);
                    err.flush();
                }
            });
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            err.println("compare: interrupted");
            return ExitCodes.INTERNAL_ERROR;
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("compare: " + ex.getMessage());
            return ExitCodes.INVALID_INPUT;
        }
        for (final ScenarioResult result : results)
        {
            stdout.println(SuiteTextReport.render(result, seeds, measuredS));
        }
        stdout.println(String.format(Locale.ROOT, "%d scenarios x %d policies x %d seeds (%.0f s warm-up + %.0f s " +
            "measured each), %.0f s on %d threads; %s marks the best of a column (mean over the seeds)",
            results.size(), names.size(), seeds, suiteWarmupS, measuredS, (System.nanoTime() - startNs) / 1e9, threads,
            SuiteTextReport.BEST));
        stdout.flush();
        try
        {
            for (final ScenarioResult result : results)
            {
                final Path chart = charts.resolve(SuiteChartReport.fileName(result.scenario().name()));
                SuiteChartReport.write(result, String.format(Locale.ROOT, "bin/mf compare --suite: %s at %.1f " +
                    "requests/s, %d seeds", result.scenario().name(), result.knee().ratePerS(), seeds), chart);
                err.println("wrote " + chart);
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            err.println("compare: writing a chart failed: " + ex.getMessage());
            return ExitCodes.INTERNAL_ERROR;
        }
        return viaGateway.isEmpty() ? ExitCodes.OK : runThroughGateway(results, viaGateway, stdout, err);
    }

    // --through-gateway: which scenarios; null (after saying why on stderr) when the selection is refused.
    private List<Scenario> gatewayScenarios(final List<Scenario> scenarios, final PrintWriter err)
    {
        if (!(gatewayS >= 1.0 && gatewayS <= 86_400.0))
        {
            err.println("--gateway-seconds: must be in [1, 86400], got " + gatewayS);
            return null;
        }
        if (!(warmupS >= 0.0 && warmupS <= 3600.0))
        {
            err.println("--warmup: must be in [0, 3600] seconds, got " + warmupS);
            return null;
        }
        if (!Double.isNaN(gatewayRatePerS) && !(gatewayRatePerS >= 0.1 && gatewayRatePerS <= 2000.0))
        {
            err.println("--gateway-rate: must be in [0.1, 2000] requests/s, got " + gatewayRatePerS);
            return null;
        }
        final List<String> names = new ArrayList<>();
        for (final String name : gatewayScenarios != null ? gatewayScenarios : GatewaySuite.SCENARIOS)
        {
            names.add(name.trim());
        }
        final List<Scenario> chosen = new ArrayList<>();
        for (final String name : names)
        {
            Scenario found = null;
            for (final Scenario scenario : scenarios)
            {
                found = scenario.name().equals(name) ? scenario : found;
            }
            if (found == null && gatewayScenarios != null)
            {
                final List<String> have = new ArrayList<>();
                for (final Scenario scenario : scenarios)
                {
                    have.add(scenario.name());
                }
                err.println("--gateway-scenarios: no scenario \"" + name + "\" in " + suite + " (it has " +
                    String.join(", ", have) + ')');
                return null;
            }
            final String why = found == null ? null : ScenarioServers.unsupported(found);
            if (why != null)
            {
                err.println("--gateway-scenarios: scenario " + name + " cannot run through the gateway: " + why);
                return null;
            }
            if (found != null)
            {
                chosen.add(found);
            }
        }
        if (chosen.isEmpty())
        {
            err.println("--through-gateway: " + suite + " has none of the scenarios " + String.join(", ", names) +
                ": name those to run with --gateway-scenarios");
            return null;
        }
        return chosen;
    }

    private int runThroughGateway(final List<ScenarioResult> simulated, final List<Scenario> viaGateway,
        final PrintWriter stdout, final PrintWriter err)
    {
        final long startNs = System.nanoTime();
        int rows = 0;
        double jitWarmupS = warmupS;
        for (final ScenarioResult result : simulated)
        {
            if (!viaGateway.contains(result.scenario()))
            {
                continue;
            }
            final GatewaySuite.Result run;
            try
            {
                run = GatewaySuite.run(result, gatewayRatePerS, gatewayS, suiteWarmupS, jitWarmupS, line ->
                {
                    synchronized (err)
                    {
                        err.println(line);
                        err.flush();
                    }
                });
            }
            catch (final IOException | IllegalStateException ex)
            {
                err.println("compare: through the gateway: " + ex.getMessage());
                return ExitCodes.INVALID_INPUT;
            }
            jitWarmupS = 0.0;
            rows += run.table().policies().size();
            stdout.println(GatewaySuiteReport.render(run.table(), run.simulated(), run.ratePerS(), run.runS(),
                run.measuredFromS(), run.sent(), run.measured(), run.inflightAfter()));
            stdout.flush();
        }
        stdout.println(String.format(Locale.ROOT, "%d scenarios x their policies (%d runs) through the gateway, seed 1, " +
            "%.0f s of load each, in %.0f s; %s marks the best of a column", viaGateway.size(), rows, gatewayS,
            (System.nanoTime() - startNs) / 1e9, SuiteTextReport.BEST));
        stdout.flush();
        return ExitCodes.OK;
    }

    private static String shown(final Path given, final String bundled)
    {
        return given != null ? given.toString() : bundled;
    }

    private static String ceiling(final double ms)
    {
        return ms > 0.0 ? String.format(Locale.ROOT, "%.0f", ms) : "none";
    }
}
