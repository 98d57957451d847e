package io.multifactor.tools;

import io.multifactor.api.Factor;
import io.multifactor.api.LatencyMetric;
import io.multifactor.api.Objective;
import io.multifactor.config.model.BackendRef;
import io.multifactor.config.model.FleetConfig;
import io.multifactor.config.model.ModelConfig;
import io.multifactor.config.model.ReliabilityConfig;
import io.multifactor.config.model.SignalsConfig;
import io.multifactor.kernel.engine.SignalSettings;
import io.multifactor.kernel.latency.LatencyEstimatorType;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.LoadMetric;
import io.multifactor.kernel.plan.Pick;
import io.multifactor.kernel.plan.SignalCeilings;
import io.multifactor.kernel.plan.TieBreak;
import io.multifactor.kernel.signal.ServerMetricsSettings;

/**
 * What {@code bin/mf validate} says the engine understood, with every default filled in: per model its server kind
 * and backends when they are scraped, and its {@code reliability}, when it has them; per decision the weights as normalized (summing to 1 after
 * clamping), the quality floor and ceilings ({@code -} when off), the percentile and latency metric, the cost mix, the
 * objective with its priority and tolerance or its tie band, and the tie break; then the {@code signals:} settings
 * (with {@code server_metrics:} when scraped) and the {@code fleet:} settings (the Redis URL without its credentials).
 * The keys of the load signals, the picker and the estimator ({@code max_inflight_tokens}, {@code max_queue},
 * {@code max_kv_cache}, {@code pick}, {@code load_metric}, {@code latency_estimator}) are shown where they are set
 * away from their defaults, so that a file without them reads as it always did.
 * <p>
 * This class is stateless and threadsafe.
 */
final class EffectiveSettings
{
    private static final String INDENT = "    ";

    private EffectiveSettings()
    {
    }

    /**
     * @param plan a compiled decision.
     * @return its settings, four indented lines, each ending with a newline.
     */
    static String decision(final DecisionPlan plan)
    {
        final boolean lexicographic = plan.objective() == Objective.LEXICOGRAPHIC;
        final StringBuilder sb = new StringBuilder(256);
        sb.append(INDENT).append("weights ");
        for (int f = 0; f < Factor.COUNT; f++)
        {
            // The servers' factors are listed only when weighed, so a seed decision reads as it always did.
            if (f < Factor.SEED_COUNT || plan.weight(f) > 0.0)
            {
                sb.append("  ").append(Factor.label(f)).append(' ').append(Format.fixed(plan.weight(f), 3));
            }
        }
        sb.append(lexicographic ? "  (ignored: lexicographic)" : "  (normalized)").append('\n');

        sb.append(INDENT).append("slo     ")
            .append("  min_quality ").append(plan.hasQualityFloor() ? Format.number(plan.minQuality()) : "-")
            .append("  max_tpot_ms ").append(ceiling(plan.maxTpotMs()))
            .append("  max_ttft_ms ").append(ceiling(plan.maxTtftMs()))
            .append("  max_cost_per_1m ").append(ceiling(plan.maxCostPer1M()))
            .append("  max_inflight ").append(plan.maxInflight() == 0 ? "-" : Long.toString(plan.maxInflight()));
        final SignalCeilings ceilings = plan.signalCeilings();
        if (ceilings.maxInflightTokens() != 0)
        {
            sb.append("  max_inflight_tokens ").append(ceilings.maxInflightTokens());
        }
        if (ceilings.effectiveMaxQueue() != Double.POSITIVE_INFINITY)
        {
            sb.append("  max_queue ").append((long)ceilings.effectiveMaxQueue());
        }
        if (ceilings.effectiveMaxKvCache() != Double.POSITIVE_INFINITY)
        {
            sb.append("  max_kv_cache ").append(Format.number(ceilings.effectiveMaxKvCache()));
        }
        if (ceilings.dropsStale())
        {
            sb.append("  when_stale saturated");
        }
        sb.append('\n');

        sb.append(INDENT).append("ranking   objective ").append(Objective.label(plan.objective()));
        if (lexicographic)
        {
            sb.append("  priority ");
            for (int rank = 0; rank < plan.priorityCount(); rank++)
            {
                sb.append(rank == 0 ? "" : " > ").append(Factor.label(plan.priority(rank)));
            }
            sb.append("  tolerance ").append(Format.number(plan.tolerance()));
        }
        else
        {
            sb.append("  tie_band ").append(Format.number(plan.tieBand()));
        }
        sb.append("  tie_break ").append(TieBreak.label(plan.tieBreak()));
        if (plan.pick() != Pick.BEST)
        {
            sb.append("  pick ").append(Pick.label(plan.pick()));
        }
        if (plan.loadMetric() != LoadMetric.REQUESTS)
        {
            sb.append("  load_metric ").append(LoadMetric.label(plan.loadMetric()));
        }
        sb.append('\n');

        sb.append(INDENT).append("latency   p").append(plan.percentile()).append(" of ")
            .append(latency(plan.latencyMetric()))
            .append("  cost_mix prompt ").append(Format.number(plan.costMixPrompt()))
            .append(" completion ").append(Format.number(plan.costMixCompletion()))
            .append('\n');
        return sb.toString();
    }

