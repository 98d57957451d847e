package io.multifactor.kernel.plan;

import io.multifactor.api.Factor;
import io.multifactor.api.LatencyMetric;
import io.multifactor.api.Objective;
import io.multifactor.kernel.reliability.EjectionPolicy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Builds a {@link Plans} snapshot programmatically (the YAML compiler uses it too). Given the previous snapshot, every
 * name the lineage has ever held keeps its handle (names that stay, and names removed by an earlier snapshot and now
 * restored), and names never seen get handles never issued before.
 * <p>
 * Programming errors (an unknown or duplicate name, an empty candidate list, a value out of range) are refused with
 * {@link IllegalArgumentException}; user-facing validation with located messages belongs to the configuration layer.
 * <p>
 * This class is not threadsafe: build on one thread, then share the immutable result.
 */
public final class PlansBuilder
{
    private final Map<String, Integer> previousModelIds = new HashMap<>();
    private final Map<String, Integer> previousDecisionIds = new HashMap<>();
    private final List<String> modelLineage = new ArrayList<>();
    private final List<String> decisionLineage = new ArrayList<>();

    private final Map<String, Integer> modelIds = new HashMap<>();
    private final Map<String, EjectionPolicy> ejectionPolicies = new HashMap<>();
    private final Map<String, Double> cachedPromptPrices = new HashMap<>();
    private final List<String> modelNames = new ArrayList<>();
    private final List<double[]> modelPrices = new ArrayList<>();
    private final List<Integer> modelIdOrder = new ArrayList<>();
    private final List<DecisionSpec> decisions = new ArrayList<>();
    // Eligibility (context window, capabilities) by model name; engine-wide default output tokens.
    private final Map<String, long[]> eligibilityByModel = new HashMap<>();
    private long defaultOutputTokens = RequestRules.DEFAULT_OUTPUT_TOKENS;

    /** A builder for a first snapshot: handles start at 0. */
    public PlansBuilder()
    {
    }

    /**
     * A builder for the snapshot that replaces {@code previous}: every name of its lineage keeps its handle, whether it
     * is in {@code previous} or was removed by an earlier snapshot.
     *
     * @param previous the snapshot being replaced.
     */
    public PlansBuilder(final Plans previous)
    {
        final String[] models = previous.modelLineage();
        for (int i = 0; i < models.length; i++)
        {
            previousModelIds.put(models[i], i);
            modelLineage.add(models[i]);
        }
        final String[] decisionNames = previous.decisionLineage();
        for (int i = 0; i < decisionNames.length; i++)
        {
            previousDecisionIds.put(decisionNames[i], i);
            decisionLineage.add(decisionNames[i]);
        }
    }

    /**
     * Adds a model.
     *
     * @param name unique, non-empty name.
     * @param quality quality score, finite and >= 0, or NaN when absent.
     * @param promptPer1M prompt price in USD per 1M tokens, finite and >= 0, or NaN when absent.
     * @param completionPer1M completion price in USD per 1M tokens, finite and >= 0, or NaN when absent.
     * @return this builder.
     */
    public PlansBuilder model(final String name, final double quality, final double promptPer1M, final double completionPer1M)
    {
        if (name == null || name.isEmpty())
        {
            throw new IllegalArgumentException("model name must be non-empty");
        }
        if (modelIds.containsKey(name))
        {
            throw new IllegalArgumentException("duplicate model: " + name);
        }
        requireOptionalNonNegative("model " + name + " quality_score", quality);
        requireOptionalNonNegative("model " + name + " prompt_per_1m", promptPer1M);
        requireOptionalNonNegative("model " + name + " completion_per_1m", completionPer1M);
        final Integer previous = previousModelIds.get(name);
        final int id;
        if (previous != null)
        {
            id = previous;
        }
        else
        {
            id = modelLineage.size();
            modelLineage.add(name);
        }
        modelIds.put(name, id);
        modelNames.add(name);
        modelIdOrder.add(id);
        modelPrices.add(new double[] { quality, promptPer1M, completionPer1M });
        return this;
    }

