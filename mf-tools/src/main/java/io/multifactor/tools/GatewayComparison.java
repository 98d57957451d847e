package io.multifactor.tools;

import io.multifactor.config.LoadedConfig;
import io.multifactor.fakes.BackendsProfile;
import io.multifactor.fakes.FakeBackends;
import io.multifactor.gateway.Gateway;
import io.multifactor.gateway.GatewayOptions;
import io.multifactor.kernel.plan.AlgorithmType;
import io.multifactor.sim.load.LoadGenerator;
import io.multifactor.sim.load.LoadProfile;
import io.multifactor.sim.load.LoadResults;
import io.multifactor.sim.load.LoadSummary;
import io.multifactor.sim.load.PolicyComparison;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The runs of {@code bin/mf compare}: for each policy, the configuration {@link PolicyComparison#withType} gives,
 * served by an in-process gateway on a loopback port in front of freshly started fake backends (so every policy meets
 * the same degradation and 429 windows from the same instant and the same seeds), under the same seeded load. One run
 * at a time; gateway, backends and load share the machine. A warm-up run (its results discarded) first puts every
 * policy after the JIT has compiled the gateway, servers and client, so that the first policy in the table is not the
 * one that pays for it.
 * <p>
 * This class is stateless and threadsafe (each run has its own gateway, servers and client).
 */
final class GatewayComparison
{
    /** Listener of each run's progress: the policy, then the load generator's progress line. */
    @FunctionalInterface
    interface Progress
    {
        /**
         * @param policy the policy being run.
         * @param line its progress line.
         */
        void accept(String policy, String line);
    }

    private GatewayComparison()
    {
    }

    /**
     * Runs every policy in turn.
     *
     * @param base the configuration.
     * @param backends the fake backends its {@code backend_refs} point at (started afresh for each policy).
     * @param load the load, with the ceilings attainment is judged by.
     * @param policies {@link AlgorithmType} codes, in table order.
     * @param warmupS seconds of the discarded warm-up run of the first policy (0: none).
     * @param progressOrNull told each run's progress, or null.
     * @return one run per policy, in order.
     * @throws IOException when a gateway cannot listen.
     * @throws IllegalStateException when a fake server cannot listen (its port is taken).
     */
    static List<PolicyComparison.Run> run(final LoadedConfig base, final BackendsProfile backends, final LoadProfile load,
        final List<Integer> policies, final double warmupS, final Progress progressOrNull) throws IOException
    {
        if (warmupS > 0.0 && !policies.isEmpty())
        {
            runOne(base, backends, load.withDurationS(warmupS), policies.get(0), "warm-up", progressOrNull);
        }
        final List<PolicyComparison.Run> runs = new ArrayList<>();
        for (final int type : policies)
        {
            runs.add(runOne(base, backends, load, type, AlgorithmType.label(type), progressOrNull));
        }
        return runs;
    }

    private static PolicyComparison.Run runOne(final LoadedConfig base, final BackendsProfile backends, final LoadProfile load,
        final int type, final String label, final Progress progressOrNull) throws IOException
    {
        final LoadedConfig config = PolicyComparison.withType(base, type);
        try (FakeBackends servers = FakeBackends.start(backends);
            Gateway gateway = Gateway.start(config, GatewayOptions.defaults().withPort(0)))
        {
            final LoadResults results = LoadGenerator.run("http://127.0.0.1:" + gateway.port(), load,
                progressOrNull == null ? null : line -> progressOrNull.accept(label, line));
            long rateLimited = 0;
            for (final String model : servers.models())
            {
                rateLimited += servers.server(model).rateLimited();
            }
            return new PolicyComparison.Run(AlgorithmType.label(type), results,
                LoadSummary.of(results, load.maxTtftMs(), load.maxTpotMs()), rateLimited);
        }
    }
}
