package io.multifactor.kernel.plan;

import io.multifactor.api.Handles;
import io.multifactor.kernel.reliability.EjectionPolicy;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * One immutable snapshot of the compiled configuration: model names to stable int handles with their configured
 * signals, decisions to {@link DecisionPlan}s, and the distinct latency percentiles the decisions read (their slots).
 * <p>
 * Handles are dense and stable across snapshots built with {@link PlansBuilder#PlansBuilder(Plans)}: a model or decision
 * name keeps its handle for the whole lineage. A removed name leaves a hole ({@code null} name) and its handle is never
 * given to another name; if a later snapshot restores the name, it gets its old handle back. Each snapshot carries the
 * lineage (every name ever issued a handle, by handle) for that purpose.
 * <p>
 * Instances are immutable and threadsafe; the engine publishes a new one with a single volatile write.
 */
public final class Plans
{
    private final String[] modelNames;
    private final double[] modelQuality;
    private final double[] modelPromptPer1M;
    private final double[] modelCompletionPer1M;
    private final DecisionPlan[] decisions;
    private final int[] percentiles;
    private final Map<String, Integer> modelIdsByName;
    private final Map<String, Integer> decisionIdsByName;
    private final int modelCount;
    private final int decisionCount;
    private final String[] modelLineage;
    private final String[] decisionLineage;
    // By model handle, null where a model has no reliability; set once by the builder before the snapshot is shared.
    private EjectionPolicy[] ejectionPolicies = new EjectionPolicy[0];
    // By model handle, set once by the builder before the snapshot is shared: for a model named without a decision.
    private long[] contextWindows = new long[0];
    private int[] capabilities = new int[0];
    private long defaultOutputTokens = RequestRules.DEFAULT_OUTPUT_TOKENS;

    Plans(
        final String[] modelNames,
        final double[] modelQuality,
        final double[] modelPromptPer1M,
        final double[] modelCompletionPer1M,
        final DecisionPlan[] decisions,
        final int[] percentiles,
        final String[] modelLineage,
        final String[] decisionLineage)
    {
        this.modelLineage = modelLineage;
        this.decisionLineage = decisionLineage;
        this.modelNames = modelNames;
        this.modelQuality = modelQuality;
        this.modelPromptPer1M = modelPromptPer1M;
        this.modelCompletionPer1M = modelCompletionPer1M;
        this.decisions = decisions;
        this.percentiles = percentiles;
        this.modelIdsByName = new HashMap<>();
        this.decisionIdsByName = new HashMap<>();
        int models = 0;
        for (int i = 0; i < modelNames.length; i++)
        {
            if (modelNames[i] != null)
            {
                modelIdsByName.put(modelNames[i], i);
                models++;
            }
        }
        int decisionsPresent = 0;
        for (int i = 0; i < decisions.length; i++)
        {
            if (decisions[i] != null)
            {
                decisionIdsByName.put(decisions[i].name(), i);
                decisionsPresent++;
            }
        }
        this.modelCount = models;
        this.decisionCount = decisionsPresent;
    }

    /**
     * The builder's last step, before the snapshot is shared: each model's ejection policy.
     *
     * @param byModel by model handle, null where a model has no {@code reliability}.
     * @return this snapshot.
     */
    Plans ejectionPolicies(final EjectionPolicy[] byModel)
    {
        ejectionPolicies = byModel.clone();
        return this;
    }

    /**
     * The builder's last step, with {@link #ejectionPolicies}: each model's eligibility, for a request that names a
     * model directly (a decision's candidates carry theirs in {@link DecisionPlan#requestRules()}).
     *
     * @param windowsByModel {@code context_window} by model handle, {@link RequestRules#NO_CONTEXT_WINDOW} for none.
     * @param capabilitiesByModel {@code capabilities} by model handle, bits of {@code Capability}.
     * @param outputTokens {@code signals.default_output_tokens}.
     * @return this snapshot.
     */
    Plans eligibility(final long[] windowsByModel, final int[] capabilitiesByModel, final long outputTokens)
    {
        contextWindows = windowsByModel.clone();
        capabilities = capabilitiesByModel.clone();
        defaultOutputTokens = outputTokens;
        return this;
    }

    /**
     * @param modelId a model handle of this snapshot.
     * @return its {@code context_window} in tokens, {@link RequestRules#NO_CONTEXT_WINDOW} when it has none.
     */
    public long modelContextWindow(final int modelId)
    {
        return modelId >= 0 && modelId < contextWindows.length ? contextWindows[modelId] : RequestRules.NO_CONTEXT_WINDOW;
    }

    /**
     * @param modelId a model handle of this snapshot.
     * @return its {@code capabilities}, bits of {@code io.multifactor.api.Capability} (all when it lists none).
     */
    public int modelCapabilities(final int modelId)
    {
        return modelId >= 0 && modelId < capabilities.length ? capabilities[modelId] : io.multifactor.api.Capability.ALL;
    }

    /** @return {@code signals.default_output_tokens}: the output tokens of a request that states none. */
    public long defaultOutputTokens()
    {
        return defaultOutputTokens;
    }

    /**
     * @return the same snapshot (models, decisions, handles) with no model's ejection policy: what the configuration
     *     means without any {@code reliability} (for what-if runs such as the simulator's comparison).
     */
    public Plans withoutEjectionPolicies()
    {
        return new Plans(modelNames, modelQuality, modelPromptPer1M, modelCompletionPer1M, decisions, percentiles,
            modelLineage, decisionLineage).eligibility(contextWindows, capabilities, defaultOutputTokens);
    }

    /** @return whether any model of this snapshot has an ejection policy ({@code reliability}). */
    public boolean hasEjectionPolicies()
    {
        for (final EjectionPolicy policy : ejectionPolicies)
        {
            if (policy != null)
            {
                return true;
            }
        }
        return false;
    }

    /**
     * @param modelId model handle.
     * @return the model's ejection policy ({@code reliability}), null when it has none or the handle is unknown.
     */
    public EjectionPolicy ejectionPolicy(final int modelId)
    {
        return modelId >= 0 && modelId < ejectionPolicies.length ? ejectionPolicies[modelId] : null;
    }

    /** @return one more than the highest model handle ever issued in this lineage; size arrays indexed by handle with it. */
    public int modelCapacity()
    {
        return modelNames.length;
    }

    /** @return number of models in this snapshot. */
    public int modelCount()
    {
        return modelCount;
    }

    /**
     * @param name model name.
     * @return its handle, or {@link Handles#NONE} when unknown.
     */
    public int modelId(final String name)
    {
        final Integer id = modelIdsByName.get(name);
        return id == null ? Handles.NONE : id;
    }

    /**
     * @param modelId model handle.
     * @return whether the handle names a model of this snapshot.
     */
    public boolean hasModel(final int modelId)
    {
        return modelId >= 0 && modelId < modelNames.length && modelNames[modelId] != null;
    }

    /**
     * @param modelId model handle.
     * @return its name, or {@code null} when the handle is not a model of this snapshot.
     */
    public String modelName(final int modelId)
    {
        return hasModel(modelId) ? modelNames[modelId] : null;
    }

    /**
     * @param modelId model handle of this snapshot.
     * @return its configured quality score, NaN when absent.
     */
    public double modelQuality(final int modelId)
    {
        return modelQuality[modelId];
    }

    /**
     * @param modelId model handle of this snapshot.
     * @return its prompt price in USD per 1M tokens, NaN when absent.
     */
    public double modelPromptPer1M(final int modelId)
    {
        return modelPromptPer1M[modelId];
    }

    /**
     * @param modelId model handle of this snapshot.
     * @return its completion price in USD per 1M tokens, NaN when absent.
     */
    public double modelCompletionPer1M(final int modelId)
    {
        return modelCompletionPer1M[modelId];
    }

    /** @return one more than the highest decision handle ever issued in this lineage. */
    public int decisionCapacity()
    {
        return decisions.length;
    }

    /** @return number of decisions in this snapshot. */
    public int decisionCount()
    {
        return decisionCount;
    }

    /**
     * @param name decision name.
     * @return its handle, or {@link Handles#NONE} when unknown.
     */
    public int decisionId(final String name)
    {
        final Integer id = decisionIdsByName.get(name);
        return id == null ? Handles.NONE : id;
    }

    /**
     * Never allocates; safe on the request path.
     *
     * @param decisionId decision handle.
     * @return its plan, or {@code null} when the handle is not a decision of this snapshot.
     */
    public DecisionPlan decision(final int decisionId)
    {
        return decisionId >= 0 && decisionId < decisions.length ? decisions[decisionId] : null;
    }

    /** @return number of distinct latency percentiles the decisions read. */
    public int percentileSlotCount()
    {
        return percentiles.length;
    }

    /**
     * @param slot index in 0..{@link #percentileSlotCount()}-1.
     * @return the percentile (1..100) of that slot.
     */
    public int percentile(final int slot)
    {
        return percentiles[slot];
    }

    /** @return the largest number of candidates of any decision; size a {@link io.multifactor.api.Selection} with it. */
    public int maxCandidateCount()
    {
        int max = 0;
        for (final DecisionPlan plan : decisions)
        {
            if (plan != null)
            {
                max = Math.max(max, plan.candidateCount());
            }
        }
        return max;
    }

    /** @return every model name this lineage ever issued a handle to, by handle; shared, do not modify. */
    String[] modelLineage()
    {
        return modelLineage;
    }

    /** @return every decision name this lineage ever issued a handle to, by handle; shared, do not modify. */
    String[] decisionLineage()
    {
        return decisionLineage;
    }

    @Override
    public String toString()
    {
        return "Plans{models=" + modelCount + ", decisions=" + decisionCount + ", percentiles=" +
            Arrays.toString(percentiles) + '}';
    }
}