    /**
     * Gives a model added before its {@code reliability}: the engine ejects it after failures (section "Ejection of
     * failing models" of docs/semantics.md).
     *
     * @param name a model added to this builder.
     * @param policy its ejection settings, or null for none.
     * @return this builder.
     * @throws IllegalArgumentException when no model of that name was added.
     */
    public PlansBuilder reliability(final String name, final EjectionPolicy policy)
    {
        if (!modelIds.containsKey(name))
        {
            throw new IllegalArgumentException("reliability of an unknown model: " + name);
        }
        ejectionPolicies.put(name, policy);
        return this;
    }

    /**
     * Gives a model added before its cached prompt price ({@code pricing.cached_prompt_per_1m}): a request that supplies
     * the model's cached share P prices its prompt at {@code (1 - P) * prompt_per_1m + P * cachedPromptPer1M}.
     *
     * @param name a model added to this builder.
     * @param cachedPromptPer1M USD per 1M cached prompt tokens, finite and >= 0, or NaN for none.
     * @return this builder.
     * @throws IllegalArgumentException when no model of that name was added, or for a negative or infinite price.
     */
    public PlansBuilder cachedPromptPrice(final String name, final double cachedPromptPer1M)
    {
        if (!modelIds.containsKey(name))
        {
            throw new IllegalArgumentException("cached prompt price of an unknown model: " + name);
        }
        requireOptionalNonNegative("model " + name + " cached_prompt_per_1m", cachedPromptPer1M);
        cachedPromptPrices.put(name, cachedPromptPer1M);
        return this;
    }

    /**
     * Gives a model added before its eligibility: what a request must fit in and what it may need (section
     * "Eligibility, request SLOs and shedding" of docs/semantics.md).
     *
     * @param name a model added to this builder.
     * @param contextWindow its {@code context_window} in tokens, > 0, or {@link RequestRules#NO_CONTEXT_WINDOW}.
     * @param capabilities its {@code capabilities}, bits of {@link io.multifactor.api.Capability}
     *     ({@code Capability.ALL} when it lists none).
     * @return this builder.
     * @throws IllegalArgumentException when no model of that name was added, or for a value out of range.
     */
    public PlansBuilder eligibility(final String name, final long contextWindow, final int capabilities)
    {
        if (!modelIds.containsKey(name))
        {
            throw new IllegalArgumentException("eligibility of an unknown model: " + name);
        }
        if (contextWindow <= 0)
        {
            throw new IllegalArgumentException("model " + name + " context_window must be > 0: " + contextWindow);
        }
        if ((capabilities & ~io.multifactor.api.Capability.ALL) != 0)
        {
            throw new IllegalArgumentException("model " + name + " capabilities: unknown bits " + capabilities);
        }
        eligibilityByModel.put(name, new long[] { contextWindow, capabilities });
        return this;
    }

    /**
     * @param tokens {@code signals.default_output_tokens}: the output tokens of a request that states none, for the
     *     context window check, >= 0 (default 512).
     * @return this builder.
     */
    public PlansBuilder defaultOutputTokens(final long tokens)
    {
        if (tokens < 0)
        {
            throw new IllegalArgumentException("default_output_tokens must be >= 0: " + tokens);
        }
        defaultOutputTokens = tokens;
        return this;
    }

    /**
     * Adds a model with a quality score and a prompt price only.
     *
     * @param name unique, non-empty name.
     * @param quality quality score, or NaN when absent.
     * @param promptPer1M prompt price in USD per 1M tokens, or NaN when absent.
     * @return this builder.
     */
    public PlansBuilder model(final String name, final double quality, final double promptPer1M)
    {
        return model(name, quality, promptPer1M, Double.NaN);
    }

    /**
     * Starts a decision; finish it with {@link DecisionSpec#add()}.
     *
     * @param name unique decision name.
     * @return the decision's specification, with every default of docs/configuration.md.
     */
    public DecisionSpec decision(final String name)
    {
        return new DecisionSpec(this, name);
    }

