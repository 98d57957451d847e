package io.multifactor.tools;

import io.multifactor.api.Factor;
import io.multifactor.api.LatencyMetric;
import io.multifactor.api.Objective;
import io.multifactor.config.model.FleetConfig;
import io.multifactor.config.model.SignalsConfig;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.TieBreak;

/**
 * What {@code bin/mf validate} says the engine understood, with every default filled in: per decision the weights as
 * normalized (summing to 1 after clamping), the quality floor and ceilings ({@code -} when off), the percentile and
 * latency metric, the cost mix, the objective with its priority and tolerance or its tie band, and the tie break; then
 * the {@code signals:} settings and the {@code fleet:} settings (the Redis URL without its credentials).
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
            .append("  max_inflight ").append(plan.maxInflight() == 0 ? "-" : Long.toString(plan.maxInflight()))
            .append('\n');

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
        sb.append("  tie_break ").append(TieBreak.label(plan.tieBreak())).append('\n');

        sb.append(INDENT).append("latency   p").append(plan.percentile()).append(" of ")
            .append(latency(plan.latencyMetric()))
            .append("  cost_mix prompt ").append(Format.number(plan.costMixPrompt()))
            .append(" completion ").append(Format.number(plan.costMixCompletion()))
            .append('\n');
        return sb.toString();
    }

    /**
     * @param signals the {@code signals:} block with its defaults.
     * @return one line, ending with a newline.
     */
    static String signals(final SignalsConfig signals)
    {
        return "signals: latency_window " + duration(signals.latencyWindowNs()) +
            "  latency_refresh " + duration(signals.latencyRefreshNs()) +
            "  inflight_max_age " + duration(signals.inflightMaxAgeNs()) +
            "  counters_file " + (signals.countersFile() == null ? "- (in memory)" : signals.countersFile()) + '\n';
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
