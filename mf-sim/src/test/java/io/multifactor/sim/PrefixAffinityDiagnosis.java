package io.multifactor.sim;

import io.multifactor.config.ConfigLoader;
import io.multifactor.config.LoadedConfig;
import io.multifactor.serving.BackendChooser;
import io.multifactor.serving.BackendPrefix;
import io.multifactor.serving.PrefixBackends;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/**
 * Why prefix-cache affinity loses to round-robin on the chat-session profile at its knee, and how the hot prefix's
 * release spreads: runs one profile at one rate with round-robin ({@code examples/prefix.yaml}) and with
 * {@code examples/prefix-affinity.yaml} as it is and with one or two of 4.7's knobs changed, and prints per
 * configuration and seed the SLO attainment, p90 TTFT, the servers' hit rate beside the router's (blocks matched /
 * looked up in its index: far above the servers' when the index remembers what the servers evicted), the choices by
 * result and the busiest backend's requests / the mean. A command, not a test (a few seconds per run); run it as
 * {@link PrefixAffinityFigures} says, with the class name changed:
 * <pre>
 * ... io.multifactor.sim.PrefixAffinityDiagnosis PROFILE RATE SEEDS [KEY=VALUE[,KEY=VALUE]]...
 * </pre>
 * each further argument a variant of the affinity configuration's {@code prefix_affinity} keys, such as
 * {@code capacity_blocks=512} or {@code max_ttft_penalty=250ms,capacity_blocks=512}.
 * <p>
 * This class is not threadsafe: a command run once on one thread.
 */
final class PrefixAffinityDiagnosis
{
    private PrefixAffinityDiagnosis()
    {
    }

    /**
     * @param args the profile file, the rate (requests/s), the number of seeds, then variants.
     * @throws Exception when a file does not load.
     */
    public static void main(final String[] args) throws Exception
    {
        final SimulationProfile profile = ProfileReader.read(Path.of(args[0]));
        final double rate = Double.parseDouble(args[1]);
        final int seeds = Integer.parseInt(args[2]);
        final String affinityYaml = Files.readString(Path.of("examples", "prefix-affinity.yaml"));
        System.out.printf(Locale.ROOT, "%s at %.1f requests/s, %.0f s%n", args[0], rate, profile.durationS());
        System.out.printf(Locale.ROOT, "  %-44s %4s %6s %8s %7s %7s %7s %7s %7s %6s%n", "configuration", "seed", "SLO",
            "p90ms", "srvHit", "idxHit", "warm", "cold", "release", "max/mean");
        run("round-robin", ConfigLoader.load(Path.of("examples", "prefix.yaml")), profile, rate, seeds);
        run("affinity", load(affinityYaml), profile, rate, seeds);
        for (int v = 3; v < args.length; v++)
        {
            String yaml = affinityYaml;
            for (final String change : args[v].split(","))
            {
                final String key = change.substring(0, change.indexOf('='));
                final String value = change.substring(change.indexOf('=') + 1);
                yaml = yaml.replaceAll("(?m)^(\\s+" + key + ": )\\S+", "$1" + value);
            }
            run("affinity " + args[v], load(yaml), profile, rate, seeds);
        }
    }

    private static LoadedConfig load(final String yaml) throws Exception
    {
        final Path file = Files.createTempFile("affinity", ".yaml");
        Files.writeString(file, yaml);
        return ConfigLoader.load(file);
    }

    private static void run(final String name, final LoadedConfig loaded, final SimulationProfile profile,
        final double rate, final int seeds)
    {
        for (int seed = 1; seed <= seeds; seed++)
        {
            final PrefixBackends prefixes = new PrefixBackends();
            final SimulationReport report = new Simulator(loaded.plans(), ExampleFixture.settings(60),
                profile.withArrivalsPerS(rate).withSeed(seed), true, BackendChooser.of(loaded, Map.of(), prefixes))
                .run(SimulationListener.NONE);
            long warm = 0;
            long cold = 0;
            long release = 0;
            long lookedUp = 0;
            long matched = 0;
            for (final BackendPrefix b : prefixes.backends())
            {
                warm += b.warm();
                cold += b.cold();
                release += b.release();
                lookedUp += b.blocksLookedUp();
                matched += b.blocksMatched();
            }
            long requests = 0;
            long most = 0;
            for (final ServingFigures.Server server : report.serving().servers())
            {
                requests += server.requests();
                most = Math.max(most, server.requests());
            }
            final int servers = report.serving().servers().size();
            System.out.printf(Locale.ROOT, "  %-44s %4d %6.3f %8.0f %7.3f %7s %7d %7d %7d %6.2f%n", name, seed,
                report.sloAttainment(), report.figures().p90TtftMs(), report.serving().hitRate("m"),
                lookedUp == 0 ? "-" : String.format(Locale.ROOT, "%.3f", (double)matched / lookedUp), warm, cold,
                release, requests == 0 ? 0.0 : most * (double)servers / requests);
        }
    }
}
