package io.multifactor.config;

import io.multifactor.api.Capability;
import io.multifactor.config.model.DecisionConfig;
import io.multifactor.config.model.ModelConfig;
import io.multifactor.config.model.MultiFactorConfig;
import io.multifactor.config.model.RankingConfig;
import io.multifactor.config.model.ReliabilityConfig;
import io.multifactor.config.model.RouterConfig;
import io.multifactor.config.model.SloConfig;
import io.multifactor.config.model.WeightsConfig;
import io.multifactor.kernel.plan.AlgorithmType;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import io.multifactor.kernel.plan.SignalCeilings;
import io.multifactor.kernel.plan.RequestRules;
import io.multifactor.kernel.reliability.EjectionPolicy;
import io.multifactor.kernel.signal.ServerMetricsSettings;
import io.multifactor.kernel.signal.WhenStale;

/**
 * Compiles a validated {@link RouterConfig} into the flat {@link Plans} the kernel reads, keeping the handles of the
 * names that stay when given the snapshot being replaced.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class PlansCompiler
{
    private PlansCompiler()
    {
    }

    /**
     * @param config a validated configuration.
     * @param previous the snapshot being replaced, or {@code null} for a first one.
     * @return the compiled snapshot.
     */
    public static Plans compile(final RouterConfig config, final Plans previous)
    {
        final PlansBuilder builder = previous == null ? new PlansBuilder() : new PlansBuilder(previous);
        builder.defaultOutputTokens(config.signals().defaultOutputTokens());
        final ServerMetricsSettings servers = config.signals().serverMetrics();
        final boolean staleSaturated = servers != null && servers.whenStale() == WhenStale.SATURATED;
        for (final ModelConfig model : config.models())
        {
            builder.model(model.name(), model.qualityScore(), model.promptPer1M(), model.completionPer1M());
            if (!Double.isNaN(model.cachedPromptPer1M()))
            {
                builder.cachedPromptPrice(model.name(), model.cachedPromptPer1M());
            }
            final ReliabilityConfig reliability = model.reliability();
            if (reliability.ejects())
            {
                builder.reliability(model.name(), new EjectionPolicy(reliability.consecutive5xx(),
                    millis(reliability.baseEjectionTimeNs()), millis(reliability.maxEjectionTimeNs()),
                    reliability.maxEjectionPercent()));
            }
            if (model.contextWindow() != RequestRules.NO_CONTEXT_WINDOW || model.capabilities() != Capability.ALL)
            {
                builder.eligibility(model.name(), model.contextWindow(), model.capabilities());
            }
        }
        for (final DecisionConfig decision : config.decisions())
        {
            final MultiFactorConfig mf = decision.multiFactor();
            final WeightsConfig w = mf.weights();
            final SloConfig slo = mf.slo();
            final RankingConfig ranking = mf.ranking();
            final PlansBuilder.DecisionSpec spec = builder.decision(decision.name())
                .candidates(decision.modelRefs().toArray(new String[0]))
                .weights(w.byFactor())
                .slo(slo.maxTpotMs(), slo.maxTtftMs(), slo.maxCostPer1M(), slo.maxInflight())
                .minQuality(slo.minQuality())
                // In-flight tokens, the servers' ceilings (0: off) and what all-stale servers mean (when_stale).
                .signalCeilings(new SignalCeilings(slo.maxInflightTokens(), ceiling(slo.maxQueue()),
                    ceiling(slo.maxKvCache()), staleSaturated))
                .percentile(mf.latencyPercentile())
                .policy(mf.onNoCandidates())
                .latencyMetric(ranking.latencyMetric())
                .costMix(ranking.costMixPrompt(), ranking.costMixCompletion())
                .tieBand(ranking.tieBand())
                .tieBreak(ranking.tieBreak())
                .pick(ranking.pick())
                .loadMetric(ranking.loadMetric())
                .algorithmType(decision.algorithmType())
                .peerParameters(decision.peerParameters())
                .session(mf.session())
                .admission(mf.sheddableAbove());
            if (!ranking.priority().isEmpty() && decision.algorithmType() == AlgorithmType.MULTI_FACTOR)
            {
                spec.lexicographic(ranking.tolerance(), ranking.priorityFactors());
            }
            spec.add();
        }
        return builder.build();
    }

    private static double ceiling(final double configured)
    {
        return configured == 0.0 ? Double.POSITIVE_INFINITY : configured;
    }

    // Whole milliseconds, rounded up: validation keeps ejection times at 1 ms or more.
    private static long millis(final long nanos)
    {
        return Math.max(1, (nanos + 999_999) / 1_000_000);
    }
}
