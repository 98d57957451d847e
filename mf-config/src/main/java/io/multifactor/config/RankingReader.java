package io.multifactor.config;

import io.multifactor.api.Factor;
import io.multifactor.api.LatencyMetric;
import io.multifactor.api.Objective;
import io.multifactor.config.model.RankingConfig;
import io.multifactor.config.read.MappingReader;
import io.multifactor.config.read.NearestName;
import io.multifactor.config.read.Problems;
import io.multifactor.config.read.Values;
import io.multifactor.config.yaml.Excerpt;
import io.multifactor.config.yaml.YamlNode;
import io.multifactor.config.yaml.YamlScalar;
import io.multifactor.config.yaml.YamlSequence;
import io.multifactor.kernel.plan.CostMix;
import io.multifactor.kernel.plan.LoadMetric;
import io.multifactor.kernel.plan.Pick;
import io.multifactor.kernel.plan.TieBreak;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads the ranking keys of a {@code multi_factor} block ({@code latency_metric}, {@code cost_mix}, {@code objective},
 * {@code priority}, {@code tolerance}, {@code tie_band}, {@code tie_break}) into a {@link RankingConfig}, reporting
 * every problem located: an unknown word (with the nearest valid one when it looks like a typo), a value out of range, a
 * duplicate or unknown priority factor, {@code priority} or {@code tolerance} without {@code objective: lexicographic},
 * {@code objective: lexicographic} without {@code priority}, and {@code tie_band} with the lexicographic objective.
 * <p>
 * This class is stateless and threadsafe.
 */
final class RankingReader
{
    static final List<String> KEYS =
        List.of("latency_metric", "cost_mix", "objective", "priority", "tolerance", "tie_band", "tie_break", "pick",
            "load_metric");
    static final List<String> PICKS = List.of("best", "p2c");
    static final List<String> LOAD_METRICS = List.of("requests", "tokens");
    static final List<String> COST_MIX_KEYS = List.of("prompt", "completion");
    static final List<String> LATENCY_METRICS = List.of("auto", "tpot", "ttft");
    static final List<String> OBJECTIVES = List.of("weighted", "lexicographic");
    static final List<String> TIE_BREAKS = List.of("first", "random");
    static final List<String> FACTORS = List.of("quality", "latency", "cost", "load");

    private RankingReader()
    {
    }

    /**
     * @param mf reader of the {@code multi_factor} mapping (opened with {@link #KEYS} among its keys).
     * @param problems where to report.
     * @return the settings; meaningful only when no error was reported.
     */
    static RankingConfig read(final MappingReader mf, final Problems problems)
    {
        final int latencyMetric = Math.max(LatencyMetric.AUTO,
            word(mf, problems, "latency_metric", LATENCY_METRICS, LatencyMetric.AUTO));
        double costPrompt = CostMix.DEFAULT_PROMPT;
        double costCompletion = CostMix.DEFAULT_COMPLETION;
        final MappingReader mix = mf.optionalMapping("cost_mix", COST_MIX_KEYS);
        if (mix != null)
        {
            costPrompt = mix.optionalNumber("prompt", 0.0, true);
            costCompletion = mix.optionalNumber("completion", 0.0, true);
            if (!Double.isNaN(costPrompt) && !Double.isNaN(costCompletion) && !CostMix.isValid(costPrompt, costCompletion))
            {
                final double sum = costPrompt + costCompletion;
                problems.error(mix.node(), mix.path(), sum == 0.0 ?
                    "prompt and completion must not both be 0, got " + describe(mix.node()) :
                    "prompt and completion are too large to add up; scale them down, got " + describe(mix.node()));
            }
        }

        final int objectiveOrWrong = word(mf, problems, "objective", OBJECTIVES, Objective.WEIGHTED);
        // A misspelt objective is reported once; the checks that depend on the objective are then skipped.
        final boolean objectiveKnown = objectiveOrWrong >= 0;
        final int objective = objectiveKnown ? objectiveOrWrong : Objective.WEIGHTED;
        final boolean lexicographic = objective == Objective.LEXICOGRAPHIC;
        final List<Integer> priority = priority(mf, problems);
        if (objectiveKnown && mf.has("priority") && !lexicographic)
        {
            problems.error(mf.value("priority"), mf.path("priority"),
                "priority applies to objective: lexicographic only, but the objective is " + objectiveText(mf) +
                "; add objective: lexicographic or remove priority");
        }
        if (lexicographic && !mf.has("priority"))
        {
            problems.error(mf.value("objective"), mf.path("priority"),
                "objective: lexicographic needs a priority, such as [quality, latency, cost, load]");
        }
        final double tolerance = unitInterval(mf, problems, "tolerance");
        if (objectiveKnown && mf.has("tolerance") && !lexicographic)
        {
            problems.error(mf.value("tolerance"), mf.path("tolerance"),
                "tolerance applies to objective: lexicographic only, but the objective is " + objectiveText(mf) +
                ", got " + describe(mf.value("tolerance")));
        }
        final double tieBand = unitInterval(mf, problems, "tie_band");
        if (mf.has("tie_band") && lexicographic)
        {
            problems.error(mf.value("tie_band"), mf.path("tie_band"),
                "tie_band applies to the weighted objective only (objective: lexicographic keeps every candidate within " +
                "tolerance instead), got " + describe(mf.value("tie_band")));
        }
        final int tieBreak = Math.max(TieBreak.FIRST, word(mf, problems, "tie_break", TIE_BREAKS, TieBreak.FIRST));
        final int pick = Math.max(Pick.BEST, word(mf, problems, "pick", PICKS, Pick.BEST));
        if (pick == Pick.P2C)
        {
            refuseWithP2c(mf, problems, lexicographic, tieBand, tieBreak);
        }
        final int loadMetric = Math.max(LoadMetric.REQUESTS,
            word(mf, problems, "load_metric", LOAD_METRICS, LoadMetric.REQUESTS));
        if (lexicographic && mf.has("weights"))
        {
            problems.warning(mf.value("weights"), mf.path("weights"), "weights are ignored by objective: lexicographic");
        }
        return new RankingConfig(
            latencyMetric,
            Double.isNaN(costPrompt) ? CostMix.DEFAULT_PROMPT : costPrompt,
            Double.isNaN(costCompletion) ? CostMix.DEFAULT_COMPLETION : costCompletion,
            objective,
            lexicographic && priority != null ? priority : List.of(),
            Double.isNaN(tolerance) ? 0.0 : tolerance,
            Double.isNaN(tieBand) || lexicographic ? 0.0 : tieBand,
            tieBreak,
            pick,
            loadMetric);
    }

