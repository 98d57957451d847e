package io.multifactor.sim.load;

import io.multifactor.config.LoadedConfig;
import io.multifactor.config.PlansCompiler;
import io.multifactor.config.model.BackendChoiceConfig;
import io.multifactor.config.model.DecisionConfig;
import io.multifactor.config.model.ModelConfig;
import io.multifactor.config.model.RouterConfig;
import io.multifactor.kernel.plan.AlgorithmType;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The policy comparison: for each policy, the same configuration with every decision's {@code algorithm.type} set to
 * it (the rest of the file unchanged), under the same seeded load; its table, verdict and timelines. The runs are
 * made by whoever serves the configurations ({@code bin/mf compare} runs an in-process gateway in front of fake
 * backends, in the {@code mf-tools} module) and handed here as {@link Run}s.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class PolicyComparison
{
    /** Every policy, in table order: {@code multi_factor}, then the baselines. */
    public static final List<Integer> ALL = List.of(AlgorithmType.MULTI_FACTOR, AlgorithmType.ROUND_ROBIN,
        AlgorithmType.RANDOM, AlgorithmType.LEAST_INFLIGHT, AlgorithmType.LOWEST_LATENCY);

    /**
     * One policy's run.
     *
     * @param policy its {@code algorithm.type}.
     * @param results every request.
     * @param summary its figures.
     * @param rateLimitedByServers 429s the fake servers answered during the run (the gateway passes them on).
     */
    public record Run(String policy, LoadResults results, LoadSummary summary, long rateLimitedByServers)
    {
    }

    private PolicyComparison()
    {
    }

    /**
     * @param base the configuration (its decisions' types are replaced run by run).
     * @param type an {@link AlgorithmType} code.
     * @return the same configuration with every decision of that type and, for a type other than {@code multi_factor},
     *     every model of two backends or more choosing among them by the same type ({@code backend_choice}), compiled.
     */
    public static LoadedConfig withType(final LoadedConfig base, final int type)
    {
        final RouterConfig config = base.config();
        final List<DecisionConfig> decisions = new ArrayList<>();
        for (final DecisionConfig decision : config.decisions())
        {
            decisions.add(decision.withAlgorithmType(type));
        }
        // A peer or a baseline applies its rule at both levels (as each peer picks among all the endpoints it routes
        // to): among the decision's candidates, and among each model's backends (backend_choice), with the first
        // decision's parameters. multi_factor keeps each model's own backend choice.
        final List<ModelConfig> models = new ArrayList<>();
        for (final ModelConfig model : config.models())
        {
            models.add(type == AlgorithmType.MULTI_FACTOR || model.backendRefs().size() < 2 || decisions.isEmpty() ?
                model : model.withBackendChoice(new BackendChoiceConfig(type, decisions.get(0).peerParameters())));
        }
        final RouterConfig swapped = new RouterConfig(models, decisions, config.signals(), config.fleet());
        return new LoadedConfig(base.file(), swapped, PlansCompiler.compile(swapped, null), List.of(), base.outline());
    }

    /**
     * The comparison table: per policy, requests, errors, SLO attainment, p50/p99 TTFT and TPOT, and the share of
     * requests each model served.
     *
     * @param runs the runs.
     * @return the table, one line per policy with a header.
     */
    public static String table(final List<Run> runs)
    {
        final List<String> models = new ArrayList<>();
        for (final Run run : runs)
        {
            for (final LoadSummary.Row row : run.summary().rows())
            {
                if (!row.model().equals(LoadSummary.ALL) && !models.contains(row.model()))
                {
                    models.add(row.model());
                }
            }
        }
        final StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%-15s %8s %7s %5s %11s %9s %9s %9s %9s  %s%n", "policy", "requests",
            "errors", "429s", "attainment", "ttft_p50", "ttft_p99", "tpot_p50", "tpot_p99", "served by (share of requests)"));
        for (final Run run : runs)
        {
            final LoadSummary.Row all = run.summary().overall();
            final StringBuilder shares = new StringBuilder();
            for (final String model : models)
            {
                final LoadSummary.Row row = run.summary().row(model);
                shares.append(shares.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%s %.0f%%", model,
                    row == null || all.requests() == 0 ? 0.0 : 100.0 * row.requests() / all.requests()));
            }
            out.append(String.format(Locale.ROOT, "%-15s %8d %7d %5d %10.1f%% %7.1fms %7.1fms %7.1fms %7.1fms  %s%n",
                run.policy(), all.requests(), all.errors(), run.rateLimitedByServers(), 100.0 * all.attainment(),
                all.ttftP50Ms(), all.ttftP99Ms(), all.tpotP50Ms(), all.tpotP99Ms(), shares));
        }
        return out.toString();
    }

    /**
     * @param runs the runs, {@code multi_factor} first.
     * @return one sentence: whether {@code multi_factor}'s attainment is at least every baseline's, with the figures.
     */
    public static String verdict(final List<Run> runs)
    {
        final Run first = runs.get(0);
        final double mine = first.summary().overall().attainment();
        Run best = null;
        for (final Run run : runs.subList(1, runs.size()))
        {
            if (best == null || run.summary().overall().attainment() > best.summary().overall().attainment())
            {
                best = run;
            }
        }
        if (best == null)
        {
            return String.format(Locale.ROOT, "%s attainment %.1f%% (no baseline run)", first.policy(), 100.0 * mine);
        }
        final double theirs = best.summary().overall().attainment();
        return String.format(Locale.ROOT, "%s attainment %.1f%% %s every baseline's (best baseline: %s %.1f%%)",
            first.policy(), 100.0 * mine, mine >= theirs ? "is at least" : "is BELOW", best.policy(), 100.0 * theirs);
    }

    /**
     * @param runs the runs.
     * @param intervalS timeline interval, seconds.
     * @param load the load (its ceilings).
     * @return each policy's timeline, in order.
     */
    public static Map<String, LoadTimeline> timelines(final List<Run> runs, final double intervalS, final LoadProfile load)
    {
        final Map<String, LoadTimeline> out = new LinkedHashMap<>();
        for (final Run run : runs)
        {
            out.put(run.policy(), LoadTimeline.of(run.results(), intervalS, load.maxTtftMs(), load.maxTpotMs()));
        }
        return out;
    }
}
