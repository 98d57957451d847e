package io.multifactor.serving;

import io.multifactor.api.Capability;
import io.multifactor.api.Exclusions;
import io.multifactor.api.Handles;
import io.multifactor.api.Outcome;
import io.multifactor.api.Priority;
import io.multifactor.api.Request;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.scoring.RequestScreen;
import org.agrona.concurrent.NanoClock;

/**
 * The request flow above the lifecycle, the same for every transport (the gateway's HTTP exchange, the ext_proc
 * stream, the framework integrations): resolve the decision a request names ({@link #resolve}), select and take the
 * lease ({@link #start}, through the one {@link RequestLifecycle}), and after a failed attempt retry on the next
 * candidate with the models already tried excluded ({@link #retry}) while attempts remain and the request's deadline
 * holds ({@link #deadlineNs(long)}). A body {@code model} that names a model, not a decision, is served directly
 * ({@link #direct()}): no selection, a lease on that model ({@code begin}), an ejected model refused with its time left,
 * and a retry stays on that model (the transport sends it to another of the model's backends). Each refusal is mapped
 * here, once, to its {@link ServingError} ({@link #errorStatus()}, {@link #errorBody()}); the response
 * headers it implies are named by {@link ServingHeaders} and valued by {@link #decisionName()},
 * {@link #selectedModelName()} and {@link #explainJson()}. Time comes from the engine's clock ({@link #nowNs()}), so
 * a test that drives an engine on a manual clock measures TTFT and TPOT without sleeping.
 * <p>
 * Reusable: {@link #reset()} before the next request, once the lifecycle's attempt has ended. This class is not
 * threadsafe: one request's owner calls it (the lifecycle's ending calls alone may race, as {@link RequestLifecycle}
 * says).
 */
public final class RequestFlow
{
    /** Attempts a request makes at most by default: the first and one retry on the next candidate. */
    public static final int DEFAULT_MAX_ATTEMPTS = 2;

    /** {@link #deadlineNs(long)} of a request without a deadline. */
    public static final long NO_DEADLINE = Long.MAX_VALUE;
    /**
     * {@code Retry-After} of a shed request, in seconds: the least the header can say. Room comes back as soon as one
     * request ends or the next scrape arrives (every 500 ms by default), so a longer wait would only idle a client.
     */
    public static final int SHED_RETRY_AFTER_SECONDS = 1;

    private final MultiFactorEngine engine;
    private final NanoClock clock;
    private final RequestLifecycle lifecycle;
    private final Exclusions exclusions = new Exclusions();
    private final int maxAttempts;
    private String headerOrNull;
    private String bodyModelOrNull;
    private int decisionId = Handles.NONE;
    private String decisionName;
    private int directModelId = Handles.NONE;
    private long promptTokens = Request.NO_TOKENS;
    private long maxOutputTokens = Request.NO_TOKENS;
    private long deadlineNs = NO_DEADLINE;
    private int attempts;
    private String firstFailure;
    private ServingError error;
    private String errorMessage;
    private boolean hasSession;
    private long sessionKey;
    private BackendChooser prefixChooser;
    private PromptBlocks prefixPrompt;
    private long errorRetryAfterMs;

    /**
     * @param engine the engine that selects and keeps the leases; its clock is the flow's.
     * @param maxAttempts attempts a request makes at most, >= 1 (1: no retry).
     */
    public RequestFlow(final MultiFactorEngine engine, final int maxAttempts)
    {
        if (maxAttempts < 1)
        {
            throw new IllegalArgumentException("maxAttempts must be >= 1: " + maxAttempts);
        }
        this.engine = engine;
        this.clock = engine.clock();
        this.lifecycle = new RequestLifecycle(engine);
        this.maxAttempts = maxAttempts;
    }

    /** Forgets the previous request (its attempt must have ended). */
    public void reset()
    {
        headerOrNull = null;
        bodyModelOrNull = null;
        decisionId = Handles.NONE;
        decisionName = null;
        directModelId = Handles.NONE;
        promptTokens = Request.NO_TOKENS;
        maxOutputTokens = Request.NO_TOKENS;
        deadlineNs = NO_DEADLINE;
        attempts = 0;
        firstFailure = null;
        exclusions.clear();
        clearError();
        hasSession = false;
        prefixChooser = null;
        prefixPrompt = null;
        lifecycle.limits(0, 0.0, 0.0, Priority.STANDARD);
    }

    /**
     * Gives the request a session key (from {@link SessionKeys}), applied by {@link #start} to every attempt.
     *
     * @param key the session key.
     */
    public void session(final long key)
    {
        hasSession = true;
        sessionKey = key;
    }

