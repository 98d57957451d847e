package io.multifactor.sim;

import io.multifactor.config.ConfigLoader;
import io.multifactor.config.LoadedConfig;
import io.multifactor.serving.BackendChooser;
import io.multifactor.sim.suite.LoadKnee;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/**
 * The simulator figures of prefix-cache affinity that docs/gateway.md publishes, as a repeatable command (not a test:
 * it takes about half a minute). From the repository root (the sed puts this worktree's modules in place of the
 * snapshot jars in ~/.m2):
 * <pre>
 * mvn -o -q -pl mf-sim -am test-compile
 * mvn -o -q -pl mf-sim dependency:build-classpath -Dmdep.outputFile=target/cp.txt
 * java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp "mf-sim/target/test-classes:mf-sim/target/classes:$(
 *     sed -E 's#[^:]+/io/multifactor/(mf-[a-z]+)/[^:]+\.jar#\1/target/classes#g' mf-sim/target/cp.txt)" \
 *     io.multifactor.sim.PrefixAffinityFigures [seeds [affinity-config [profiles-dir]]]
 * </pre>
 * <p>
 * For the shared-prefix and chat-session profiles on one model with 8 backends ({@code examples/prefix.yaml}, the
 * backends chosen by weight: "round-robin"; {@code examples/prefix-affinity.yaml}: with affinity): the knee, the rate at
 * which round-robin's SLO attainment falls below 90%, by bisection between 1 and 2,000 requests/s to within 5% on seed
 * 1; then at the knee, per seed 1..N, SLO attainment, p90 TTFT, input tokens/s and the servers' prefix hit rate of
 * both, printed as ranges over the seeds. Then the hot-prefix profile with affinity at its own rate: each backend's
 * requests relative to the mean.
 * <p>
 * This class is not threadsafe: a command run once on one thread.
 */
final class PrefixAffinityFigures
{
    private PrefixAffinityFigures()
    {
    }

    /**
     * @param args the number of seeds (default 5), and the configuration with affinity (default
     *     {@code examples/prefix-affinity.yaml}), and the folder of the three profiles (default {@code examples}).
     * @throws Exception when an example does not load.
     */
    public static void main(final String[] args) throws Exception
    {
        final int seeds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        final LoadedConfig roundRobin = ConfigLoader.load(Path.of("examples", "prefix.yaml"));
        final LoadedConfig affinity = ConfigLoader.load(args.length > 1 ? Path.of(args[1]) :
            Path.of("examples", "prefix-affinity.yaml"));
        final Path profiles = Path.of(args.length > 2 ? args[2] : "examples");
        for (final String name : new String[] {"prefix-shared", "prefix-chat"})
        {
            final SimulationProfile profile = ProfileReader.read(profiles.resolve(name + ".profile.yaml"))
                .withSeed(1);
            final double knee = knee(roundRobin, profile);
            System.out.printf(Locale.ROOT, "%n%s.profile.yaml: knee %.1f requests/s (round-robin, seed 1, %.0f s)%n",
                name, knee, profile.durationS());
            System.out.printf(Locale.ROOT, "  %-12s %-14s %-20s %-20s %-14s%n", "policy", "SLO attainment",
                "p90 TTFT ms", "input tokens/s", "hit rate");
            final double[][] rr = figures(roundRobin, profile.withArrivalsPerS(knee), seeds);
            final double[][] pa = figures(affinity, profile.withArrivalsPerS(knee), seeds);
            print("round-robin", rr);
            print("affinity", pa);
            System.out.printf(Locale.ROOT, "  p90 TTFT affinity / round-robin, per seed: %s; input tokens/s: %s%n",
                ratios(pa[1], rr[1]), ratios(pa[2], rr[2]));
        }
        final SimulationProfile hot = ProfileReader.read(profiles.resolve("prefix-hot.profile.yaml"));
        System.out.printf(Locale.ROOT, "%nprefix-hot.profile.yaml with affinity, %.0f requests/s, %.0f s: each " +
            "backend's (m-1..m-8) requests and prefilled (uncached) prompt tokens / the mean, per seed%n", hot.arrivalsPerS(), hot.durationS());
        for (int seed = 1; seed <= seeds; seed++)
        {
            final SimulationReport report = run(affinity, hot.withSeed(seed));
            final StringBuilder line = new StringBuilder("  seed ").append(seed).append(": requests");
            final StringBuilder prefill = new StringBuilder("          prefilled tokens");
            long requests = 0;
            long prefilled = 0;
            for (final ServingFigures.Server server : report.serving().servers())
            {
                requests += server.requests();
                prefilled += server.queriedTokens() - server.hitTokens();
            }
            final int servers = report.serving().servers().size();
            double most = 0;
            double mostPrefill = 0;
            for (final ServingFigures.Server server : report.serving().servers())
            {
                final double relative = server.requests() * (double)servers / requests;
                final double relativePrefill = (server.queriedTokens() - server.hitTokens()) * (double)servers / prefilled;
                most = Math.max(most, relative);
                mostPrefill = Math.max(mostPrefill, relativePrefill);
                line.append(String.format(Locale.ROOT, " %.2f", relative));
                prefill.append(String.format(Locale.ROOT, " %.2f", relativePrefill));
            }
            line.append(String.format(Locale.ROOT, "  (max %.2f; hit rate %.3f, p90 TTFT %.0f ms, SLO %.3f)", most,
                report.serving().hitRate("m"), report.figures().p90TtftMs(), report.sloAttainment()));
            prefill.append(String.format(Locale.ROOT, "  (max %.2f)", mostPrefill));
            System.out.println(line);
            System.out.println(prefill);
        }
    }

