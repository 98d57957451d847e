package io.multifactor.config.model;

import io.multifactor.api.Capability;
import io.multifactor.kernel.plan.RequestRules;
import io.multifactor.kernel.signal.ServerKind;

import java.util.List;

/**
 * One entry of {@code models:}: a model's name, its configured signals, and where requests for it go.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param name unique, non-empty name.
 * @param qualityScore {@code quality_score}, finite and >= 0, NaN when absent.
 * @param promptPer1M {@code pricing.prompt_per_1m} in USD per 1M prompt tokens, NaN when absent.
 * @param completionPer1M {@code pricing.completion_per_1m} in USD per 1M completion tokens, NaN when absent.
 * @param providerModelId {@code provider_model_id}: the model id sent to the backends (default: the name).
 * @param backendRefs {@code backend_refs}: the servers of this model, in file order; empty when absent.
 * @param server {@code server}: the kind of server whose metrics are scraped, or {@code null} when not scraped.
 * @param reliability {@code reliability}: ejection settings, {@link ReliabilityConfig#NONE} when absent.
 * @param prefixAffinity {@code prefix_affinity}: the backend choice by cached prefix, {@link PrefixAffinityConfig#NONE}
 *     when absent.
 * @param cachedPromptPer1M {@code pricing.cached_prompt_per_1m} (vSR's {@code cached_input_per_1m}) in USD per 1M
 *     cached prompt tokens, NaN when absent.
 * @param contextWindow {@code context_window} in tokens, {@link RequestRules#NO_CONTEXT_WINDOW} when absent.
 * @param capabilities {@code capabilities}, bits of {@link Capability}; {@link Capability#ALL} when absent.
 * @param backendChoice {@code backend_choice}: the rule among its backends, {@link BackendChoiceConfig#NONE} when
 *     absent.
 */