    /**
     * Gives each selection of this request the {@code prefix} factor's P(m) (and the cached prompt price): for every
     * candidate with {@code prefix_affinity}, the share of the prompt held by the backend the chooser would pick for it
     * ({@link BackendChooser#shareFor}). Without this call no share is supplied.
     *
     * @param chooser the backend choice the request's attempts use.
     * @param prompt the request's captured prompt.
     */
    public void prefix(final BackendChooser chooser, final PromptBlocks prompt)
    {
        prefixChooser = chooser;
        prefixPrompt = prompt;
    }

    /**
     * What the request carries for eligibility and admission: its needs (from the body, {@link OpenAiRequest#needs()})
     * and the {@link ServingHeaders#SLO_TTFT_MS}, {@link ServingHeaders#SLO_TPOT_MS} and {@link ServingHeaders#PRIORITY}
     * headers; applied by {@link #start} to every attempt.
     *
     * @param needs bits of {@link io.multifactor.api.Capability}.
     * @param ttftHeaderOrNull the TTFT header's value, or null.
     * @param tpotHeaderOrNull the TPOT header's value, or null.
     * @param priorityHeaderOrNull the priority header's value, or null.
     * @return whether the headers are valid; if not, the error is set (400, naming the header and its value).
     */
    public boolean limits(
        final int needs, final String ttftHeaderOrNull, final String tpotHeaderOrNull, final String priorityHeaderOrNull)
    {
        final double ttft = LimitHeaders.sloMs(ttftHeaderOrNull);
        final double tpot = LimitHeaders.sloMs(tpotHeaderOrNull);
        final int priority = LimitHeaders.priority(priorityHeaderOrNull);
        final String problem = ttft < 0.0 ? LimitHeaders.badSlo(ServingHeaders.SLO_TTFT_MS, ttftHeaderOrNull) :
            tpot < 0.0 ? LimitHeaders.badSlo(ServingHeaders.SLO_TPOT_MS, tpotHeaderOrNull) :
            priority < 0 ? LimitHeaders.badPriority(priorityHeaderOrNull) : null;
        if (problem != null)
        {
            error(ServingError.INVALID_HEADER, problem);
            return false;
        }
        lifecycle.limits(needs, ttft, tpot, priority);
        return true;
    }

    /** @return now on the engine's clock, in nanoseconds: the time every measurement of the flow is taken on. */
    public long nowNs()
    {
        return clock.nanoTime();
    }

    /**
     * Sets the request's deadline: no retry starts once it has passed (streamed: the first-byte timeout from the
     * request's arrival; non-streamed: the request timeout).
     *
     * @param deadlineNs on the engine's clock ({@link #nowNs()}), or {@link #NO_DEADLINE}.
     */
    public void deadlineNs(final long deadlineNs)
    {
        this.deadlineNs = deadlineNs;
    }

    /** @return the request's deadline on the engine's clock, {@link #NO_DEADLINE} when none is set. */
    public long deadlineNs()
    {
        return deadlineNs;
    }

    /**
     * Names what the request is sent to: the decision of the {@code x-mf-decision} header when present, else the
     * body's {@code model} when it names a decision ({@link DecisionResolver}), else the model the body's {@code model}
     * names, served directly ({@link #direct()}).
     *
     * @param headerOrNull the {@link ServingHeaders#DECISION} header's value, or {@code null}.
     * @param bodyModelOrNull the body's {@code model}, or {@code null}.
     * @return whether a decision or a model was found; if not, the error is set ({@link ServingError#MISSING_MODEL},
     *     {@link ServingError#DECISION_NOT_FOUND} or {@link ServingError#MODEL_NOT_FOUND}, listing the decisions).
     */
    public boolean resolve(final String headerOrNull, final String bodyModelOrNull)
    {
        this.headerOrNull = headerOrNull;
        this.bodyModelOrNull = bodyModelOrNull;
        final Plans plans = engine.plans();
        decisionId = DecisionResolver.resolve(plans, headerOrNull, bodyModelOrNull);
        final DecisionPlan plan = plans.decision(decisionId);
        if (plan != null)
        {
            decisionName = plan.name();
            return true;
        }
        decisionId = Handles.NONE;
        if (headerOrNull == null && bodyModelOrNull != null)
        {
            directModelId = plans.modelId(bodyModelOrNull);
            if (directModelId != Handles.NONE)
            {
                return true;
            }
        }
        error(headerOrNull != null ? ServingError.DECISION_NOT_FOUND :
            bodyModelOrNull != null ? ServingError.MODEL_NOT_FOUND : ServingError.MISSING_MODEL,
            DecisionResolver.problem(plans, headerOrNull, bodyModelOrNull));
        return false;
    }

