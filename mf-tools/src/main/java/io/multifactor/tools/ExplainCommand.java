package io.multifactor.tools;

import io.multifactor.api.Exclusions;
import io.multifactor.api.Handles;
import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.api.Request;
import io.multifactor.config.ConfigLoader;
import io.multifactor.config.LoadedConfig;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.explain.Explanation;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.serving.ExplainJson;
import io.multifactor.sim.scenario.Scenario;
import io.multifactor.sim.scenario.ScenarioLoader;
import io.multifactor.sim.scenario.ScenarioReplay;
import io.multifactor.sim.scenario.ScenarioSession;
import org.agrona.concurrent.CachedNanoClock;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code mf explain --config C --scenario S [--json]}: loads the configuration into a real engine, feeds it the
 * scenario's samples and in-flight counts through the public recording API, refreshes, selects with the scenario's
 * exclusions, and prints why it chose what it chose. Exit 0, 2 for invalid input (message on stderr naming the file,
 * nothing on stdout), 3 for a {@code failed} outcome.
 * <p>
 * This class is not threadsafe: one invocation per instance.
 */
@Command(name = "explain", mixinStandardHelpOptions = true,
    description = "What the engine would choose for one request, and why.")
final class ExplainCommand implements Callable<Integer>
{
    /** The engine clock's time of the explained request: one day, so a replay's earlier samples have times >= 0. */
    static final long REQUEST_TIME_NS = 86_400_000_000_000L;

    @Spec
    private CommandSpec spec;

    @Option(names = "--config", required = true, paramLabel = "CONFIG", description = "The YAML configuration file.")
    private Path config;

    @Option(names = "--overlay", paramLabel = "OVERLAY",
        description = "An overlay completing a vLLM Semantic Router CONFIG: signals, fleet, per-model server, " +
            "reliability and backend_refs.")
    private Path overlay;

    @Option(names = "--scenario", required = true, paramLabel = "SCENARIO",
        description = "The scenario file: decision, exclusions, token counts, tie-break seed, latency samples (ms) and " +
            "in-flight counts.")
    private Path scenarioFile;

    @Option(names = "--json", description = "Print one JSON object instead of a table.")
    private boolean json;

    @Override
    public Integer call()
    {
        final LoadedConfig loaded;
        try
        {
            loaded = ConfigLoader.load(config, overlay, null, MultiFactorEngine.DEFAULT_COUNTER_CAPACITY);
        }
        catch (final InvalidConfigurationException ex)
        {
            return Problems.report(spec.commandLine().getErr(), config.toString(), ex);
        }
        final Plans plans = loaded.plans();
        final Scenario scenario;
        try
        {
            scenario = ScenarioLoader.load(scenarioFile);
            scenario.checkAgainst(plans);
        }
        catch (final InvalidConfigurationException ex)
        {
            return Problems.report(spec.commandLine().getErr(), scenarioFile.toString(), ex);
        }

        final CachedNanoClock clock = new CachedNanoClock();
        // The request's time: late enough that a peak-EWMA replay's samples, one second apart before it, follow the
        // engine's origin.
        clock.update(REQUEST_TIME_NS);
        final Explanation explanation;
        final int clamped;
        try (MultiFactorEngine engine = MultiFactorEngine.builder(plans)
            .clock(clock)
            .settings(loaded.signalSettings())
            .leaseCapacity(ScenarioReplay.leaseCapacityFor(scenario, MultiFactorEngine.DEFAULT_LEASE_CAPACITY))
            .counterCapacity(Math.max(MultiFactorEngine.DEFAULT_COUNTER_CAPACITY, plans.modelCapacity() + 4))
            .build())
        {
            final Request request = new Request(new Exclusions(plans.modelCapacity()));
            try
            {
                clamped = ScenarioReplay.apply(scenario, engine, request, clock);
            }
            catch (final IllegalArgumentException ex)
            {
                spec.commandLine().getErr().println(scenarioFile + ": " + ex.getMessage());
                return ExitCodes.INVALID_INPUT;
            }
            engine.refreshNow();
            final ScenarioSession session = scenario.session();
            explanation = session == null ? engine.explain(request) : engine.explain(request,
                session.modelOrNull() == null ? Handles.NONE : engine.modelId(session.modelOrNull().name()),
                (int)session.turns(), session.idleMs());
        }
        if (clamped > 0)
        {
            spec.commandLine().getErr().println(scenarioFile + ": note: " + clamped +
                " latency samples were above the trackable maximum and were clamped to it");
        }
        spec.commandLine().getOut().print(json ? ExplainJson.render(explanation) : ExplainTable.render(explanation));
        spec.commandLine().getOut().flush();
        // failed, ineligible and shed select nothing: exit code 3.
        return explanation.selected() == null ? ExitCodes.FAILED_OUTCOME : ExitCodes.OK;
    }
}