    // 12's knee, by its one home: bisection on seed 1 between 1 and 2,000 requests/s to within 5%.
    private static double knee(final LoadedConfig loaded, final SimulationProfile profile)
    {
        return LoadKnee.find(rate -> attainment(loaded, profile, rate)).ratePerS();
    }

    private static double attainment(final LoadedConfig loaded, final SimulationProfile profile, final double rate)
    {
        return run(loaded, profile.withArrivalsPerS(rate)).sloAttainment();
    }

    // Per seed: SLO attainment, p90 TTFT ms, input tokens/s, hit rate.
    private static double[][] figures(final LoadedConfig loaded, final SimulationProfile profile, final int seeds)
    {
        final double[][] figures = new double[4][seeds];
        for (int s = 0; s < seeds; s++)
        {
            final SimulationReport report = run(loaded, profile.withSeed(s + 1));
            figures[0][s] = report.sloAttainment();
            figures[1][s] = report.figures().p90TtftMs();
            figures[2][s] = report.serving().inputTokensPerS("m");
            figures[3][s] = report.serving().hitRate("m");
        }
        return figures;
    }

    private static SimulationReport run(final LoadedConfig loaded, final SimulationProfile profile)
    {
        return new Simulator(loaded.plans(), ExampleFixture.settings(60), profile, true,
            BackendChooser.of(loaded, Map.of())).run(SimulationListener.NONE);
    }

    private static void print(final String policy, final double[][] figures)
    {
        System.out.printf(Locale.ROOT, "  %-12s %-14s %-20s %-20s %-14s%n", policy, range(figures[0], "%.3f"),
            range(figures[1], "%.0f"), range(figures[2], "%.0f"), range(figures[3], "%.3f"));
    }

    private static String range(final double[] values, final String format)
    {
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        for (final double v : values)
        {
            min = Math.min(min, v);
            max = Math.max(max, v);
        }
        return String.format(Locale.ROOT, format + "-" + format, min, max);
    }

    private static String ratios(final double[] a, final double[] b)
    {
        final StringBuilder out = new StringBuilder();
        for (int i = 0; i < a.length; i++)
        {
            out.append(i == 0 ? "" : " ").append(String.format(Locale.ROOT, "%.2f", a[i] / b[i]));
        }
        return out.toString();
    }
}