    /** @return whether the request names a model directly (no decision, no selection). */
    public boolean direct()
    {
        return directModelId != Handles.NONE;
    }

    /**
     * The first attempt: selects for the resolved decision and takes the chosen model's lease, or, for a model named
     * directly, takes that model's lease.
     *
     * @param promptTokens the prompt token estimate, or {@link Request#NO_TOKENS}.
     * @param maxOutputTokens the request's output token bound, or {@link Request#NO_TOKENS} (then the request carries no
     *     token counts).
     * @return whether a model was chosen ({@link #lifecycle()} holds the attempt); if not, the error is set.
     */
    public boolean start(final long promptTokens, final long maxOutputTokens)
    {
        this.promptTokens = promptTokens;
        this.maxOutputTokens = maxOutputTokens;
        attempts = 0;
        lifecycle.session(hasSession, sessionKey);
        lifecycle.prefix(prefixChooser, prefixPrompt);
        return attempt();
    }

    /**
     * After a failed attempt (its lease already ended by the lifecycle's {@code fail}): moves to the next candidate,
     * the models tried so far excluded (a model named directly: another lease on it, for another of its backends),
     * while attempts remain and the deadline holds.
     *
     * @param failure what went wrong, for the error body when no attempt remains or none succeeds.
     * @return whether another attempt started; if not, the error is set ({@link ServingError#UPSTREAM_UNAVAILABLE}).
     */
    public boolean retry(final String failure)
    {
        if (!mayRetry())
        {
            error(ServingError.UPSTREAM_UNAVAILABLE, firstFailure == null || firstFailure.equals(failure) ?
                failure : firstFailure + "; retry: " + failure);
            return false;
        }
        if (firstFailure == null)
        {
            firstFailure = failure;
        }
        if (!direct())
        {
            exclusions.add(lifecycle.modelId());
        }
        return attempt();
    }

    // Counts an attempt only when one started (x-mf-attempts says how many were made).
    private boolean attempt()
    {
        clearError();
        if (direct())
        {
            return attemptDirect();
        }
        final int started = lifecycle.start(decisionId, exclusions, promptTokens, maxOutputTokens);
        if (started == RequestLifecycle.STARTED)
        {
            attempts++;
            return true;
        }
        if (firstFailure != null)
        {
            error(ServingError.UPSTREAM_UNAVAILABLE, firstFailure + "; no other candidate to retry on");
        }
        else if (started == RequestLifecycle.NO_MODEL && lifecycle.selection().outcome() == Outcome.INELIGIBLE)
        {
            error(ServingError.NO_ELIGIBLE_MODEL, LimitHeaders.ineligible(engine.plans(), lifecycle.selection(),
                lifecycle.request()));
        }
        else if (started == RequestLifecycle.NO_MODEL && lifecycle.selection().outcome() == Outcome.SHED)
        {
            error(ServingError.OVERLOADED, "decision " + decisionName + " is overloaded: the request was shed " +
                "(outcome shed); retry after " + SHED_RETRY_AFTER_SECONDS + " s");
            errorRetryAfterMs = SHED_RETRY_AFTER_SECONDS * 1_000L;
        }
        else if (started == RequestLifecycle.NO_MODEL)
        {
            error(ServingError.NO_CANDIDATE, "decision " + decisionName + " found no candidate (outcome failed)");
        }
        else
        {
            error(ServingError.DECISION_NOT_FOUND, DecisionResolver.problem(engine.plans(), headerOrNull,
                bodyModelOrNull));
        }
        return false;
    }