public record ModelConfig(
    String name, double qualityScore, double promptPer1M, double completionPer1M, String providerModelId,
    List<BackendRef> backendRefs, ServerKind server, ReliabilityConfig reliability,
    PrefixAffinityConfig prefixAffinity, double cachedPromptPer1M, long contextWindow, int capabilities,
    BackendChoiceConfig backendChoice)
{
    /**
     * @param name unique, non-empty name.
     * @param qualityScore quality, NaN when absent.
     * @param promptPer1M prompt price, NaN when absent.
     * @param completionPer1M completion price, NaN when absent.
     * @param providerModelId the id sent to the backends, or {@code null} for the name.
     * @param backendRefs the servers of this model; copied, {@code null} for none.
     * @param server the kind of server scraped, or {@code null}.
     * @param reliability ejection settings, {@code null} for {@link ReliabilityConfig#NONE}.
     * @param prefixAffinity the backend choice by cached prefix, {@code null} for {@link PrefixAffinityConfig#NONE}.
     * @param cachedPromptPer1M cached prompt price, NaN when absent.
     * @param contextWindow context window in tokens, or {@link RequestRules#NO_CONTEXT_WINDOW}.
     * @param capabilities bits of {@link Capability}.
     * @param backendChoice the rule among its backends, {@code null} for {@link BackendChoiceConfig#NONE}.
     */
    public ModelConfig
    {
        providerModelId = providerModelId == null ? name : providerModelId;
        backendRefs = backendRefs == null ? List.of() : List.copyOf(backendRefs);
        reliability = reliability == null ? ReliabilityConfig.NONE : reliability;
        prefixAffinity = prefixAffinity == null ? PrefixAffinityConfig.NONE : prefixAffinity;
        backendChoice = backendChoice == null ? BackendChoiceConfig.NONE : backendChoice;
    }

    /**
     * A model without {@code backend_choice}.
     *
     * @param name unique, non-empty name.
     * @param qualityScore quality, NaN when absent.
     * @param promptPer1M prompt price, NaN when absent.
     * @param completionPer1M completion price, NaN when absent.
     * @param providerModelId the id sent to the backends, or {@code null} for the name.
     * @param backendRefs the servers of this model; copied, {@code null} for none.
     * @param server the kind of server scraped, or {@code null}.
     * @param reliability ejection settings, {@code null} for {@link ReliabilityConfig#NONE}.
     * @param prefixAffinity the backend choice by cached prefix, {@code null} for {@link PrefixAffinityConfig#NONE}.
     * @param cachedPromptPer1M cached prompt price, NaN when absent.
     * @param contextWindow context window in tokens, or {@link RequestRules#NO_CONTEXT_WINDOW}.
     * @param capabilities bits of {@link Capability}.
     */
    public ModelConfig(
        final String name, final double qualityScore, final double promptPer1M, final double completionPer1M,
        final String providerModelId, final List<BackendRef> backendRefs, final ServerKind server,
        final ReliabilityConfig reliability, final PrefixAffinityConfig prefixAffinity, final double cachedPromptPer1M,
        final long contextWindow, final int capabilities)
    {
        this(name, qualityScore, promptPer1M, completionPer1M, providerModelId, backendRefs, server, reliability,
            prefixAffinity, cachedPromptPer1M, contextWindow, capabilities, null);
    }

    /**
     * A model without {@code prefix_affinity}, without a cached prompt price and without eligibility limits (no
     * context window, every capability).
     *
     * @param name unique, non-empty name.
     * @param qualityScore quality, NaN when absent.
     * @param promptPer1M prompt price, NaN when absent.
     * @param completionPer1M completion price, NaN when absent.
     * @param providerModelId the id sent to the backends, or {@code null} for the name.
     * @param backendRefs the servers of this model; copied, {@code null} for none.
     * @param server the kind of server scraped, or {@code null}.
     * @param reliability ejection settings, {@code null} for {@link ReliabilityConfig#NONE}.
     */
    public ModelConfig(
        final String name, final double qualityScore, final double promptPer1M, final double completionPer1M,
        final String providerModelId, final List<BackendRef> backendRefs, final ServerKind server,
        final ReliabilityConfig reliability)
    {
        this(name, qualityScore, promptPer1M, completionPer1M, providerModelId, backendRefs, server, reliability, null,
            Double.NaN, RequestRules.NO_CONTEXT_WINDOW, Capability.ALL);
    }

    /**
     * A model whose servers are not scraped and that is never ejected.
     *
     * @param name unique, non-empty name.
     * @param qualityScore quality, NaN when absent.
     * @param promptPer1M prompt price, NaN when absent.
     * @param completionPer1M completion price, NaN when absent.
     * @param providerModelId the id sent to the backends, or {@code null} for the name.
     * @param backendRefs the servers of this model; copied, {@code null} for none.
     */
    public ModelConfig(
        final String name, final double qualityScore, final double promptPer1M, final double completionPer1M,
        final String providerModelId, final List<BackendRef> backendRefs)
    {
        this(name, qualityScore, promptPer1M, completionPer1M, providerModelId, backendRefs, null, null);
    }

    /**
     * A model without backends, whose provider model id is its name.
     *
     * @param name unique, non-empty name.
     * @param qualityScore quality, NaN when absent.
     * @param promptPer1M prompt price, NaN when absent.
     * @param completionPer1M completion price, NaN when absent.
     */
    public ModelConfig(final String name, final double qualityScore, final double promptPer1M, final double completionPer1M)
    {
        this(name, qualityScore, promptPer1M, completionPer1M, null, null, null, null);
    }

    /**
     * @param server the kind of server scraped, or {@code null}.
     * @param reliability ejection settings, or {@code null} for none.
     * @param backends the servers, or {@code null} to keep these.
     * @return this model with an overlay's settings.
     */
    public ModelConfig withOverlay(
        final ServerKind server, final ReliabilityConfig reliability, final List<BackendRef> backends)
    {
        return new ModelConfig(name, qualityScore, promptPer1M, completionPer1M, providerModelId,
            backends == null ? backendRefs : backends, server == null ? this.server : server,
            reliability == null ? this.reliability : reliability, prefixAffinity, cachedPromptPer1M, contextWindow,
            capabilities, backendChoice);
    }

    /**
     * @param affinity an overlay's {@code prefix_affinity}, or {@code null} to keep this model's.
     * @return this model with it.
     */
    public ModelConfig withPrefixAffinity(final PrefixAffinityConfig affinity)
    {
        return affinity == null ? this : new ModelConfig(name, qualityScore, promptPer1M, completionPer1M,
            providerModelId, backendRefs, server, reliability, affinity, cachedPromptPer1M, contextWindow, capabilities,
            backendChoice);
    }

    /**
     * @param window {@code context_window} in tokens, or {@link RequestRules#NO_CONTEXT_WINDOW} to keep this one's.
     * @param capabilityMask {@code capabilities}, or -1 to keep this one's.
     * @return this model with those eligibility limits (an overlay's).
     */
    public ModelConfig withEligibility(final long window, final int capabilityMask)
    {
        return new ModelConfig(name, qualityScore, promptPer1M, completionPer1M, providerModelId, backendRefs, server,
            reliability, prefixAffinity, cachedPromptPer1M, window == RequestRules.NO_CONTEXT_WINDOW ? contextWindow : window,
            capabilityMask < 0 ? capabilities : capabilityMask, backendChoice);
    }

    /**
     * @param choice a {@code backend_choice}.
     * @return this model choosing among its backends by it.
     */
    public ModelConfig withBackendChoice(final BackendChoiceConfig choice)
    {
        return new ModelConfig(name, qualityScore, promptPer1M, completionPer1M, providerModelId, backendRefs, server,
            reliability, prefixAffinity, cachedPromptPer1M, contextWindow, capabilities, choice);
    }
}
