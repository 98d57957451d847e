package io.multifactor.config;

import io.multifactor.api.Factor;
import io.multifactor.config.model.MultiFactorConfig;
import io.multifactor.config.model.RankingConfig;
import io.multifactor.config.model.SloConfig;
import io.multifactor.config.model.WeightsConfig;
import io.multifactor.config.read.MappingReader;
import io.multifactor.config.read.NearestName;
import io.multifactor.config.read.Problems;
import io.multifactor.config.yaml.YamlScalar;
import io.multifactor.kernel.plan.NoCandidatesPolicy;

import java.util.List;

/**
 * Reads the {@code multi_factor:} block of a decision's {@code algorithm:} into a {@link MultiFactorConfig}, reporting
 * every problem. Both file formats use it ({@link RouterConfigReader} for the project's own files,
 * VsrConfigReader for vLLM Semantic Router's), so a key added here is read in both.
 * <p>
 * This class is stateless and threadsafe.
 */
final class MultiFactorReader
{
    static final String ALGORITHM = "multi_factor";
    static final List<String> KEYS = List.of(
        "weights", "slo", "latency_percentile", "on_no_candidates",
        "latency_metric", "cost_mix", "objective", "priority", "tolerance", "tie_band", "tie_break", "pick", "load_metric",
        SessionReader.KEY, "admission");
    static final List<String> WEIGHT_KEYS = weightKeys();
    static final List<String> SLO_KEYS = List.of("max_tpot_ms", "max_ttft_ms", "max_cost_per_1m", "max_inflight",
        "min_quality", "max_inflight_tokens", "max_queue", "max_kv_cache");
    static final List<String> POLICIES = List.of("cheapest", "first", "fail", "shed");
    static final List<String> ADMISSION_KEYS = List.of("sheddable_above");

    private MultiFactorReader()
    {
    }

    /**
     * @param algorithm reader of the decision's {@code algorithm:} mapping, whose {@code type} was checked.
     * @param problems where to report.
     * @return the block's settings, {@link MultiFactorConfig#DEFAULTS} when the block is absent; meaningful only when
     *     no error was reported.
     */
    static MultiFactorConfig read(final MappingReader algorithm, final Problems problems)
    {
        final MappingReader mf = algorithm.optionalMapping(ALGORITHM, KEYS);
        if (mf == null)
        {
            return MultiFactorConfig.DEFAULTS;
        }
        final WeightsConfig weights = weights(mf, problems);
        final SloConfig slo = slo(mf, problems);
        final int percentile = (int)mf.optionalInteger("latency_percentile", MultiFactorConfig.DEFAULT_PERCENTILE, 1, 100);
        int policy = NoCandidatesPolicy.CHEAPEST;
        final String policyText = mf.optionalString("on_no_candidates", "cheapest");
        if (policyText != null)
        {
            policy = NoCandidatesPolicy.parse(policyText);
            if (policy < 0)
            {
                problems.error(mf.value("on_no_candidates"), mf.path("on_no_candidates"),
                    "unknown on_no_candidates \"" + policyText + "\" (expected cheapest, first, fail or shed" +
                    nearestHint(policyText) + ')');
                policy = NoCandidatesPolicy.CHEAPEST;
            }
        }
        final RankingConfig ranking = RankingReader.read(mf, problems);
        return new MultiFactorConfig(weights, slo, percentile, policy, ranking,
            SessionReader.read(mf, problems, ranking.objective()), sheddableAbove(mf));
    }

    // admission: {sheddable_above: v}, 0 < v <= 1 (required inside the block); 0 when absent.
    private static double sheddableAbove(final MappingReader mf)
    {
        final MappingReader admission = mf.optionalMapping("admission", ADMISSION_KEYS);
        if (admission == null || !admission.require("sheddable_above"))
        {
            return 0.0;
        }
        final double value = admission.optionalNumber("sheddable_above", Double.NaN, true);
        if (Double.isNaN(value))
        {
            return 0.0;
        }
        if (!(value > 0.0 && value <= 1.0))
        {
            admission.problems().error(admission.value("sheddable_above"), admission.path("sheddable_above"),
                "must be above 0 and at most 1, got " + value);
            return 0.0;
        }
        return value;
    }

    private static String nearestHint(final String policyText)
    {
        final String nearest = NearestName.of(policyText, POLICIES);
        return nearest == null ? "" : "; did you mean " + nearest + '?';
    }

    private static WeightsConfig weights(final MappingReader mf, final Problems problems)
    {
        final MappingReader weights = mf.optionalMapping("weights", WEIGHT_KEYS);
        if (weights == null)
        {
            return WeightsConfig.EQUAL;
        }
        final double[] w = new double[WEIGHT_KEYS.size()];
        double sum = 0.0;
        for (int i = 0; i < w.length; i++)
        {
            final String key = WEIGHT_KEYS.get(i);
            w[i] = weights.optionalNumber(key, 0.0, false);
            if (w[i] < 0.0)
            {
                problems.warning(weights.value(key), weights.path(key),
                    "negative weight " + ((YamlScalar)weights.value(key)).text() + " is clamped to 0");
            }
            else if (w[i] > 0.0)
            {
                sum += w[i];
            }
        }
        if (sum == Double.POSITIVE_INFINITY)
        {
            problems.error(weights.node(), weights.path(), "weights are too large to add up; scale them down");
        }
        else if (sum == 0.0 && !problems.hasErrors())
        {
            problems.warning(weights.node(), weights.path(),
                "every weight is 0 after clamping; equal weights (0.25 for each of quality, latency, cost and load) are used");
        }
        return WeightsConfig.of(w);
    }

    /** The keys of {@code weights}: every factor of the signal table, in table order. */
    private static List<String> weightKeys()
    {
        final String[] keys = new String[Factor.COUNT];
        for (int f = 0; f < Factor.COUNT; f++)
        {
            keys[f] = Factor.label(f);
        }
        return List.of(keys);
    }

    private static SloConfig slo(final MappingReader mf, final Problems problems)
    {
        final MappingReader slo = mf.optionalMapping("slo", SLO_KEYS);
        if (slo == null)
        {
            return SloConfig.NONE;
        }
        return new SloConfig(
            slo.optionalNumber("max_tpot_ms", 0.0, true),
            slo.optionalNumber("max_ttft_ms", 0.0, true),
            slo.optionalNumber("max_cost_per_1m", 0.0, true),
            slo.optionalInteger("max_inflight", 0L, 0L, Long.MAX_VALUE),
            slo.optionalNumber("min_quality", 0.0, true),
            slo.optionalInteger("max_inflight_tokens", 0L, 0L, Long.MAX_VALUE),
            slo.optionalInteger("max_queue", 0L, 0L, Long.MAX_VALUE),
            fraction(slo, problems, "max_kv_cache"));
    }

    // A number in 0..1 (0 or absent: no ceiling); out of range is an error naming the value.
    private static double fraction(final MappingReader slo, final Problems problems, final String key)
    {
        final double value = slo.optionalNumber(key, 0.0, true);
        if (value > 1.0)
        {
            problems.error(slo.value(key), slo.path(key), "must be in 0..1 (a fraction of the KV cache), got " +
                ((YamlScalar)slo.value(key)).text());
            return 0.0;
        }
        return value;
    }
}
