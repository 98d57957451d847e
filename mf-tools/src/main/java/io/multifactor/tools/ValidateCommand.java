package io.multifactor.tools;

import io.multifactor.api.ConfigProblem;
import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.config.ConfigLoader;
import io.multifactor.config.LoadedConfig;
import io.multifactor.config.model.DecisionConfig;
import io.multifactor.config.model.ModelConfig;
import io.multifactor.config.model.MultiFactorConfig;
import io.multifactor.kernel.plan.NoCandidatesPolicy;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code mf validate CONFIG}: prints a summary of a valid configuration (models, decisions, warnings) on stdout and exits
 * 0, or every problem on stderr and exits 2.
 * <p>
 * This class is not threadsafe: one invocation per instance.
 */
@Command(name = "validate", mixinStandardHelpOptions = true,
    description = "Validate a configuration file: a summary, or every problem as FILE:LINE:COLUMN: PATH: message.")
final class ValidateCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", paramLabel = "CONFIG", description = "The YAML configuration file.")
    private Path config;

    @Override
    public Integer call()
    {
        final LoadedConfig loaded;
        try
        {
            loaded = ConfigLoader.load(config);
        }
        catch (final InvalidConfigurationException ex)
        {
            return Problems.report(spec.commandLine().getErr(), config.toString(), ex);
        }
        final PrintWriter out = spec.commandLine().getOut();
        final List<ModelConfig> models = loaded.config().models();
        final List<DecisionConfig> decisions = loaded.config().decisions();
        out.println(config + ": valid");
        out.println("models: " + models.size());
        for (final ModelConfig model : models)
        {
            out.println("  " + model.name() + "  quality " + Format.number(model.qualityScore()) +
                "  prompt_per_1m " + Format.number(model.promptPer1M()) +
                "  completion_per_1m " + Format.number(model.completionPer1M()));
        }
        out.println("decisions: " + decisions.size());
        for (final DecisionConfig decision : decisions)
        {
            final MultiFactorConfig mf = decision.multiFactor();
            out.println("  " + decision.name() + "  candidates " + String.join(", ", decision.modelRefs()) +
                "  p" + mf.latencyPercentile() + "  on_no_candidates " + NoCandidatesPolicy.label(mf.onNoCandidates()));
        }
        out.println("warnings: " + loaded.warnings().size());
        for (final ConfigProblem warning : loaded.warnings())
        {
            out.println("  " + warning);
        }
        return ExitCodes.OK;
    }
}