    // The model named directly: its ejection respected, then its eligibility (the request's tokens against its context
    // window, its needs against its capabilities), then its lease.
    private boolean attemptDirect()
    {
        final double ejectedMs = engine.ejectedMillisLeft(directModelId);
        final int started = Double.isNaN(ejectedMs) ?
            lifecycle.startDirect(directModelId, promptTokens, maxOutputTokens) : RequestLifecycle.NO_MODEL;
        if (started == RequestLifecycle.STARTED)
        {
            attempts++;
            return true;
        }
        final String name = bodyModelOrNull;
        if (firstFailure != null)
        {
            error(ServingError.UPSTREAM_UNAVAILABLE, firstFailure + "; model " + name + " cannot be tried again");
        }
        else if (started == RequestLifecycle.INELIGIBLE)
        {
            final Plans plans = engine.plans();
            final long window = plans.modelContextWindow(directModelId);
            final long tokens = RequestScreen.requestTokens(plans.defaultOutputTokens(), lifecycle.request());
            error(ServingError.NO_ELIGIBLE_MODEL, "model " + name + " cannot serve this request: " + (tokens > window ?
                "context=" + tokens + '>' + window : "capability=" + Capability.firstLabel(
                lifecycle.request().needs() & ~plans.modelCapabilities(directModelId))));
        }
        else if (started == RequestLifecycle.NO_MODEL)
        {
            error(ServingError.NO_CANDIDATE, "model " + name + " is ejected for failing");
            errorRetryAfterMs = Math.max(1_000L, (long)Math.ceil(ejectedMs));
        }
        else
        {
            error(ServingError.MODEL_NOT_FOUND, DecisionResolver.problem(engine.plans(), headerOrNull,
                bodyModelOrNull));
        }
        return false;
    }

    /** @return whether another attempt may follow a failure of this one: attempts remain and the deadline holds. */
    public boolean mayRetry()
    {
        return attempts < maxAttempts && (deadlineNs == NO_DEADLINE || nowNs() < deadlineNs);
    }

    /**
     * Sets the error the request is answered with, for refusals the transport finds itself (a body too large, a
     * backend that timed out).
     *
     * @param error the error.
     * @param message what went wrong, for a person.
     */
    public void error(final ServingError error, final String message)
    {
        this.error = error;
        this.errorMessage = message;
        this.errorRetryAfterMs = 0;
    }

    private void clearError()
    {
        error = null;
        errorMessage = null;
        errorRetryAfterMs = 0;
    }

    /** @return the request's error, {@code null} when none is set. */
    public ServingError error()
    {
        return error;
    }

    /** @return the HTTP status of the request's error, 0 when none is set. */
    public int errorStatus()
    {
        return error == null ? 0 : error.status();
    }

    /** @return the error's OpenAI type ({@code invalid_request_error}, ...), {@code null} when none is set. */
    public String errorType()
    {
        return error == null ? null : error.type();
    }

    /** @return the error's message, {@code null} when none is set. */
    public String errorMessage()
    {
        return errorMessage;
    }

    /**
     * @return how long the client should wait before trying again, in milliseconds (a {@code Retry-After} header, in
     *     whole seconds rounded up), 0 when the error says nothing of it.
     */
    public long errorRetryAfterMs()
    {
        return errorRetryAfterMs;
    }

    /** @return the error's OpenAI-shaped JSON body ({@link ServingError#body}), null when none is set. */
    public String errorBody()
    {
        return error == null ? null : error.body(errorMessage);
    }

    /** @return the attempt under way or last made. */
    public RequestLifecycle lifecycle()
    {
        return lifecycle;
    }

    /** @return the resolved decision's handle, {@link Handles#NONE} before {@link #resolve} found one. */
    public int decisionId()
    {
        return decisionId;
    }

    /**
     * @return the resolved decision's name (the {@link ServingHeaders#DECISION} response header), or null (also for a
     *     model named directly).
     */
    public String decisionName()
    {
        return decisionName;
    }

    /** @return attempts made so far (1 after a successful {@link #start}, 2 after one retry that started). */
    public int attempts()
    {
        return attempts;
    }

    /**
     * @return the chosen model's name (the {@link ServingHeaders#SELECTED_MODEL} response header), {@code #id} for a
     *     model the current plans no longer name, or null before a model was chosen.
     */
    public String selectedModelName()
    {
        final int modelId = lifecycle.modelId();
        if (modelId == Handles.NONE)
        {
            return null;
        }
        final String name = engine.plans().modelName(modelId);
        return name == null ? "#" + modelId : name;
    }

    /**
     * @return the explain JSON of the selection that chose (the {@link ServingHeaders#EXPLAIN} response header), or
     *     null when there is none (a model named directly was not selected); off the fast path: allocates.
     */
    public String explainJson()
    {
        return direct() ? null : ExplainJson.compact(engine.plans(), lifecycle.selection(), lifecycle.request());
    }

    /**
     * @param explainHeaderOrNull the request's {@link ServingHeaders#EXPLAIN} header.
     * @return whether it asks for the explain JSON.
     */
    public static boolean explainAsked(final String explainHeaderOrNull)
    {
        return ServingHeaders.EXPLAIN_ON.equals(explainHeaderOrNull);
    }
}
