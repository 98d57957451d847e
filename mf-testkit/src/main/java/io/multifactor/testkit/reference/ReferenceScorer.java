package io.multifactor.testkit.reference;

import io.multifactor.api.DropReason;
import io.multifactor.api.Factor;
import io.multifactor.api.Outcome;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The oracle: one selection, every key at once (docs/semantics.md, docs/server-signals.md,
 * docs/estimators-and-pickers.md), written for clarity, not speed, from the documented rules and never from the
 * kernel: one object per candidate, lists and maps, the real-number expressions as the documentation writes them ({@code (x - min) / (max - min)}, {@code (a*P + b*K) / (a + b)}), and the factors taken from
 * mf-api's {@link Factor} table (label, direction, count).
 * <ul>
 * <li>eligibility, first: a candidate not excluded whose {@code context_window} is below the request's prompt plus
 *     output tokens ({@code default_output_tokens} without {@code max_output_tokens}) is dropped for {@code context},
 *     else one lacking a capability the request needs for {@code capability}; the ineligible count for nothing
 *     afterwards (ejection cap, normalization, fallbacks); none eligible: outcome {@code ineligible};</li>
 * <li>admission, for a {@code sheddable} request of a decision with {@code admission}: no eligible candidate below
 *     {@code sheddable_above} times every load ceiling set (a missing queue or KV-cache value has room): outcome
 *     {@code shed}, every eligible candidate listed without drop or score;</li>
 * <li>the request's own TPOT and TTFT ceilings replace the decision's where tighter (or where it has none);</li>
 * <li>drops, the first that applies: excluded; ejected; quality floor ({@code min_quality}: below it or
 *     unrated); TPOT, TTFT, cost C(m), in-flight requests ({@code max_inflight}), in-flight tokens ({@code max_inflight_tokens}, whatever
 *     {@code load_metric} says), queue W(m), KV-cache K(m) (each strictly greater, a ceiling of 0 is off, a missing
 *     value never drops), then {@code stale} when {@code when_stale: saturated}, the decision sets {@code max_queue}
 *     or {@code max_kv_cache}, and the model's servers are all stale;</li>
 * <li>the ejection cap: of the n candidates the request does not exclude, ejection drops at most
 *     {@code max(1, floor(p / 100 * n))}, p = 10 (no candidate of a problem has {@code reliability}); beyond that the
 *     ejected candidates whose ejection ends soonest (then the earlier) stay candidates, checked as any other;</li>
 * <li>signals: latency T(m) by {@code latency_metric} (auto: TPOT, else TTFT); cost C(m) = (a*P + b*K) / (a + b) with
 *     the request's token counts as a and b when it carries any, else {@code cost_mix}, missing when a price with a
 *     non-zero share is, where the prompt price P is {@code (1 - P(m)) * prompt_per_1m + P(m) * cached_prompt_per_1m}
 *     when the request supplies the model's cached share P(m) and the model has {@code cached_prompt_per_1m}, else
 *     {@code prompt_per_1m} (missing when that is); load N(m) the in-flight requests, or tokens with
 *     {@code load_metric: tokens}; prefix P(m) as the request supplies it (higher is better), missing when it does
 *     not;</li>
 * <li>weights clamped at 0 and divided by their sum; all 0: the seed's four 0.25, the others 0;</li>
 * <li>min-max normalization over the survivors that have the signal, inverted as {@code 1 - t} for a factor where
 *     lower is better, 0.5 when every survivor that has it shares one value, 0 when missing;</li>
 * <li>weighted: the score is the weighted sum; the tied are the survivors within {@code tie_band} of the best;
 *     {@code tie_break: first} takes the earliest, {@code random} one drawn uniformly; {@code pick: p2c} draws two
 *     distinct survivors and the higher score wins (equal: the earlier);</li>
 * <li>lexicographic: per priority factor, keep the survivors within {@code tolerance} of the best; the finalists are
 *     the tied; a survivor's score is its value of the first priority factor;</li>
 * <li>no survivor: {@code on_no_candidates} among the eligible (every candidate excluded: failed, whatever the
 *     policy); {@code shed} sheds when every eligible candidate was dropped for a load reason (in-flight, in-flight
 *     tokens, queue, KV-cache, stale), else fails.</li>
 * </ul>
 * The kernel computes the same real-valued quantities with other expressions, so the two are compared with
 * {@link ScoreTolerance}, and a tie set or a finalist set only when {@link ReferenceRanking#boundaryMargin()} says no
 * value sat on a threshold. The random draws come from a {@link Random} seeded with the request's seed, not from the
 * kernel's generator: a random choice is compared as membership of the tied set.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class ReferenceScorer
{
    /** p of the ejection cap: its documented value when no candidate has {@code reliability}. */
    public static final int MAX_EJECTION_PERCENT = 10;

    private ReferenceScorer()
    {
    }

    /**
     * Runs one selection.
     *
     * @param c the problem.
     * @return the outcome, the choice, every candidate's drop reason, normalized factors and score.
     */
    public static ReferenceResult select(final ReferenceCase c)
    {
        return rank(c).result();
    }

    /**
     * Runs one selection and says how close its threshold comparisons came to their boundary.
     *
     * @param c the problem.
     * @return the selection and its boundary margin.
     */
    public static ReferenceRanking rank(final ReferenceCase c)
    {
        final ReferenceDecision decision = c.decision();
        final ReferenceExtensions keys = decision.extensions();
        final List<Row> rows = new ArrayList<>();
        for (final ReferenceModel model : decision.candidates())
        {
            rows.add(new Row(model, c));
        }
        final double[] weights = effectiveWeights(decision);

        // Eligibility first: a candidate the request leaves in is dropped when its context window is too small for the
        // request's prompt plus output tokens, else when it lacks a capability the request needs; the ineligible count
        // for nothing after this, as the excluded.
        final ReferenceEligibility eligibility = c.eligibility();
        final long promptTokens = c.request().promptTokens() == null ? 0L : c.request().promptTokens();
        boolean anyLeftIn = false;
        boolean anyEligible = false;
        for (final Row row : rows)
        {
            if (row.excluded)
            {
                continue;
            }
            anyLeftIn = true;
            final String why = eligibility.ineligibility(row.model.name(), promptTokens, c.request().maxOutputTokens());
            if (why != null)
            {
                row.ineligible = true;
                row.dropReason = "context".equals(why) ? DropReason.CONTEXT : DropReason.CAPABILITY;
            }
            else
            {
                anyEligible = true;
            }
        }
        if (anyLeftIn && !anyEligible)
        {
            return finish(c, rows, weights, Outcome.INELIGIBLE, null, Double.POSITIVE_INFINITY);
        }
        // Admission, for a sheddable request of a decision with admission: shed when no eligible candidate has room.
        if (eligibility.sheddable() && eligibility.sheddableAbove() > 0 && !anyRoom(rows, decision, eligibility))
        {
            return finish(c, rows, weights, Outcome.SHED, null, Double.POSITIVE_INFINITY);
        }

        int candidates = 0;
        int ejected = 0;
        for (final Row row : rows)
        {
            if (!row.excluded && !row.ineligible)
            {
                candidates++;
                row.dropReason = row.observation.ejectedMs() != null ? DropReason.EJECTED : dropReason(row, c);
                ejected += row.dropReason == DropReason.EJECTED ? 1 : 0;
            }
        }
        // The ejection cap: the ejected whose ejection ends soonest come back, one at a time.
        for (int back = ejected - Math.max(1, MAX_EJECTION_PERCENT * candidates / 100); back > 0; back--)
        {
            Row soonest = null;
            for (final Row row : rows)
            {
                if (row.dropReason == DropReason.EJECTED &&
                    (soonest == null || row.observation.ejectedMs() < soonest.observation.ejectedMs()))
                {
                    soonest = row;
                }
            }
            soonest.dropReason = dropReason(soonest, c);
        }
        final boolean anyNotExcluded = candidates > 0;
        final List<Row> survivors = new ArrayList<>();
        for (final Row row : rows)
        {
            if (row.dropReason == DropReason.NONE)
            {
                survivors.add(row);
            }
        }
        if (!anyNotExcluded)
        {
            // Nothing left to fall back to, whatever the policy.
            return finish(c, rows, weights, Outcome.FAILED, null, Double.POSITIVE_INFINITY);
        }
        if (survivors.isEmpty())
        {
            return fallback(c, rows, weights);
        }

        for (int f = 0; f < Factor.COUNT; f++)
        {
            normalize(survivors, f);
        }
        final Random random = new Random(c.request().seed());
        if (keys.lexicographic())
        {
            return lexicographic(c, rows, survivors, weights, random);
        }
        double best = Double.NEGATIVE_INFINITY;
        for (final Row row : survivors)
        {
            double sum = 0.0;
            for (int f = 0; f < Factor.COUNT; f++)
            {
                sum += weights[f] * row.normalized[f];
            }
            row.score = sum;
            best = Math.max(best, sum);
        }
        if (keys.p2c())
        {
            return powerOfTwo(c, rows, survivors, weights, random);
        }
        final double threshold = best - keys.tieBand();
        final List<Row> tied = new ArrayList<>();
        double margin = Double.POSITIVE_INFINITY;
        for (final Row row : survivors)
        {
            if (row.score != best)
            {
                margin = Math.min(margin, Math.abs(row.score - threshold));
            }
            if (row.score >= threshold)
            {
                tied.add(row);
                row.tied = true;
            }
        }
        final Row winner = "random".equals(keys.tieBreak()) ? tied.get(random.nextInt(tied.size())) : tied.get(0);
        return finish(c, rows, weights, Outcome.SCORED, winner, margin);
    }

    /**
     * The cost per 1M tokens of a model under a mix: {@code (a*P + b*K) / (a + b)}, missing when a price with a non-zero
     * share is missing.
     *
     * @param model the model.
     * @param promptShare a.
     * @param completionShare b.
     * @return the cost, {@code null} when missing.
     */
    private static Double cost(
        final ReferenceModel model, final Double cachedShare, final double promptShare, final double completionShare)
    {
        if ((promptShare > 0 && model.promptPer1M() == null) || (completionShare > 0 && model.completionPer1M() == null))
        {
            return null;
        }
        final Double promptPrice = promptPrice(model, cachedShare);
        // (a * P + b * K) / (a + b), written as the weights a / (a + b) and b / (a + b) times the prices: the same
        // value, and a request that prices only its prompt then costs exactly P (a*P/a can round above P, and a price
        // equal to max_cost_per_1m would break the ceiling by one ulp).
        final double total = promptShare + completionShare;
        final double p = promptShare > 0 ? promptShare / total * promptPrice : 0.0;
        final double k = completionShare > 0 ? completionShare / total * model.completionPer1M() : 0.0;
        return p + k;
    }

    /**
     * The prompt price of a model for one request: with the request's cached share P of the model and the model's
     * {@code cached_prompt_per_1m}, the uncached part at {@code prompt_per_1m} and the cached part at the cached price;
     * else {@code prompt_per_1m}; missing when {@code prompt_per_1m} is.
     */
    private static Double promptPrice(final ReferenceModel model, final Double cachedShare)
    {
        if (model.promptPer1M() == null)
        {
            return null;
        }
        if (cachedShare == null || model.cachedPromptPer1M() == null)
        {
            return model.promptPer1M();
        }
        return (1.0 - cachedShare) * model.promptPer1M() + cachedShare * model.cachedPromptPer1M();
    }

    /**
     * {@code pick: p2c} written from its definition: of the survivors, two distinct ones are drawn uniformly, the
     * higher score wins and an equal score goes to the earlier in {@code modelRefs} order. Over all {@code C(s, 2)}
     * equally likely pairs, survivor {@code i} wins exactly the pairs it makes with a survivor it beats, so its
     * probability is {@code beats(i) / C(s, 2)}; one survivor wins alone.
     *
     * @param scores the survivors' scores, in {@code modelRefs} order.
     * @return each survivor's probability of being picked.
     */
    public static double[] p2cProbabilities(final double[] scores)
    {
        final int s = scores.length;
        final double[] p = new double[s];
        if (s == 1)
        {
            p[0] = 1.0;
            return p;
        }
        final double pairs = s * (s - 1) / 2.0;
        for (int i = 0; i < s; i++)
        {
            int beats = 0;
            for (int j = 0; j < s; j++)
            {
                if (j != i && (scores[i] > scores[j] || scores[i] == scores[j] && i < j))
                {
                    beats++;
                }
            }
            p[i] = beats / pairs;
        }
        return p;
    }

    /**
     * @param decision the decision.
     * @return the weight of each {@link Factor}: clamped at 0 and divided by their sum; all 0: the seed's four 0.25.
     * @throws IllegalArgumentException for weights whose sum overflows.
     */
    private static double[] effectiveWeights(final ReferenceDecision decision)
    {
        final double[] w = new double[Factor.COUNT];
        double total = 0.0;
        for (int f = 0; f < Factor.COUNT; f++)
        {
            w[f] = Math.max(0.0, decision.weight(f));
            total += w[f];
        }
        if (Double.isInfinite(total))
        {
            throw new IllegalArgumentException("weights too large to add up");
        }
        for (int f = 0; f < Factor.COUNT; f++)
        {
            if (total == 0.0)
            {
                w[f] = f < Factor.SEED_COUNT ? 0.25 : 0.0;
            }
            else
            {
                w[f] /= total;
            }
        }
        return w;
    }

    private static ReferenceRanking lexicographic(
        final ReferenceCase c, final List<Row> rows, final List<Row> survivors, final double[] weights,
        final Random random)
    {
        final ReferenceExtensions keys = c.decision().extensions();
        double margin = Double.POSITIVE_INFINITY;
        List<Row> remaining = new ArrayList<>(survivors);
        for (final String label : keys.priority())
        {
            final int factor = Factor.parse(label);
            double best = Double.NEGATIVE_INFINITY;
            for (final Row row : remaining)
            {
                best = Math.max(best, row.normalized[factor]);
            }
            final double threshold = best - keys.tolerance();
            final List<Row> kept = new ArrayList<>();
            for (final Row row : remaining)
            {
                final double value = row.normalized[factor];
                if (value != best)
                {
                    margin = Math.min(margin, Math.abs(value - threshold));
                }
                if (value >= threshold)
                {
                    kept.add(row);
                }
                else
                {
                    row.eliminatedBy = label;
                }
            }
            remaining = kept;
        }
        final int first = Factor.parse(keys.priority().get(0));
        for (final Row row : survivors)
        {
            row.score = row.normalized[first];
        }
        for (final Row row : remaining)
        {
            row.tied = true;
        }
        final Row winner = "random".equals(keys.tieBreak()) ?
            remaining.get(random.nextInt(remaining.size())) : remaining.get(0);
        return finish(c, rows, weights, Outcome.SCORED, winner, margin);
    }

    private static ReferenceRanking powerOfTwo(
        final ReferenceCase c, final List<Row> rows, final List<Row> survivors, final double[] weights,
        final Random random)
    {
        final int s = survivors.size();
        final double[] scores = new double[s];
        for (int i = 0; i < s; i++)
        {
            scores[i] = survivors.get(i).score;
        }
        final double[] p = p2cProbabilities(scores);
        double margin = Double.POSITIVE_INFINITY;
        for (int i = 0; i < s; i++)
        {
            survivors.get(i).tied = p[i] > 0.0;
            for (int j = i + 1; j < s; j++)
            {
                // Two scores within rounding of each other may beat one another either way in another implementation.
                margin = Math.min(margin, Math.abs(scores[i] - scores[j]));
            }
        }
        Row winner = survivors.get(0);
        if (s > 1)
        {
            final int a = random.nextInt(s);
            int b = random.nextInt(s - 1);
            b = b >= a ? b + 1 : b;
            final int earlier = Math.min(a, b);
            final int later = Math.max(a, b);
            winner = scores[later] > scores[earlier] ? survivors.get(later) : survivors.get(earlier);
        }
        return finish(c, rows, weights, Outcome.SCORED, winner, margin);
    }

    /**
     * Admission: whether an eligible candidate has room, its value below {@code sheddable_above} times every load
     * ceiling the decision sets ({@code max_inflight}, {@code max_inflight_tokens}, {@code max_queue},
     * {@code max_kv_cache}; a missing queue or KV-cache value has room); a decision that sets none always has room.
     */
    private static boolean anyRoom(final List<Row> rows, final ReferenceDecision decision, final ReferenceEligibility e)
    {
        final ReferenceExtensions keys = decision.extensions();
        final double share = e.sheddableAbove();
        if (decision.maxInflight() <= 0 && keys.maxInflightTokens() <= 0 && keys.maxQueue() <= 0 &&
            keys.maxKvCache() <= 0)
        {
            return true;
        }
        for (final Row row : rows)
        {
            if (row.excluded || row.ineligible)
            {
                continue;
            }
            final ReferenceObservation o = row.observation;
            final boolean room = (decision.maxInflight() <= 0 || o.inflight() < share * decision.maxInflight()) &&
                (keys.maxInflightTokens() <= 0 || o.inflightTokens() < share * keys.maxInflightTokens()) &&
                (keys.maxQueue() <= 0 || o.queue() == null || o.queue() < share * keys.maxQueue()) &&
                (keys.maxKvCache() <= 0 || o.kvCache() == null || o.kvCache() < share * keys.maxKvCache());
            if (room)
            {
                return true;
            }
        }
        return false;
    }

    /** @return the smaller of two ceilings where 0 is none: the request's can only tighten the decision's. */
    private static double tighter(final double decision, final double request)
    {
        return request > 0 && (decision <= 0 || request < decision) ? request : decision;
    }

    private static int dropReason(final Row row, final ReferenceCase c)
    {
        final ReferenceDecision decision = c.decision();
        final ReferenceExtensions keys = decision.extensions();
        final ReferenceObservation o = row.observation;
        final double floor = keys.minQuality();
        if (floor > 0 && (row.model.quality() == null || row.model.quality() < floor))
        {
            return DropReason.QUALITY;
        }
        if (above(o.tpotMs(), tighter(decision.maxTpotMs(), c.eligibility().maxTpotMs())))
        {
            return DropReason.TPOT;
        }
        if (above(o.ttftMs(), tighter(decision.maxTtftMs(), c.eligibility().maxTtftMs())))
        {
            return DropReason.TTFT;
        }
        if (above(row.cost, decision.maxCostPer1M()))
        {
            return DropReason.COST;
        }
        if (decision.maxInflight() > 0 && o.inflight() > decision.maxInflight())
        {
            return DropReason.INFLIGHT;
        }
        if (keys.maxInflightTokens() > 0 && o.inflightTokens() > keys.maxInflightTokens())
        {
            return DropReason.INFLIGHT_TOKENS;
        }
        if (above(o.queue(), keys.maxQueue()))
        {
            return DropReason.QUEUE;
        }
        if (above(o.kvCache(), keys.maxKvCache()))
        {
            return DropReason.KV_CACHE;
        }
        if (keys.whenStaleSaturated() && (keys.maxQueue() > 0 || keys.maxKvCache() > 0) && o.stale())
        {
            return DropReason.STALE;
        }
        return DropReason.NONE;
    }

    private static boolean above(final Double value, final double ceiling)
    {
        return ceiling > 0 && value != null && value > ceiling;
    }

    /** Min-max over the survivors that have the signal; inverted where lower is better. */
    private static void normalize(final List<Row> survivors, final int factor)
    {
        Double min = null;
        Double max = null;
        for (final Row row : survivors)
        {
            final Double value = row.raw(factor);
            if (value != null)
            {
                min = min == null || value < min ? value : min;
                max = max == null || value > max ? value : max;
            }
        }
        for (final Row row : survivors)
        {
            final Double value = row.raw(factor);
            final double normalized;
            if (value == null)
            {
                normalized = 0.0;
            }
            else if (max.equals(min))
            {
                normalized = 0.5;
            }
            else
            {
                final double fraction = (value - min) / (max - min);
                normalized = Factor.lowerIsBetter(factor) ? 1.0 - fraction : fraction;
            }
            row.normalized[factor] = normalized;
        }
    }

    private static ReferenceRanking fallback(final ReferenceCase c, final List<Row> rows, final double[] weights)
    {
        Row first = null;
        Row cheapest = null;
        for (final Row row : rows)
        {
            if (row.excluded || row.ineligible)
            {
                continue;
            }
            if (first == null)
            {
                first = row;
            }
            // Unpriced never wins over priced; strictly lower keeps the earlier of equal prices.
            if (row.cost != null && (cheapest == null || row.cost < cheapest.cost))
            {
                cheapest = row;
            }
        }
        switch (c.decision().policy())
        {
            case ReferenceDecision.FIRST:
                return finish(c, rows, weights, Outcome.FALLBACK_FIRST, first, Double.POSITIVE_INFINITY);
            case ReferenceDecision.FAIL:
                return finish(c, rows, weights, Outcome.FAILED, null, Double.POSITIVE_INFINITY);
            case ReferenceDecision.SHED:
                boolean allLoad = true;
                for (final Row row : rows)
                {
                    if (!row.excluded && !row.ineligible)
                    {
                        allLoad &= row.dropReason == DropReason.INFLIGHT || row.dropReason == DropReason.INFLIGHT_TOKENS ||
                            row.dropReason == DropReason.QUEUE || row.dropReason == DropReason.KV_CACHE ||
                            row.dropReason == DropReason.STALE;
                    }
                }
                return finish(c, rows, weights, allLoad ? Outcome.SHED : Outcome.FAILED, null, Double.POSITIVE_INFINITY);
            default:
                return finish(c, rows, weights, Outcome.FALLBACK_CHEAPEST, cheapest != null ? cheapest : first,
                    Double.POSITIVE_INFINITY);
        }
    }

    private static ReferenceRanking finish(
        final ReferenceCase c,
        final List<Row> rows,
        final double[] weights,
        final int outcome,
        final Row winner,
        final double margin)
    {
        final int reported = c.reportedFactors();
        final List<ReferenceCandidate> candidates = new ArrayList<>();
        for (final Row row : rows)
        {
            final boolean scored = row.score != null;
            candidates.add(new ReferenceCandidate(
                row.model.name(),
                row.dropReason,
                row.model.quality(),
                row.observation.tpotMs(),
                row.observation.ttftMs(),
                row.cost,
                row.observation.inflight(),
                scored ? factorMap(row.normalized, reported) : Map.of(),
                row.score,
                row.eliminatedBy,
                row.tied));
        }
        final int index = winner == null ? -1 : rows.indexOf(winner);
        return new ReferenceRanking(
            new ReferenceResult(c.decision().name(), outcome, index, winner == null ? null : winner.model.name(),
                factorMap(weights, reported), candidates),
            margin);
    }

    /**
     * @param values one value per {@link Factor}, at least {@code factorCount}.
     * @param factorCount how many factors to report: {@link Factor#SEED_COUNT} or {@link Factor#COUNT}.
     * @return the first {@code factorCount} values by factor label.
     */
    static Map<String, Double> factorMap(final double[] values, final int factorCount)
    {
        final Map<String, Double> map = new LinkedHashMap<>();
        for (int f = 0; f < factorCount; f++)
        {
            map.put(Factor.label(f), values[f]);
        }
        return map;
    }

    /** One candidate while it is being ranked. */
    private static final class Row
    {
        final ReferenceModel model;
        final ReferenceObservation observation;
        final boolean excluded;
        final boolean tokenLoad;
        final Double latency;
        final Double cost;
        final double[] normalized = new double[Factor.COUNT];
        int dropReason;
        boolean ineligible;
        Double score;
        String eliminatedBy;
        boolean tied;

        Row(final ReferenceModel model, final ReferenceCase c)
        {
            final ReferenceExtensions keys = c.decision().extensions();
            final ReferenceRequest request = c.request();
            this.model = model;
            this.observation = request.observation(model.name());
            this.excluded = request.excluded().contains(model.name());
            this.dropReason = excluded ? DropReason.EXCLUDED : DropReason.NONE;
            this.tokenLoad = keys.tokenLoad();
            switch (keys.latencyMetric())
            {
                case "tpot":
                    latency = observation.tpotMs();
                    break;
                case "ttft":
                    latency = observation.ttftMs();
                    break;
                default:
                    latency = observation.tpotMs() != null ? observation.tpotMs() : observation.ttftMs();
                    break;
            }
            final long promptTokens = request.promptTokens() == null ? 0 : request.promptTokens();
            final long outputTokens = request.maxOutputTokens() == null ? 0 : request.maxOutputTokens();
            // A request's token counts replace the decision's mix when it carries any.
            cost = promptTokens + outputTokens > 0 ?
                cost(model, observation.prefix(), promptTokens, outputTokens) :
                cost(model, observation.prefix(), keys.costMixPrompt(), keys.costMixCompletion());
        }

        Double raw(final int factor)
        {
            switch (factor)
            {
                case Factor.QUALITY:
                    return model.quality();
                case Factor.LATENCY:
                    return latency;
                case Factor.COST:
                    return cost;
                case Factor.LOAD:
                    return (double)(tokenLoad ? observation.inflightTokens() : observation.inflight());
                case Factor.QUEUE:
                    return observation.queue();
                case Factor.KV_CACHE:
                    return observation.kvCache();
                case Factor.PREFIX:
                    return observation.prefix();
                default:
                    throw new IllegalArgumentException("no signal of factor " + Factor.label(factor) + " in the oracle");
            }
        }
    }
}
