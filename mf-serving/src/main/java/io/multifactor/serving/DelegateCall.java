package io.multifactor.serving;

import io.multifactor.api.Handles;
import io.multifactor.api.Priority;
import io.multifactor.api.Request;
import io.multifactor.config.read.NearestName;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.plan.Plans;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * One call routed to a framework's client of one model (a Spring AI or LangChain4j chat model: the "delegate"), over
 * the one {@link RequestFlow}: {@link #begin} resolves the decision and starts the first attempt on a model that has a
 * delegate; the integration calls {@link #delegate()} with its {@code model} option set to
 * {@link #providerModelId()}, says {@link #sent()}, feeds each content chunk ({@link #chunk()}) and ends the attempt
 * with {@link #complete()}, {@link #cancel()} or {@link #retryAfter(Throwable)}, which ends the lease with the status
 * the client's exception kept ({@link FailureStatus}) and starts the next candidate when the failure came before the
 * first token and attempts remain; never after the first token.
 * <p>
 * The decision: the call's explicit one when set; else the caller's {@code model} when it names a decision; else the
 * default decision (as the gateway's {@code x-mf-decision} header and body {@code model}).
 * <p>
 * This class is not threadsafe: one call's callbacks arrive one at a time (a framework's stream signals serially);
 * only {@link #cancel()} may race with them, through the lifecycle's exactly-once end.
 *
 * @param <D> the framework's chat model type.
 */
public final class DelegateCall<D>
{
    /** Response metadata key: the chosen model's name in the configuration. */
    public static final String METADATA_MODEL = "multifactor.model";
    /** Response metadata key: the decision's name. */
    public static final String METADATA_DECISION = "multifactor.decision";
    /** Response metadata key: the attempts the call made (2 after one retry). */
    public static final String METADATA_ATTEMPTS = "multifactor.attempts";
    /** Response metadata key: the explain JSON of the selection that chose (as the gateway's explain header). */
    public static final String METADATA_EXPLAIN = "multifactor.explain";

    private final MultiFactorEngine engine;
    private final Function<String, String> providerModelIds;
    private final Map<String, D> delegates;
    private final String defaultDecision;
    private final RequestFlow flow;
    private D delegate;
    private String providerModelId;
    private String explainJson;

    /**
     * @param engine the engine.
     * @param providerModelIdsOrNull a model's name to its {@code provider_model_id} ({@link EngineHost#providerModelId});
     *     {@code null}: the name itself.
     * @param delegates each model's name to the client that calls it.
     * @param defaultDecisionOrNull the decision of a call that names none, or {@code null}.
     * @param maxAttempts attempts at most, >= 1.
     */
    public DelegateCall(final MultiFactorEngine engine, final Function<String, String> providerModelIdsOrNull,
        final Map<String, D> delegates, final String defaultDecisionOrNull, final int maxAttempts)
    {
        this.engine = engine;
        this.providerModelIds = providerModelIdsOrNull;
        this.delegates = delegates;
        this.defaultDecision = defaultDecisionOrNull;
        this.flow = new RequestFlow(engine, maxAttempts);
    }

    /**
     * Checks, when a routing chat model is built, that every delegate names a model of the configuration and the default
     * decision a decision of it.
     *
     * @param engine the engine.
     * @param delegateModelNames the model names delegates were given for.
     * @param defaultDecisionOrNull the default decision, or {@code null}.
     * @throws IllegalArgumentException naming the first wrong name, the nearest right one and the valid names.
     */
    public static void check(final MultiFactorEngine engine, final Collection<String> delegateModelNames,
        final String defaultDecisionOrNull)
    {
        final Plans plans = engine.plans();
        final List<String> models = new ArrayList<>();
        for (int id = 0; id < plans.modelCapacity(); id++)
        {
            if (plans.modelName(id) != null)
            {
                models.add(plans.modelName(id));
            }
        }
        for (final String name : delegateModelNames)
        {
            if (!models.contains(name))
            {
                throw new IllegalArgumentException(unknown("delegate for model", name, models));
            }
        }
        if (defaultDecisionOrNull != null && plans.decisionId(defaultDecisionOrNull) == Handles.NONE)
        {
            final List<String> decisions = new ArrayList<>();
            for (int id = 0; id < plans.decisionCapacity(); id++)
            {
                if (plans.decision(id) != null)
                {
                    decisions.add(plans.decision(id).name());
                }
            }
            throw new IllegalArgumentException(unknown("default decision", defaultDecisionOrNull, decisions));
        }
    }

    private static String unknown(final String what, final String name, final List<String> valid)
    {
        final String near = NearestName.of(name, valid);
        return what + " \"" + name + "\": the configuration has none of that name" +
            (near == null ? "" : " (did you mean \"" + near + "\"?)") + "; it has: " + String.join(", ", valid);
    }

    /**
     * What the call carries beside its prompt, as the gateway's {@code x-session-id}, {@code x-mf-priority},
     * {@code x-slo-ttft-ms} and {@code x-slo-tpot-ms} headers: the one place a framework's per-call options reach the
     * flow; applied to every attempt. Call before {@link #begin}.
     *
     * @param sessionKeyOrNull the conversation's session key ({@link SessionKeys#key(CharSequence)} of it), or
     *     {@code null} (an empty one counts as none).
     * @param priority a {@link Priority} code.
     * @param maxTtftMs the call's own TTFT ceiling in milliseconds; 0, negative or NaN: none.
     * @param maxTpotMs the call's own TPOT ceiling in milliseconds; 0, negative or NaN: none.
     * @throws IllegalArgumentException for an unknown priority code.
     */
    public void options(final String sessionKeyOrNull, final int priority, final double maxTtftMs,
        final double maxTpotMs)
    {
        Priority.label(priority);
        if (sessionKeyOrNull != null && !sessionKeyOrNull.isEmpty())
        {
            // The same 64-bit key as the gateway's x-session-id: one conversation, one key, wherever it is routed.
            flow.session(SessionKeys.key(sessionKeyOrNull));
        }
        flow.lifecycle().limits(0, boundOrZero(maxTtftMs), boundOrZero(maxTpotMs), priority);
    }

    // A bound that is not a positive number is no bound of the call's own (the decision's ceilings still apply).
    private static double boundOrZero(final double ms)
    {
        return ms > 0.0 ? ms : 0.0;
    }

    /**
     * Resolves the decision and starts the first attempt.
     *
     * @param decisionOrNull the call's explicit decision, or {@code null}.
     * @param callerModelOrNull the caller's {@code model} option, or {@code null}.
     * @param promptTokens the prompt token estimate ({@link #promptTokens(long)}), or {@link Request#NO_TOKENS}.
     * @param maxOutputTokens the call's output token bound, or {@link Request#NO_TOKENS}.
     * @throws RoutingRefusedException when no decision is named, none of its candidates can be called, or attempts ran
     *     out on models without a delegate.
     */
    public void begin(final String decisionOrNull, final String callerModelOrNull, final long promptTokens,
        final long maxOutputTokens)
    {
        final String decision = decisionOrNull != null ? decisionOrNull :
            callerModelOrNull != null && engine.plans().decisionId(callerModelOrNull) != Handles.NONE ? null :
            defaultDecision;
        if (!flow.resolve(decision, callerModelOrNull) || !flow.start(promptTokens, maxOutputTokens) || !callable())
        {
            throw refusal();
        }
    }

    /** Skips (and retries past) models that have no delegate; false when the flow gives up. */
    private boolean callable()
    {
        while (true)
        {
            final String model = flow.selectedModelName();
            delegate = delegates.get(model);
            explainJson = null;
            if (delegate != null)
            {
                final String id = providerModelIds == null ? null : providerModelIds.apply(model);
                providerModelId = id == null ? model : id;
                return true;
            }
            flow.lifecycle().cancel();
            if (!flow.retry("model " + model + " has no delegate chat model"))
            {
                return false;
            }
        }
    }

    private RoutingRefusedException refusal()
    {
        return new RoutingRefusedException(flow.errorStatus(), flow.errorType(), flow.errorMessage());
    }

    /**
     * @param promptCharacters the characters of the prompt's text.
     * @return the prompt token estimate: 4 characters per token, as the gateway counts 4 bytes per token.
     */
    public static long promptTokens(final long promptCharacters)
    {
        return promptCharacters / 4;
    }

    /** @return the delegate of the attempt under way. */
    public D delegate()
    {
        return delegate;
    }

    /** @return the chosen model's {@code provider_model_id}: the {@code model} option the delegate is called with. */
    public String providerModelId()
    {
        return providerModelId;
    }

    /** The delegate is being called now: TTFT is measured from here. */
    public void sent()
    {
        flow.lifecycle().onRequestSent(flow.nowNs());
    }

    /** A content chunk arrived (records TTFT on the first). */
    public void chunk()
    {
        flow.lifecycle().onContentChunk(flow.nowNs());
    }

    /** @param completionTokens the completion tokens the response's usage reported, ignored when negative. */
    public void usage(final long completionTokens)
    {
        flow.lifecycle().onUsageCompletionTokens(completionTokens);
    }

    /**
     * The response completed: records TPOT (streamed) and ends the lease with status 200.
     *
     * @return whether this call ended the attempt.
     */
    public boolean complete()
    {
        return flow.lifecycle().complete(200);
    }

    /**
     * The caller cancelled: ends the lease without a status.
     *
     * @return whether this call ended the attempt.
     */
    public boolean cancel()
    {
        return flow.lifecycle().cancel();
    }

    /** @return whether the attempt under way has not ended. */
    public boolean open()
    {
        return flow.lifecycle().endKind() == RequestLifecycle.OPEN;
    }

    /**
     * The delegate failed: ends the lease with the failure's status and, when that ended the attempt before its first
     * token and attempts remain, starts the next candidate (the models tried excluded).
     *
     * @param failure what the delegate threw or signalled.
     * @return whether another attempt started (call {@link #delegate()} again); false: pass the failure on.
     */
    public boolean retryAfter(final Throwable failure)
    {
        final RequestLifecycle lifecycle = flow.lifecycle();
        final int status = FailureStatus.of(failure);
        if (!lifecycle.fail(status, 0) || lifecycle.hasContent())
        {
            return false;
        }
        final String model = flow.selectedModelName();
        return flow.retry("model " + model + " failed" + (status == 0 ? "" : " with status " + status) + ": " +
            failure.getMessage()) && callable();
    }

    /** @return the chosen model's name in the configuration. */
    public String selectedModelName()
    {
        return flow.selectedModelName();
    }

    /** @return the decision's name. */
    public String decisionName()
    {
        return flow.decisionName();
    }

    /** @return attempts made so far. */
    public int attempts()
    {
        return flow.attempts();
    }

    /**
     * @return the explain JSON of the selection that chose the attempt under way, or {@code null}; written once per
     *     attempt (it allocates), then the same string for every chunk.
     */
    public String explainJson()
    {
        if (explainJson == null)
        {
            explainJson = flow.explainJson();
        }
        return explainJson;
    }

    /** @return the flow under the call (its lifecycle: TTFT, TPOT, end kind and status). */
    public RequestFlow flow()
    {
        return flow;
    }
}
