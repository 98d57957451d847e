package io.multifactor.tools;

import io.multifactor.config.LoadedConfig;
import io.multifactor.gateway.Gateway;
import io.multifactor.gateway.GatewayOptions;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.sim.SteadyFigures;
import io.multifactor.sim.load.LoadGenerator;
import io.multifactor.sim.load.LoadProfile;
import io.multifactor.sim.load.LoadResults;
import io.multifactor.sim.suite.ComparisonSuite;
import io.multifactor.sim.suite.Scenario;
import io.multifactor.sim.suite.ScenarioResult;
import io.multifactor.sim.suite.SuiteColumn;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The runs of {@code bin/mf compare --suite DIR --through-gateway}: a scenario the simulator has run, now through the
 * gateway of {@code bin/mf serve} (in this process, on a free loopback port) in front of the fake model servers that
 * {@link ScenarioServers} derives from it: every policy of the simulator's table in turn, one seed, at the knee the
 * simulator found, each run with freshly started servers and gateway (so each meets the same windows from its first
 * request). The figures are those of the simulator's table ({@link SteadyFigures#ofLoad}), with the scenario's warm-up
 * at the same share of the run. After each run's drain the gateway's in-flight counts must be back at 0 (every lease
 * ended); the count found is reported. One run at a time; gateway, servers and load share the machine.
 * <p>
 * This class is stateless and threadsafe (each run has its own gateway, servers and client).
 */
final class GatewaySuite
{
    /** Seconds of arrivals of each run, by default. */
    static final double RUN_S = 60.0;

    /** The seed of every run's arrivals and servers. */
    static final long SEED = 1L;

    /** The scenarios run through the gateway by default, when the folder has them. */
    static final List<String> SCENARIOS = List.of("1-degrading", "2-chat-sessions", "5-failing-model");

    private static final long INFLIGHT_WAIT_MS = 5_000;

    /** Told about the runs' progress, on the calling thread or the load's event loop (one call at a time). */
    @FunctionalInterface
    interface Progress
    {
        /** @param line one line of progress. */
        void line(String line);
    }

    /**
     * One scenario through the gateway.
     *
     * @param table the figures, one seed per row, in the simulator's rows' order.
     * @param simulated the simulator's result of the same scenario.
     * @param ratePerS arrivals per second of each run.
     * @param runS seconds of arrivals of each run.
     * @param measuredFromS seconds of each run's warm-up (arrivals before are not measured).
     * @param sent requests each run sent (the same arrivals for every policy).
     * @param measured of them, those measured.
     * @param inflightAfter per row, the gateway's in-flight requests after the run's drain (0: every lease ended).
     */
    record Result(ScenarioResult table, ScenarioResult simulated, double ratePerS, double runS, double measuredFromS,
        int sent,
        int measured, long[] inflightAfter)
    {
    }

    private GatewaySuite()
    {
    }

    /**
     * Runs every row of the simulator's table of one scenario through the gateway.
     *
     * @param simulated the simulator's result for a scenario {@link ScenarioServers#unsupported} accepts.
     * @param rateOrNaN arrivals per second, or NaN for the knee the simulator found.
     * @param runS seconds of arrivals per run, > 0.
     * @param suiteWarmupS the suite's warm-up, simulated seconds (mapped onto the run as the scenario's windows are).
     * @param jitWarmupS seconds of a discarded run of the first row before the others, so that the first row does not
     *     pay for the JIT's warm-up (0: none).
     * @param progress told about progress.
     * @return the result.
     * @throws IOException when a gateway cannot listen.
     * @throws IllegalStateException when a fake server cannot listen, or a run does not end.
     */
    static Result run(final ScenarioResult simulated, final double rateOrNaN, final double runS,
        final double suiteWarmupS,
        final double jitWarmupS, final Progress progress) throws IOException
    {
        final Scenario scenario = simulated.scenario();
        final double ratePerS = Double.isNaN(rateOrNaN) ? simulated.knee().ratePerS() : rateOrNaN;
        final double measuredFromS = Math.min(ScenarioServers.startS(suiteWarmupS, runS, scenario.profile()),
            runS / 2.0);
        final LoadProfile load = ScenarioServers.load(scenario, ratePerS, runS, SEED, Math.max(1.0, runS / 6.0));
        final long startNs = System.nanoTime();
        final List<String> policies = simulated.policies();
        if (jitWarmupS > 0.0 && !policies.isEmpty())
        {
            runOne(scenario, policies.get(0), ScenarioServers.load(scenario, ratePerS, jitWarmupS, SEED, jitWarmupS),
                jitWarmupS, 0.0, "warm-up", progress, startNs);
        }
        final double[][][] values = new double[policies.size()][1][];
        final long[] inflightAfter = new long[policies.size()];
        int sent = 0;
        int measured = 0;
        for (int p = 0; p < policies.size(); p++)
        {
            final Run run = runOne(scenario, policies.get(p), load, runS, measuredFromS, policies.get(p), progress,
                startNs);
            final double[] cell = new double[SuiteColumn.values().length];
            for (final SuiteColumn column : SuiteColumn.values())
            {
                cell[column.ordinal()] = column.of(run.figures);
            }
            values[p][0] = cell;
            inflightAfter[p] = run.inflightAfter;
            sent = run.sent;
            measured = (int)run.figures.requests();
        }
        return new Result(new ScenarioResult(scenario, simulated.knee(), policies, values), simulated, ratePerS, runS,
            measuredFromS, sent, measured, inflightAfter);
    }