    /**
     * @return the snapshot.
     * @throws IllegalArgumentException when a decision names an unknown model.
     */
    public Plans build()
    {
        final int modelCapacity = modelLineage.size();
        final String[] names = new String[modelCapacity];
        final double[] quality = nanArray(modelCapacity);
        final double[] prompt = nanArray(modelCapacity);
        final double[] completion = nanArray(modelCapacity);
        for (int i = 0; i < modelNames.size(); i++)
        {
            final int id = modelIdOrder.get(i);
            names[id] = modelNames.get(i);
            quality[id] = modelPrices.get(i)[0];
            prompt[id] = modelPrices.get(i)[1];
            completion[id] = modelPrices.get(i)[2];
        }
        final double[] cached = nanArray(modelCapacity);
        for (final Map.Entry<String, Double> entry : cachedPromptPrices.entrySet())
        {
            cached[modelIds.get(entry.getKey())] = entry.getValue();
        }

        final TreeSet<Integer> distinctPercentiles = new TreeSet<>();
        for (final DecisionSpec spec : decisions)
        {
            distinctPercentiles.add(spec.percentile);
        }
        final int[] percentiles = new int[distinctPercentiles.size()];
        int slot = 0;
        for (final int p : distinctPercentiles)
        {
            percentiles[slot++] = p;
        }

        final Map<String, Integer> decisionIds = new HashMap<>();
        final List<String> decisionNames = new ArrayList<>(decisionLineage);
        final int[] ids = new int[decisions.size()];
        for (int i = 0; i < decisions.size(); i++)
        {
            final DecisionSpec spec = decisions.get(i);
            if (decisionIds.containsKey(spec.name))
            {
                throw new IllegalArgumentException("duplicate decision: " + spec.name);
            }
            final Integer previous = previousDecisionIds.get(spec.name);
            if (previous != null)
            {
                ids[i] = previous;
            }
            else
            {
                ids[i] = decisionNames.size();
                decisionNames.add(spec.name);
            }
            decisionIds.put(spec.name, ids[i]);
        }
        final DecisionPlan[] plans = new DecisionPlan[decisionNames.size()];
        for (int i = 0; i < decisions.size(); i++)
        {
            final DecisionSpec spec = decisions.get(i);
            plans[ids[i]] = spec.compile(
                ids[i], Arrays.binarySearch(percentiles, spec.percentile), quality, prompt, completion, cached);
        }
        final EjectionPolicy[] policies = new EjectionPolicy[modelCapacity];
        for (final Map.Entry<String, EjectionPolicy> entry : ejectionPolicies.entrySet())
        {
            policies[modelIds.get(entry.getKey())] = entry.getValue();
        }
        final long[] windows = new long[modelCapacity];
        final int[] capabilities = new int[modelCapacity];
        Arrays.fill(windows, RequestRules.NO_CONTEXT_WINDOW);
        Arrays.fill(capabilities, io.multifactor.api.Capability.ALL);
        for (final Map.Entry<String, long[]> entry : eligibilityByModel.entrySet())
        {
            windows[modelIds.get(entry.getKey())] = entry.getValue()[0];
            capabilities[modelIds.get(entry.getKey())] = (int)entry.getValue()[1];
        }
        return new Plans(names, quality, prompt, completion, plans, percentiles, modelLineage.toArray(new String[0]),
            decisionNames.toArray(new String[0])).ejectionPolicies(policies)
            .eligibility(windows, capabilities, defaultOutputTokens);
    }


    private static double[] nanArray(final int length)
    {
        final double[] array = new double[length];
        Arrays.fill(array, Double.NaN);
        return array;
    }

    private static void requireOptionalNonNegative(final String what, final double value)
    {
        if (!Double.isNaN(value) && !(value >= 0.0 && value < Double.POSITIVE_INFINITY))
        {
            throw new IllegalArgumentException(what + " must be finite and >= 0: " + value);
        }
    }

