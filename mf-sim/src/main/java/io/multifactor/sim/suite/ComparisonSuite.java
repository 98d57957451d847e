package io.multifactor.sim.suite;

import io.multifactor.api.ConfigProblem;
import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.config.ConfigLoader;
import io.multifactor.config.LoadedConfig;
import io.multifactor.kernel.plan.AlgorithmType;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.serving.BackendChooser;
import io.multifactor.sim.FleetSimulator;
import io.multifactor.sim.ProfileReader;
import io.multifactor.sim.SimulationProfile;
import io.multifactor.sim.SteadyFigures;
import io.multifactor.sim.load.PolicyComparison;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

/**
 * The comparison suite of {@code bin/mf compare --suite DIR}: per scenario of DIR the load knee ({@link LoadKnee}, with
 * round-robin on seed 1), then every policy x seed at the knee in the simulator, a warm-up then the measured seconds,
 * each run's figures kept as {@link SuiteColumn} values. The policies are every {@code algorithm.type} the kernel
 * accepts ({@link AlgorithmType#labels()}, read when the suite runs) and, for a scenario with one, its recommended
 * {@code multi_factor} configuration ({@value #RECOMMENDED}). Runs are independent (each its own engine, clock and
 * seeded draws), so they go to a pool of threads and give the same figures whatever the pool's size.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class ComparisonSuite
{
    /** The row of a scenario's recommended configuration. */
    public static final String RECOMMENDED = "recommended";

    /** Router replicas of a scenario whose configuration has a {@code fleet:} block. */
    public static final int FLEET_REPLICAS = 16;

    /** Simulated seconds of warm-up before the measured part of each run. */
    public static final double WARMUP_S = 20.0;

    /** Simulated seconds measured in each run. */
    public static final double MEASURED_S = 120.0;

    private static final String PROFILE_SUFFIX = ".profile.yaml";

    /** Told about the suite's progress, from the pool's threads (one call at a time is the listener's concern). */
    @FunctionalInterface
    public interface Progress
    {
        /** @param line one line of progress. */
        void line(String line);
    }

    private ComparisonSuite()
    {
    }

    /**
     * @return every policy the suite runs, in table order: each {@code algorithm.type} the kernel accepts, then
     *     {@value #RECOMMENDED}.
     */
    public static List<String> policies()
    {
        final List<String> names = new ArrayList<>(List.of(AlgorithmType.labels()));
        names.add(RECOMMENDED);
        return names;
    }

    /**
     * The one place where a policy becomes a configuration: {@value #RECOMMENDED} is the scenario's recommended file;
     * an {@code algorithm.type} word is the scenario's configuration with every decision's type swapped to it
     * ({@link PolicyComparison#withType}). This is also where a policy whose rule lives at backend level (a model's
     * {@code backend_choice: T}) is to become a configuration: {@code round_robin} at model level with
     * {@code backend_choice: T} on every model that has backends, its word added to {@link #policies()}; no such
     * policy exists yet.
     *
     * @param scenario the scenario.
     * @param policy one of {@link #policies()}.
     * @return its configuration, or null when the scenario has no recommended configuration.
     * @throws IllegalArgumentException for an unknown policy.
     */
    public static LoadedConfig configFor(final Scenario scenario, final String policy)
    {
        if (RECOMMENDED.equals(policy))
        {
            return scenario.recommendedOrNull();
        }
        final int type = AlgorithmType.parse(policy);
        if (type < 0)
        {
            throw new IllegalArgumentException("unknown policy \"" + policy + "\" (expected one of " + policies() + ')');
        }
        return PolicyComparison.withType(scenario.config(), type);
    }

    /**
     * Reads every scenario of a folder: each {@code NAME.profile.yaml} with its {@code NAME.yaml} (required) and
     * {@code NAME.recommended.yaml} (optional), in file-name order. The profile must fit both configurations, and
     * the recommended one must route the scenario's decisions. Every run, whatever its configuration, is judged by
     * the TTFT and TPOT ceilings of the scenario's {@code NAME.yaml} (the SLO): the recommended configuration may set
     * its own ceilings as filters, or none.
     *
     * @param dir the folder.
     * @return its scenarios.
     * @throws InvalidConfigurationException with the problems of the first file that has any.
     * @throws IOException when the folder cannot be listed.
     */
    public static List<Scenario> load(final Path dir) throws InvalidConfigurationException, IOException
    {
        final List<Path> profiles = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir))
        {
            files.filter(p -> p.getFileName().toString().endsWith(PROFILE_SUFFIX)).sorted().forEach(profiles::add);
        }
        final List<Scenario> scenarios = new ArrayList<>();
        for (final Path profileFile : profiles)
        {
            final String file = profileFile.getFileName().toString();
            final String name = file.substring(0, file.length() - PROFILE_SUFFIX.length());
            final Path configFile = profileFile.resolveSibling(name + ".yaml");
            if (!Files.isRegularFile(configFile))
            {
                throw new InvalidConfigurationException(List.of(new ConfigProblem(profileFile.toString(), 0, 0, "",
                    "scenario " + name + " has no configuration: expected " + configFile)));
            }
            final LoadedConfig config = ConfigLoader.load(configFile);
            final SimulationProfile profile = ProfileReader.read(profileFile, config.plans());
            final Path recommendedFile = profileFile.resolveSibling(name + ".recommended.yaml");
            LoadedConfig recommended = null;
            if (Files.isRegularFile(recommendedFile))
            {
                recommended = ConfigLoader.load(recommendedFile);
                ProfileReader.read(profileFile, recommended.plans());
                sameDecisions(config, recommended);
            }
            scenarios.add(new Scenario(name, profileFile, profile, config, recommended,
                config.config().fleet().enabled() ? FLEET_REPLICAS : 1));
        }
        if (scenarios.isEmpty())
        {
            throw new InvalidConfigurationException(List.of(new ConfigProblem(dir.toString(), 0, 0, "",
                "no scenario: expected NAME.profile.yaml files with their NAME.yaml beside them")));
        }
        return scenarios;
    }

    private static void sameDecisions(final LoadedConfig scenario, final LoadedConfig recommended)
        throws InvalidConfigurationException
    {
        final Plans base = scenario.plans();
        final Plans rec = recommended.plans();
        final List<ConfigProblem> problems = new ArrayList<>();
        for (int id = 0; id < base.decisionCapacity(); id++)
        {
            final DecisionPlan plan = base.decision(id);
            if (plan != null && rec.decisionId(plan.name()) < 0)
            {
                problems.add(new ConfigProblem(recommended.file(), 0, 0, "decisions", "has no decision \"" +
                    plan.name() + "\" of the scenario's " + scenario.file() + ": the recommended configuration " +
                    "routes the same decisions"));
            }
        }
        if (!problems.isEmpty())
        {
            throw new InvalidConfigurationException(problems);
        }
    }

    /**
     * One run: the scenario's traffic at a rate and seed, through a configuration.
     *
     * @param scenario the scenario.
     * @param config the configuration (of {@link #configFor}).
     * @param ratePerS arrivals per second.
     * @param seed the seed.
     * @param warmupS simulated seconds of warm-up.
     * @param measuredS simulated seconds measured.
     * @return the figures of the arrivals after the warm-up, judged by the scenario's ceilings.
     */
    public static SteadyFigures run(final Scenario scenario, final LoadedConfig config, final double ratePerS,
        final long seed, final double warmupS, final double measuredS)
    {
        final SimulationProfile profile = scenario.profile().withArrivalsPerS(ratePerS).withSeed(seed)
            .withDurationS(warmupS + measuredS);
        // API keys are never sent in a simulation: an empty environment.
        final BackendChooser chooser = profile.servers().isEmpty() ? null : BackendChooser.of(config, Map.of());
        final long exchangeEveryNs = config.config().fleet().exchangeEveryNs();
        return new FleetSimulator(config.plans(), config.signalSettings(), profile, scenario.replicas(),
            scenario.replicas() > 1, exchangeEveryNs, chooser)
            .withServers(config.serverMetrics(), config.serverBackends()).followingServers(config)
            .runMeasured(warmupS, scenario.config().plans());
    }

    /**
     * @param scenario a scenario.
     * @param warmupS simulated seconds of warm-up per probe.
     * @param measuredS simulated seconds measured per probe.
     * @return its knee: round-robin on seed 1.
     */
    public static LoadKnee.Knee knee(final Scenario scenario, final double warmupS, final double measuredS)
    {
        final LoadedConfig roundRobin = configFor(scenario, AlgorithmType.label(AlgorithmType.ROUND_ROBIN));
        return LoadKnee.find(rate -> run(scenario, roundRobin, rate, 1L, warmupS, measuredS).sloAttainment());
    }

    /**
     * Runs the suite: the knees first, then every scenario x policy x seed at its scenario's knee.
     *
     * @param scenarios the scenarios.
     * @param policies the rows, each one of {@link #policies()} ({@value #RECOMMENDED} is left out of a scenario
     *     without a recommended configuration).
     * @param seeds seeds 1..seeds per policy, >= 1.
     * @param warmupS simulated seconds of warm-up per run.
     * @param measuredS simulated seconds measured per run.
     * @param threads threads of the pool, >= 1.
     * @param progress told about progress.
     * @return one result per scenario, in order.
     * @throws InterruptedException when interrupted while waiting for the runs.
     */
    public static List<ScenarioResult> run(final List<Scenario> scenarios, final List<String> policies,
        final int seeds, final double warmupS, final double measuredS, final int threads, final Progress progress)
        throws InterruptedException
    {
        for (final String policy : policies)
        {
            if (!policies().contains(policy))
            {
                throw new IllegalArgumentException("unknown policy \"" + policy + "\" (expected one of " + policies() +
                    ')');
            }
        }
        final long startNs = System.nanoTime();
        final ExecutorService pool = Executors.newFixedThreadPool(threads);
        try
        {
            final List<Future<LoadKnee.Knee>> knees = new ArrayList<>();
            for (final Scenario scenario : scenarios)
            {
                knees.add(pool.submit(() ->
                {
                    final LoadKnee.Knee knee = onFreshThread(() -> knee(scenario, warmupS, measuredS));
                    progress.line(String.format(java.util.Locale.ROOT, "suite: %s: knee %.1f requests/s (%d probes)%s" +
                        " [%.0f s]", scenario.name(), knee.ratePerS(), knee.probes(),
                        knee.bound() == LoadKnee.FOUND ? "" : ", " + knee.boundNote(), (System.nanoTime() - startNs) / 1e9));
                    return knee;
                }));
            }
            final List<List<String>> rows = new ArrayList<>();
            final List<double[][][]> values = new ArrayList<>();
            final List<Future<?>> runs = new ArrayList<>();
            int total = 0;
            for (final Scenario scenario : scenarios)
            {
                final List<String> mine = new ArrayList<>();
                for (final String policy : policies)
                {
                    if (!RECOMMENDED.equals(policy) || scenario.recommendedOrNull() != null)
                    {
                        mine.add(policy);
                    }
                }
                rows.add(mine);
                values.add(new double[mine.size()][seeds][]);
                total += mine.size() * seeds;
            }
            final int all = total;
            final java.util.concurrent.atomic.AtomicInteger done = new java.util.concurrent.atomic.AtomicInteger();
            for (int s = 0; s < scenarios.size(); s++)
            {
                final Scenario scenario = scenarios.get(s);
                final LoadKnee.Knee knee = get(knees.get(s));
                final List<String> mine = rows.get(s);
                final double[][][] cells = values.get(s);
                for (int p = 0; p < mine.size(); p++)
                {
                    final LoadedConfig config = configFor(scenario, mine.get(p));
                    for (int seed = 1; seed <= seeds; seed++)
                    {
                        final int row = p;
                        final int column = seed - 1;
                        final long runSeed = seed;
                        runs.add(pool.submit(() ->
                        {
                            final SteadyFigures figures = onFreshThread(() -> run(scenario, config, knee.ratePerS(),
                                runSeed, warmupS, measuredS));
                            final double[] cell = new double[SuiteColumn.values().length];
                            for (final SuiteColumn c : SuiteColumn.values())
                            {
                                cell[c.ordinal()] = c.of(figures);
                            }
                            cells[row][column] = cell;
                            final int n = done.incrementAndGet();
                            if (n == all || n % Math.max(1, all / 20) == 0)
                            {
                                progress.line(String.format(java.util.Locale.ROOT, "suite: runs %d/%d (%s, %s, seed " +
                                    "%d) [%.0f s]", n, all, scenario.name(), mine.get(row), runSeed,
                                    (System.nanoTime() - startNs) / 1e9));
                            }
                            return null;
                        }));
                    }
                }
            }
            for (final Future<?> run : runs)
            {
                get(run);
            }
            final List<ScenarioResult> results = new ArrayList<>();
            for (int s = 0; s < scenarios.size(); s++)
            {
                results.add(new ScenarioResult(scenarios.get(s), get(knees.get(s)), List.copyOf(rows.get(s)),
                    values.get(s)));
            }
            return results;
        }
        finally
        {
            pool.shutdownNow();
        }
    }

    // Each simulation on a thread of its own that ends with it: an engine keeps per-thread state (its counter blocks)
    // in thread-locals, whose values a long-lived pool thread would keep reachable, with their direct buffers, after
    // the engine is closed (measured: 6 GB of direct memory after 300 runs of the fleet scenario on two pool threads).
    private static <T> T onFreshThread(final java.util.concurrent.Callable<T> work) throws InterruptedException
    {
        final java.util.concurrent.FutureTask<T> task = new java.util.concurrent.FutureTask<>(work);
        final Thread thread = new Thread(task, "mf-suite-run");
        thread.start();
        thread.join();
        return get(task);
    }

    private static <T> T get(final Future<T> future) throws InterruptedException
    {
        try
        {
            return future.get();
        }
        catch (final ExecutionException ex)
        {
            final Throwable cause = ex.getCause();
            if (cause instanceof RuntimeException)
            {
                throw (RuntimeException)cause;
            }
            throw new IllegalStateException(cause);
        }
    }
}
