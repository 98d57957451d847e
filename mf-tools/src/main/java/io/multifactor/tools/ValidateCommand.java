package io.multifactor.tools;

import io.multifactor.api.ConfigProblem;
import io.multifactor.api.Handles;
import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.config.ConfigLoader;
import io.multifactor.config.LoadedConfig;
import io.multifactor.config.model.ConfigFormat;
import io.multifactor.config.model.ConfigOutline;
import io.multifactor.config.model.DecisionConfig;
import io.multifactor.config.model.ModelConfig;
import io.multifactor.config.model.MultiFactorConfig;
import io.multifactor.config.model.SkippedDecision;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.plan.NoCandidatesPolicy;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code mf validate CONFIG}: prints a summary of a valid configuration (models, with their servers and
 * {@code reliability}; decisions, each with the settings the engine will use: normalized weights, floor and ceilings,
 * ranking, picker and load metric; the signals, server-metrics and fleet settings; warnings; for a vLLM
 * Semantic Router file also its skipped decisions with their algorithm type and the top-level sections it ignored) on
 * stdout and exits 0, or every problem on stderr and exits 2.
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

    @Option(names = "--overlay", paramLabel = "OVERLAY",
        description = "An overlay completing a vLLM Semantic Router CONFIG: signals, fleet, per-model server, " +
            "reliability and backend_refs.")
    private Path overlay;

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
        final PrintWriter out = spec.commandLine().getOut();
        final List<ModelConfig> models = loaded.config().models();
        final List<DecisionConfig> decisions = loaded.config().decisions();
        final ConfigOutline outline = loaded.outline();
        final boolean vsr = outline.format() != ConfigFormat.MULTI_FACTOR;
        out.println(config + ": valid" + (vsr ? " (" + outline.format().description() + ')' : ""));
        out.println("models: " + models.size());
        for (final ModelConfig model : models)
        {
            out.println("  " + model.name() + "  quality " + Format.number(model.qualityScore()) +
                "  prompt_per_1m " + Format.number(model.promptPer1M()) +
                "  completion_per_1m " + Format.number(model.completionPer1M()) +
                (Double.isNaN(model.cachedPromptPer1M()) ? "" :
                    "  cached_prompt_per_1m " + Format.number(model.cachedPromptPer1M())));
            out.print(EffectiveSettings.model(model));
        }
        out.println((vsr ? "multi_factor decisions: " : "decisions: ") + decisions.size());
        boolean tokensRead = false;
        for (final DecisionConfig decision : decisions)
        {
            final MultiFactorConfig mf = decision.multiFactor();
            out.println("  " + decision.name() + "  candidates " + String.join(", ", decision.modelRefs()) +
                "  p" + mf.latencyPercentile() + "  on_no_candidates " + NoCandidatesPolicy.label(mf.onNoCandidates()));
            final int id = loaded.plans().decisionId(decision.name());
            if (id != Handles.NONE)
            {
                out.print(EffectiveSettings.decision(loaded.plans().decision(id)));
                tokensRead |= loaded.plans().decision(id).readsTokens();
            }
        }
        out.print(EffectiveSettings.signals(loaded.config().signals(), tokensRead));
        out.print(EffectiveSettings.fleet(loaded.config().fleet()));
        if (vsr)
        {
            printOutline(out, outline);
        }
        out.println("warnings: " + loaded.warnings().size());
        for (final ConfigProblem warning : loaded.warnings())
        {
            out.println("  " + warning);
        }
        return ExitCodes.OK;
    }

    private static void printOutline(final PrintWriter out, final ConfigOutline outline)
    {
        out.println("skipped decisions (not multi_factor): " + outline.skippedDecisions().size());
        for (final SkippedDecision skipped : outline.skippedDecisions())
        {
            out.println("  " + skipped.name() + "  algorithm " + skipped.algorithmType() + "  at " + skipped.path() +
                " (line " + skipped.line() + ')');
        }
        out.println("ignored top-level sections: " + outline.ignoredSections().size() +
            (outline.ignoredSections().isEmpty() ? "" : " (" + String.join(", ", outline.ignoredSections()) + ')'));
    }
}