    /**
     * One decision being specified. Defaults: equal weights, no floor, no ceilings, percentile 95, policy
     * {@code cheapest}, latency metric {@code auto}, cost mix {@code {prompt: 1, completion: 0}}, weighted objective, no
     * tie band, tie break {@code first}.
     * <p>
     * This class is not threadsafe.
     */
    public static final class DecisionSpec
    {
        private final PlansBuilder builder;
        // Read by DecisionPlan when it compiles this specification.
        final String name;
        private final List<String> candidates = new ArrayList<>();
        double[] weights = Weights.defaults();
        SignalCeilings signalCeilings = SignalCeilings.NONE;
        double maxTpotMs;
        double maxTtftMs;
        double maxCostPer1M;
        long maxInflight;
        int percentile = 95;
        int policy = NoCandidatesPolicy.CHEAPEST;
        double minQuality;
        int latencyMetric = LatencyMetric.AUTO;
        double costMixPrompt = CostMix.DEFAULT_PROMPT;
        double costMixCompletion = CostMix.DEFAULT_COMPLETION;
        int objective = Objective.WEIGHTED;
        int[] priority = new int[0];
        double tolerance;
        double tieBand;
        int tieBreak = TieBreak.FIRST;
        int algorithmType = AlgorithmType.MULTI_FACTOR;
        int pick = Pick.BEST;
        int loadMetric = LoadMetric.REQUESTS;
        SessionPolicy session;
        PeerParameters peerParameters = PeerParameters.DEFAULTS;
        double sheddableAbove;
        // Set by compile, read by DecisionPlan.
        RequestRules requestRules;

        DecisionSpec(final PlansBuilder builder, final String name)
        {
            if (name == null || name.isEmpty())
            {
                throw new IllegalArgumentException("decision name must be non-empty");
            }
            this.builder = builder;
            this.name = name;
        }

        /**
         * A copy of a baseline's specification without its floor and ceilings (a baseline is compiled without them),
         * its pick {@code best} and its load metric {@code requests}.
         */
        private DecisionSpec(final DecisionSpec baseline)
        {
            this(baseline.builder, baseline.name);
            candidates.addAll(baseline.candidates);
            weights = baseline.weights;
            percentile = baseline.percentile;
            policy = baseline.policy;
            latencyMetric = baseline.latencyMetric;
            costMixPrompt = baseline.costMixPrompt;
            costMixCompletion = baseline.costMixCompletion;
            objective = baseline.objective;
            priority = baseline.priority;
            tolerance = baseline.tolerance;
            tieBand = baseline.tieBand;
            tieBreak = baseline.tieBreak;
            algorithmType = baseline.algorithmType;
            peerParameters = baseline.peerParameters;
        }

        /**
         * @param modelNames candidate model names, in order, appended to those given before.
         * @return this specification.
         */
        public DecisionSpec candidates(final String... modelNames)
        {
            candidates.addAll(Arrays.asList(modelNames));
            return this;
        }

        /**
         * Configured weights; they are clamped and normalized by {@link Weights#normalize}.
         *
         * @param quality weight of quality.
         * @param latency weight of latency.
         * @param cost weight of cost.
         * @param load weight of load.
         * @return this specification.
         */
        public DecisionSpec weights(final double quality, final double latency, final double cost, final double load)
        {
            this.weights = Weights.normalize(quality, latency, cost, load);
            return this;
        }

        /**
         * Configured weights of every factor of the signal table; clamped and normalized by
         * {@link Weights#normalize(double[])}.
         *
         * @param configured weight per {@link Factor} index, 0 where a key is absent.
         * @return this specification.
         */
        public DecisionSpec weights(final double[] configured)
        {
            this.weights = Weights.normalize(configured);
            return this;
        }

        /**
         * @param signalCeilings ceilings on in-flight tokens and the servers' queue and KV-cache use, and
         *     {@code when_stale}.
         * @return this specification.
         */
        public DecisionSpec signalCeilings(final SignalCeilings signalCeilings)
        {
            this.signalCeilings = java.util.Objects.requireNonNull(signalCeilings, "signalCeilings");
            return this;
        }

        /**
         * SLO ceilings; 0 means off.
         *
         * @param maxTpotMs TPOT ceiling in milliseconds.
         * @param maxTtftMs TTFT ceiling in milliseconds.
         * @param maxCostPer1M prompt price ceiling in USD per 1M tokens.
         * @param maxInflight in-flight ceiling.
         * @return this specification.
         */
        public DecisionSpec slo(final double maxTpotMs, final double maxTtftMs, final double maxCostPer1M, final long maxInflight)
        {
            this.maxTpotMs = maxTpotMs;
            this.maxTtftMs = maxTtftMs;
            this.maxCostPer1M = maxCostPer1M;
            this.maxInflight = maxInflight;
            return this;
        }