    /**
     * @param signals the {@code signals:} block with its defaults.
     * @param tokensRead whether a decision reads the tokens in flight ({@code load_metric: tokens} or
     *     {@code max_inflight_tokens}): then {@code default_request_tokens} is shown, as it is when set.
     * @return one line, two with {@code server_metrics:}, each ending with a newline.
     */
    static String signals(final SignalsConfig signals, final boolean tokensRead)
    {
        final StringBuilder sb = new StringBuilder(160);
        sb.append("signals: latency_window ").append(duration(signals.latencyWindowNs()))
            .append("  latency_refresh ").append(duration(signals.latencyRefreshNs()))
            .append("  inflight_max_age ").append(duration(signals.inflightMaxAgeNs()))
            .append("  counters_file ").append(signals.countersFile() == null ? "- (in memory)" : signals.countersFile());
        if (signals.latencyEstimator() != LatencyEstimatorType.WINDOW)
        {
            sb.append("  latency_estimator ").append(LatencyEstimatorType.label(signals.latencyEstimator()))
                .append("  ewma_decay ").append(duration(signals.ewmaDecayNs()));
        }
        if (tokensRead || signals.defaultRequestTokens() != SignalSettings.DEFAULT_REQUEST_TOKENS)
        {
            sb.append("  default_request_tokens ").append(signals.defaultRequestTokens());
        }
        sb.append('\n');
        final ServerMetricsSettings servers = signals.serverMetrics();
        if (servers != null)
        {
            sb.append("server_metrics: every ").append(duration(servers.everyNs()))
                .append("  path ").append(servers.path())
                .append("  timeout ").append(duration(servers.timeoutNs()))
                .append("  stale_after ").append(duration(servers.staleAfterNs()))
                .append("  when_stale ").append(servers.whenStale().configName()).append('\n');
        }
        return sb.toString();
    }

    /**
     * @param model a model of the file.
     * @return its server kind with its backends when its metrics are scraped ({@code server} set), and its
     *     {@code reliability}, each an indented line ending with a newline when the model has them; empty otherwise.
     */
    static String model(final ModelConfig model)
    {
        final StringBuilder sb = new StringBuilder();
        if (model.server() != null)
        {
            sb.append(INDENT).append("server ").append(model.server().configName());
            if (!model.providerModelId().equals(model.name()))
            {
                sb.append("  provider_model_id ").append(model.providerModelId());
            }
            sb.append("  backend_refs ").append(model.backendRefs().size());
            for (final BackendRef backend : model.backendRefs())
            {
                sb.append(model.backendRefs().get(0) == backend ? " (" : ", ").append(backend.name()).append(' ')
                    .append(backend.https() ? "https://" : "http://").append(backend.authority())
                    .append(backend.basePath()).append(" weight ").append(Format.number(backend.weight()));
            }
            sb.append(model.backendRefs().isEmpty() ? "" : ")").append('\n');
        }
        final ReliabilityConfig reliability = model.reliability();
        if (reliability.ejects())
        {
            sb.append(INDENT).append("reliability  consecutive_5xx ").append(reliability.consecutive5xx())
                .append("  base_ejection_time ").append(duration(reliability.baseEjectionTimeNs()))
                .append("  max_ejection_percent ").append(reliability.maxEjectionPercent())
                .append("  max_ejection_time ").append(duration(reliability.maxEjectionTimeNs())).append('\n');
        }
        return sb.toString();
    }

    /**
     * @param fleet the {@code fleet:} block, or {@link FleetConfig#NONE}.
     * @return one line, ending with a newline.
     */
    static String fleet(final FleetConfig fleet)
    {
        if (!fleet.enabled())
        {
            return "fleet: off (this replica uses its own signals only)\n";
        }
        return "fleet: redis " + FleetConfig.redact(fleet.redisUrl()) + "  cluster " + fleet.cluster() +
            "  exchange_every " + duration(fleet.exchangeEveryNs()) + '\n';
    }

    /**
     * @param ns a positive duration in nanoseconds.
     * @return it in the largest unit of the configuration that holds it exactly: {@code 1h}, {@code 250ms},
     *     {@code 1500us}.
     */
    static String duration(final long ns)
    {
        final String[] units = { "h", "m", "s", "ms", "us" };
        final long[] unitNs = { 3_600_000_000_000L, 60_000_000_000L, 1_000_000_000L, 1_000_000L, 1_000L };
        for (int i = 0; i < units.length; i++)
        {
            if (ns % unitNs[i] == 0)
            {
                return ns / unitNs[i] + units[i];
            }
        }
        return ns + "ns";
    }

    private static String ceiling(final double value)
    {
        return value == 0.0 ? "-" : Format.number(value);
    }

    private static String latency(final int metric)
    {
        return metric == LatencyMetric.AUTO ? "TPOT, else TTFT" : metric == LatencyMetric.TTFT ? "TTFT" : "TPOT";
    }
}
