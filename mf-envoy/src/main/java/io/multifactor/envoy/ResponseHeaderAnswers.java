package io.multifactor.envoy;

import io.envoyproxy.envoy.config.core.v3.HeaderValueOption;
import io.envoyproxy.envoy.service.ext_proc.v3.HeaderMutation;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.multifactor.api.Handles;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.serving.ServingHeaders;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The answers to {@code response_headers} of one plans snapshot (without {@code x-mf-explain}): they depend only on
 * the decision and the model, so each pair's is built once, when first needed, and shared by every stream (protobuf
 * messages are immutable). Snapshots with more pairs than {@link #MAX_PAIRS} build each answer anew. The
 * {@code x-selected-model} header of each model, which the routing answer sets, is kept the same way.
 * <p>
 * This class is threadsafe: answers are published through an {@link AtomicReferenceArray}; two streams that build the
 * same pair's answer at once build equal messages, and either may stay.
 */
final class ResponseHeaderAnswers
{
    /** Most decision-model pairs whose answers are kept (an array slot each). */
    static final int MAX_PAIRS = 1 << 16;

    private final Plans plans;
    private final int modelCapacity;
    private final AtomicReferenceArray<ProcessingResponse> byPair;
    private final AtomicReferenceArray<HeaderValueOption> selectedModelByModel;

    ResponseHeaderAnswers(final Plans plans)
    {
        this.plans = plans;
        this.modelCapacity = plans.modelCapacity();
        final long pairs = (long)plans.decisionCapacity() * modelCapacity;
        this.byPair = new AtomicReferenceArray<>(pairs <= MAX_PAIRS ? (int)pairs : 0);
        this.selectedModelByModel = new AtomicReferenceArray<>(modelCapacity);
    }

    /**
     * @param modelId the chosen model.
     * @param modelName the chosen model's name, as the request was routed.
     * @return the header set {@code x-selected-model: modelName}, built once per model of this snapshot.
     */
    HeaderValueOption selectedModelHeader(final int modelId, final String modelName)
    {
        final boolean cacheable = modelId >= 0 && modelId < modelCapacity && modelName.equals(plans.modelName(modelId));
        if (cacheable)
        {
            final HeaderValueOption cached = selectedModelByModel.get(modelId);
            if (cached != null)
            {
                return cached;
            }
        }
        final HeaderValueOption built = ExtProcResponses.set(ServingHeaders.SELECTED_MODEL, modelName);
        if (cacheable)
        {
            selectedModelByModel.set(modelId, built);
        }
        return built;
    }

    /** @return the snapshot these answers are for. */
    Plans plans()
    {
        return plans;
    }

    /**
     * @param decisionId the request's decision.
     * @param modelId the chosen model.
     * @param modelName the chosen model's name, as the request was routed.
     * @return the answer that adds {@code x-mf-decision} and {@code x-selected-model} to the response.
     */
    ProcessingResponse answer(final int decisionId, final int modelId, final String modelName)
    {
        final DecisionPlan decision = plans.decision(decisionId);
        final boolean cacheable = decision != null && modelId != Handles.NONE && modelId >= 0 &&
            modelId < modelCapacity && modelName.equals(plans.modelName(modelId));
        final int index = cacheable ? decisionId * modelCapacity + modelId : -1;
        if (index >= 0 && index < byPair.length())
        {
            final ProcessingResponse cached = byPair.get(index);
            if (cached != null)
            {
                return cached;
            }
        }
        final ProcessingResponse built = build(decision == null ? "" : decision.name(), modelName);
        if (index >= 0 && index < byPair.length())
        {
            byPair.set(index, built);
        }
        return built;
    }

    /** @return the answer for a decision name and a model name, built now. */
    static ProcessingResponse build(final String decisionName, final String modelName)
    {
        return ExtProcResponses.responseHeaders(HeaderMutation.newBuilder()
            .addSetHeaders(ExtProcResponses.set(ServingHeaders.DECISION, decisionName))
            .addSetHeaders(ExtProcResponses.set(ServingHeaders.SELECTED_MODEL, modelName)));
    }
}