        /**
         * @param percentile latency percentile to read, 1..100.
         * @return this specification.
         */
        public DecisionSpec percentile(final int percentile)
        {
            if (percentile < 1 || percentile > 100)
            {
                throw new IllegalArgumentException("percentile must be in 1..100: " + percentile);
            }
            this.percentile = percentile;
            return this;
        }

        /**
         * @param policy a {@link NoCandidatesPolicy} code.
         * @return this specification.
         */
        public DecisionSpec policy(final int policy)
        {
            NoCandidatesPolicy.label(policy);
            this.policy = policy;
            return this;
        }

        /**
         * @param minQuality quality floor ({@code slo.min_quality}): a candidate below it or without quality score is
         *     dropped; 0 means off.
         * @return this specification.
         */
        public DecisionSpec minQuality(final double minQuality)
        {
            if (!(minQuality >= 0.0 && minQuality < Double.POSITIVE_INFINITY))
            {
                throw new IllegalArgumentException("min_quality must be finite and >= 0: " + minQuality);
            }
            this.minQuality = minQuality;
            return this;
        }

        /**
         * @param latencyMetric a {@link LatencyMetric} code.
         * @return this specification.
         */
        public DecisionSpec latencyMetric(final int latencyMetric)
        {
            LatencyMetric.label(latencyMetric);
            this.latencyMetric = latencyMetric;
            return this;
        }

        /**
         * @param prompt prompt share, finite and >= 0.
         * @param completion completion share, finite and >= 0; not both 0.
         * @return this specification.
         */
        public DecisionSpec costMix(final double prompt, final double completion)
        {
            if (!CostMix.isValid(prompt, completion))
            {
                throw new IllegalArgumentException("cost_mix must be finite, >= 0 and not both 0: " + prompt + ", " +
                    completion);
            }
            this.costMixPrompt = prompt;
            this.costMixCompletion = completion;
            return this;
        }

        /**
         * Ranks survivors factor by factor instead of by weighted score (the weights are then ignored).
         *
         * @param tolerance how far below the best normalized value a candidate may be and stay, 0..1.
         * @param priorityFactors distinct {@link Factor} indices, most important first; at least one.
         * @return this specification.
         */
        public DecisionSpec lexicographic(final double tolerance, final int... priorityFactors)
        {
            if (priorityFactors.length == 0)
            {
                throw new IllegalArgumentException("lexicographic objective needs at least one priority factor");
            }
            this.objective = Objective.LEXICOGRAPHIC;
            this.priority = priorityFactors.clone();
            this.tolerance = tolerance;
            return this;
        }

        /**
         * @param tieBand weighted objective: a survivor whose score is at least the best minus this is tied, 0..1.
         * @return this specification.
         */
        public DecisionSpec tieBand(final double tieBand)
        {
            if (!(tieBand >= 0.0 && tieBand <= 1.0))
            {
                throw new IllegalArgumentException("tie_band must be in 0..1: " + tieBand);
            }
            this.tieBand = tieBand;
            return this;
        }

        /**
         * @param tieBreak a {@link TieBreak} code.
         * @return this specification.
         */
        public DecisionSpec tieBreak(final int tieBreak)
        {
            TieBreak.label(tieBreak);
            this.tieBreak = tieBreak;
            return this;
        }

        /**
         * @param pick a {@link Pick} code ({@code pick}).
         * @return this specification.
         */
        public DecisionSpec pick(final int pick)
        {
            Pick.label(pick);
            this.pick = pick;
            return this;
        }

        /**
         * @param loadMetric a {@link LoadMetric} code ({@code load_metric}).
         * @return this specification.
         */
        public DecisionSpec loadMetric(final int loadMetric)
        {
            LoadMetric.label(loadMetric);
            this.loadMetric = loadMetric;
            return this;
        }

        /**
         * @param sessionOrNull the decision's {@code session:} block (weighted objective only), or null for none.
         * @return this specification.
         */
        public DecisionSpec session(final SessionPolicy sessionOrNull)
        {
            this.session = sessionOrNull;
            return this;
        }