    /** {@code pick: p2c} is its own way to spread traffic: refused with the lexicographic objective and near ties. */
    private static void refuseWithP2c(
        final MappingReader mf, final Problems problems, final boolean lexicographic, final double tieBand,
        final int tieBreak)
    {
        final String why = " (p2c picks the better of two survivors drawn at random on the weighted objective)";
        if (lexicographic)
        {
            problems.error(mf.value("pick"), mf.path("pick"),
                "pick: p2c applies to the weighted objective only, but the objective is lexicographic" + why);
        }
        if (tieBand > 0.0 && !lexicographic)
        {
            problems.error(mf.value("tie_band"), mf.path("tie_band"),
                "tie_band must be 0 with pick: p2c, got " + describe(mf.value("tie_band")) + why);
        }
        if (tieBreak == TieBreak.RANDOM)
        {
            problems.error(mf.value("tie_break"), mf.path("tie_break"),
                "tie_break: random does not go with pick: p2c, got \"random\"" + why);
        }
    }

    /**
     * One word out of a fixed list; an unknown one is reported with the nearest valid one.
     *
     * @return its index in {@code words}, {@code absent} when the key is absent, -1 when the value is wrong (reported).
     */
    private static int word(
        final MappingReader mf, final Problems problems, final String key, final List<String> words, final int absent)
    {
        final String text = mf.optionalString(key, null);
        if (text == null)
        {
            return mf.has(key) ? -1 : absent;
        }
        final int index = words.indexOf(text);
        if (index < 0)
        {
            problems.error(mf.value(key), mf.path(key), "unknown " + key + " \"" + Excerpt.value(text) + "\" (expected " +
                alternatives(words) + suggestion(text, words) + ')');
        }
        return index;
    }

    /** @return the priority as factor indices, or {@code null} when absent or wrong (reported). */
    private static List<Integer> priority(final MappingReader mf, final Problems problems)
    {
        final YamlSequence list = mf.optionalSequence("priority");
        if (list == null)
        {
            return null;
        }
        if (list.items().isEmpty())
        {
            problems.error(list, mf.path("priority"), "must not be empty, got []; list one or more of " +
                alternatives(FACTORS));
            return null;
        }
        final List<Integer> factors = new ArrayList<>();
        final YamlNode[] firstAt = new YamlNode[Factor.COUNT];
        boolean valid = true;
        for (int i = 0; i < list.items().size(); i++)
        {
            final YamlNode item = list.items().get(i);
            final String path = mf.path("priority") + '[' + i + ']';
            final String name = Values.string(item, path, problems);
            if (name == null)
            {
                valid = false;
                continue;
            }
            final int factor = Factor.parse(name);
            if (factor < 0)
            {
                problems.error(item, path, "unknown factor \"" + name + "\" (expected " + alternatives(FACTORS) +
                    suggestion(name, FACTORS) + ')');
                valid = false;
                continue;
            }
            if (firstAt[factor] != null)
            {
                problems.error(item, path, "duplicate factor \"" + name + "\" in priority (first at line " +
                    firstAt[factor].line() + ", column " + firstAt[factor].column() + ')');
                valid = false;
                continue;
            }
            firstAt[factor] = item;
            factors.add(factor);
        }
        return valid ? factors : null;
    }

    /** @return a finite number in 0..1, 0 when absent, NaN after reporting a problem. */
    static double unitInterval(final MappingReader mf, final Problems problems, final String key)
    {
        if (!mf.has(key))
        {
            return 0.0;
        }
        final double value = Values.number(mf.value(key), mf.path(key), problems, false);
        if (!Double.isNaN(value) && (value < 0.0 || value > 1.0))
        {
            problems.error(mf.value(key), mf.path(key), "must be in 0..1, got " + describe(mf.value(key)));
            return Double.NaN;
        }
        return value;
    }

    private static String objectiveText(final MappingReader mf)
    {
        return mf.has("objective") ? describe(mf.value("objective")) : "weighted (the default)";
    }

    static String describe(final YamlNode node)
    {
        return node instanceof YamlScalar ? ((YamlScalar)node).text() : node.describe();
    }

    private static String alternatives(final List<String> words)
    {
        final StringBuilder text = new StringBuilder();
        for (int i = 0; i < words.size(); i++)
        {
            if (i > 0)
            {
                text.append(i == words.size() - 1 ? " or " : ", ");
            }
            text.append(words.get(i));
        }
        return text.toString();
    }

    private static String suggestion(final String wrong, final List<String> words)
    {
        final String nearest = NearestName.of(wrong, words);
        return nearest == null ? "" : "; did you mean " + nearest + '?';
    }
}