    /** One run's outcome. */
    private record Run(SteadyFigures figures, int sent, long inflightAfter)
    {
    }

    private static Run runOne(final Scenario scenario, final String policy, final LoadProfile load, final double runS,
        final double measuredFromS, final String label, final Progress progress, final long startNs) throws IOException
    {
        final LoadedConfig config = ComparisonSuite.configFor(scenario, policy);
        final ScheduledExecutorService clock = Executors.newSingleThreadScheduledExecutor(task ->
        {
            final Thread thread = new Thread(task, "mf-gateway-suite-snapshot");
            thread.setDaemon(true);
            return thread;
        });
        try (ScenarioServers servers = ScenarioServers.start(scenario, runS, SEED))
        {
            final LoadedConfig pointed = servers.pointAt(config);
            try (Gateway gateway = Gateway.start(pointed, GatewayOptions.defaults().withPort(0)))
            {
                progress.line(String.format(Locale.ROOT, "gateway: %s: %s: gateway 127.0.0.1:%d, servers 127.0.0.1:%s, " +
                    "%.1f requests/s for %.0f s [%.0f s]", scenario.name(), label, gateway.port(),
                    ports(servers.ports()), load.arrivalsPerS(), load.durationS(), elapsedS(startNs)));
                // The servers' prefix-cache counters when the warm-up ends, so that only the measured part counts.
                final AtomicReference<long[]> atWarmup = new AtomicReference<>(new long[2]);
                clock.schedule(() -> atWarmup.set(servers.prefixTokens()), (long)(measuredFromS * 1e9),
                    TimeUnit.NANOSECONDS);
                final LoadResults results = LoadGenerator.run("http://127.0.0.1:" + gateway.port(), load,
                    line -> progress.line("gateway: " + scenario.name() + ": " + label + ": " + line));
                final long inflight = inflightAfterDrain(gateway.engine(), pointed.plans());
                final long[] end = servers.prefixTokens();
                final long[] start = atWarmup.get();
                final SteadyFigures figures = SteadyFigures.ofLoad(results, measuredFromS, runS, load.maxTtftMs(),
                    load.maxTpotMs(), servers.cachesPrefixes() ? end[0] - start[0] : 0L, end[1] - start[1]);
                int ok = 0;
                int cut = 0;
                for (int i = 0; i < results.count(); i++)
                {
                    ok += results.ok(i) ? 1 : 0;
                    cut += results.status(i) == 0 ? 1 : 0;
                }
                progress.line(String.format(Locale.ROOT, "gateway: %s: %s: %d requests sent (%d complete 200s, %d " +
                    "errors, %d without an answer; the servers completed %d), %d measured, SLO attainment %.1f%%, in " +
                    "flight after the drain %d [%.0f s]", scenario.name(), label, results.count(), ok,
                    results.count() - ok - cut, cut, servers.completed(), figures.requests(), 100.0 * figures.sloAttainment(), inflight, elapsedS(startNs)));
                return new Run(figures, results.count(), inflight);
            }
        }
        finally
        {
            clock.shutdownNow();
        }
    }

    // The load generator returns once every response ended or was cut; the gateway sees a cut client's connection close
    // a moment later, and ends its lease then.
    private static long inflightAfterDrain(final MultiFactorEngine engine, final Plans plans)
    {
        final long deadlineNs = System.nanoTime() + INFLIGHT_WAIT_MS * 1_000_000L;
        long inflight = inflight(engine, plans);
        while (inflight != 0 && System.nanoTime() < deadlineNs)
        {
            try
            {
                Thread.sleep(10);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                break;
            }
            inflight = inflight(engine, plans);
        }
        return inflight;
    }

    private static long inflight(final MultiFactorEngine engine, final Plans plans)
    {
        long sum = 0;
        for (int id = 0; id < plans.modelCapacity(); id++)
        {
            if (plans.modelName(id) != null)
            {
                sum += engine.inflight(id);
            }
        }
        return sum;
    }

    private static String ports(final List<Integer> ports)
    {
        final List<String> text = new ArrayList<>();
        for (final int port : ports)
        {
            text.add(Integer.toString(port));
        }
        return String.join(",", text);
    }

    private static double elapsedS(final long startNs)
    {
        return (System.nanoTime() - startNs) / 1e9;
    }
}