        /**
         * @param algorithmType an {@link AlgorithmType} code: {@code multi_factor} (the default) or a baseline, which
         *     ignores the weights, and whose floor and ceilings are dropped when it is compiled.
         * @return this specification.
         */
        public DecisionSpec algorithmType(final int algorithmType)
        {
            AlgorithmType.label(algorithmType);
            this.algorithmType = algorithmType;
            return this;
        }

        /**
         * @param peerParameters the parameters of the decision's peer policy ({@code algorithm.<type>:}).
         * @return this specification.
         */
        public DecisionSpec peerParameters(final PeerParameters peerParameters)
        {
            this.peerParameters = java.util.Objects.requireNonNull(peerParameters, "peerParameters");
            return this;
        }

        /**
         * @param sheddableAbove {@code admission.sheddable_above}, in (0, 1]: a {@code sheddable} request is shed when
         *     no eligible candidate's load is below this share of every load ceiling; 0 for no admission.
         * @return this specification.
         */
        public DecisionSpec admission(final double sheddableAbove)
        {
            if (!(sheddableAbove >= 0.0 && sheddableAbove <= 1.0))
            {
                throw new IllegalArgumentException("decision " + name + ": sheddable_above must be in (0, 1]: " +
                    sheddableAbove);
            }
            this.sheddableAbove = sheddableAbove;
            return this;
        }

        /**
         * @param parameters the parameters of llm-d's profiles ({@code algorithm.llmd_weighted} or
         *     {@code algorithm.llmd_sticky}), read by those types only.
         * @return this specification.
         */
        public DecisionSpec llmd(final LlmdParameters parameters)
        {
            this.peerParameters = peerParameters.withLlmd(java.util.Objects.requireNonNull(parameters, "parameters"));
            return this;
        }

        /**
         * Adds this decision to its builder.
         *
         * @return the builder.
         */
        public PlansBuilder add()
        {
            if (candidates.isEmpty())
            {
                throw new IllegalArgumentException("decision " + name + ": modelRefs must be non-empty");
            }
            builder.decisions.add(this);
            return builder;
        }

        DecisionPlan compile(
            final int id, final int slot, final double[] qualityById, final double[] promptById,
            final double[] completionById, final double[] cachedById)
        {
            final int n = candidates.size();
            final int[] modelIds = new int[n];
            final double[] quality = new double[n];
            final double[] prompt = new double[n];
            final double[] completion = new double[n];
            final double[] cached = new double[n];
            for (int i = 0; i < n; i++)
            {
                final String model = candidates.get(i);
                final Integer modelId = builder.modelIds.get(model);
                if (modelId == null)
                {
                    throw new IllegalArgumentException("decision " + name + ": unknown model " + model);
                }
                for (int j = 0; j < i; j++)
                {
                    if (modelIds[j] == modelId)
                    {
                        throw new IllegalArgumentException("decision " + name + ": duplicate model " + model);
                    }
                }
                modelIds[i] = modelId;
                quality[i] = qualityById[modelId];
                prompt[i] = promptById[modelId];
                completion[i] = completionById[modelId];
                cached[i] = cachedById[modelId];
            }
            // A baseline ignores floors and ceilings: it is compiled without them.
            final DecisionSpec compiled = AlgorithmType.isBaseline(algorithmType) ? new DecisionSpec(this) : this;
            compiled.requestRules = requestRules(modelIds, compiled == this ? sheddableAbove : 0.0);
            return new DecisionPlan(compiled, id, slot, modelIds, quality, prompt, completion, cached);
        }

        // The candidates' eligibility, in candidate order (a baseline has every model eligible: it ignores limits).
        private RequestRules requestRules(final int[] modelIds, final double sheddable)
        {
            final int n = modelIds.length;
            final long[] windows = new long[n];
            final int[] capabilities = new int[n];
            final boolean baseline = AlgorithmType.isBaseline(algorithmType);
            for (int i = 0; i < n; i++)
            {
                final long[] eligibility = baseline ? null : builder.eligibilityByModel.get(candidates.get(i));
                windows[i] = eligibility == null ? RequestRules.NO_CONTEXT_WINDOW : eligibility[0];
                capabilities[i] = eligibility == null ? io.multifactor.api.Capability.ALL : (int)eligibility[1];
            }
            return new RequestRules(windows, capabilities, builder.defaultOutputTokens, sheddable);
        }
    }
}
