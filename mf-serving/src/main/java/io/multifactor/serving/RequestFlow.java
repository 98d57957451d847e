package io.multifactor.serving;

import io.multifactor.api.Exclusions;
import io.multifactor.api.Handles;
import io.multifactor.api.Outcome;
import io.multifactor.api.Priority;
import io.multifactor.api.Request;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.Plans;
import org.agrona.concurrent.NanoClock;

/**
 * The request flow above the lifecycle, the same for every transport (the gateway's HTTP exchange, the ext_proc
 * stream, the framework integrations): resolve the decision a request names ({@link #resolve}), select and take the
 * lease ({@link #start}, through the one {@link RequestLifecycle}), and after a failed attempt retry on the next
 * candidate with the models already tried excluded ({@link #retry}) while attempts remain. Each refusal is mapped here,
 * once, to its HTTP status and OpenAI-shaped error body ({@link #errorStatus()}, {@link #errorBody()}); the response
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

    /** OpenAI error type of a request the flow refuses as malformed or naming no decision. */
    public static final String INVALID_REQUEST = "invalid_request_error";
    /** OpenAI error type of a decision that found no candidate (outcome {@code failed}). */
    public static final String NO_CANDIDATES = "no_candidates";
    /** OpenAI error type of attempts that failed at the backends. */
    public static final String UPSTREAM_ERROR = "upstream_error";
    /** OpenAI error type of a backend that sent no response in time. */
    public static final String UPSTREAM_TIMEOUT = "upstream_timeout";
    /** OpenAI error type of a request shed under load (429, outcome {@code shed}; OpenAI's type for a 429). */
    public static final String RATE_LIMIT = "rate_limit_error";
    /** Error code of a request no candidate can serve (400, outcome {@code ineligible}). */
    public static final String NO_ELIGIBLE_MODEL = "no_eligible_model";
    /** Error code of a request shed under load (429, outcome {@code shed}). */
    public static final String OVERLOADED = "overloaded";
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
    private long promptTokens = Request.NO_TOKENS;
    private long maxOutputTokens = Request.NO_TOKENS;
    private int attempts;
    private String firstFailure;
    private int errorStatus;
    private String errorType;
    private String errorMessage;
    private String errorCode;

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
        promptTokens = Request.NO_TOKENS;
        maxOutputTokens = Request.NO_TOKENS;
        attempts = 0;
        firstFailure = null;
        exclusions.clear();
        clearError();
        lifecycle.limits(0, 0.0, 0.0, Priority.STANDARD);
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
            error(400, INVALID_REQUEST, problem);
            errorCode = LimitHeaders.INVALID_HEADER;
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
     * Names the request's decision: the {@code x-mf-decision} header when present, else the body's {@code model} when
     * it names a decision ({@link DecisionResolver}).
     *
     * @param headerOrNull the {@link ServingHeaders#DECISION} header's value, or {@code null}.
     * @param bodyModelOrNull the body's {@code model}, or {@code null}.
     * @return whether a decision was found; if not, the error is set (400, listing the decisions).
     */
    public boolean resolve(final String headerOrNull, final String bodyModelOrNull)
    {
        this.headerOrNull = headerOrNull;
        this.bodyModelOrNull = bodyModelOrNull;
        final Plans plans = engine.plans();
        decisionId = DecisionResolver.resolve(plans, headerOrNull, bodyModelOrNull);
        final DecisionPlan plan = plans.decision(decisionId);
        if (plan == null)
        {
            decisionId = Handles.NONE;
            error(400, INVALID_REQUEST, DecisionResolver.problem(plans, headerOrNull, bodyModelOrNull));
            return false;
        }
        decisionName = plan.name();
        return true;
    }

    /**
     * The first attempt: selects for the resolved decision and takes the chosen model's lease.
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
        return attempt();
    }

    /**
     * After a failed attempt (its lease already ended by the lifecycle's {@code fail}): moves to the next candidate,
     * the models tried so far excluded, while attempts remain.
     *
     * @param failure what went wrong, for the error body when no attempt remains or none succeeds.
     * @return whether another attempt started; if not, the error is set ({@code 502 upstream_error}).
     */
    public boolean retry(final String failure)
    {
        if (attempts >= maxAttempts)
        {
            error(502, UPSTREAM_ERROR, firstFailure == null || firstFailure.equals(failure) ?
                failure : firstFailure + "; retry: " + failure);
            return false;
        }
        if (firstFailure == null)
        {
            firstFailure = failure;
        }
        exclusions.add(lifecycle.modelId());
        return attempt();
    }

    private boolean attempt()
    {
        attempts++;
        clearError();
        final int started = lifecycle.start(decisionId, exclusions, promptTokens, maxOutputTokens);
        if (started == RequestLifecycle.STARTED)
        {
            return true;
        }
        if (firstFailure != null)
        {
            error(502, UPSTREAM_ERROR, firstFailure + "; no other candidate to retry on");
        }
        else if (started == RequestLifecycle.NO_MODEL && lifecycle.selection().outcome() == Outcome.INELIGIBLE)
        {
            error(400, INVALID_REQUEST, LimitHeaders.ineligible(engine.plans(), lifecycle.selection(),
                lifecycle.request()));
            errorCode = NO_ELIGIBLE_MODEL;
        }
        else if (started == RequestLifecycle.NO_MODEL && lifecycle.selection().outcome() == Outcome.SHED)
        {
            error(429, RATE_LIMIT, "decision " + decisionName + " is overloaded: the request was shed (outcome shed); " +
                "retry after " + SHED_RETRY_AFTER_SECONDS + " s");
            errorCode = OVERLOADED;
        }
        else if (started == RequestLifecycle.NO_MODEL)
        {
            error(503, NO_CANDIDATES, "decision " + decisionName + " found no candidate (outcome failed)");
        }
        else
        {
            error(400, INVALID_REQUEST, DecisionResolver.problem(engine.plans(), headerOrNull, bodyModelOrNull));
        }
        return false;
    }

    /** @return whether another attempt may follow a failure of this one. */
    public boolean mayRetry()
    {
        return attempts < maxAttempts;
    }

    /**
     * Sets the error the request is answered with, for refusals the transport finds itself (a body too large, a
     * backend that timed out).
     *
     * @param status the HTTP status.
     * @param type the OpenAI error type.
     * @param message what went wrong.
     */
    public void error(final int status, final String type, final String message)
    {
        errorStatus = status;
        errorType = type;
        errorMessage = message;
        errorCode = null;
    }

    private void clearError()
    {
        errorCode = null;
        errorStatus = 0;
        errorType = null;
        errorMessage = null;
    }

    /** @return the HTTP status of the request's error, 0 when none is set. */
    public int errorStatus()
    {
        return errorStatus;
    }

    /** @return the error's message, {@code null} when none is set. */
    public String errorMessage()
    {
        return errorMessage;
    }

    /** @return the error's OpenAI-shaped JSON body ({@code {"error": {"message", "type"}}}), null when none is set. */
    public String errorBody()
    {
        return errorType == null ? null : errorCode != null ? JsonText.error(errorType, errorCode, errorMessage) :
            JsonText.error(errorType, errorMessage);
    }

    /** @return the error's stable code (such as {@link #NO_ELIGIBLE_MODEL}), null when it has none. */
    public String errorCode()
    {
        return errorCode;
    }

    /**
     * @return the {@link ServingHeaders#RETRY_AFTER} of the error in seconds ({@link #SHED_RETRY_AFTER_SECONDS} for a
     *     shed request), 0 when it carries none.
     */
    public int errorRetryAfterSeconds()
    {
        return errorStatus == 429 && OVERLOADED.equals(errorCode) ? SHED_RETRY_AFTER_SECONDS : 0;
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

    /** @return the resolved decision's name (the {@link ServingHeaders#DECISION} response header), or null. */
    public String decisionName()
    {
        return decisionName;
    }

    /** @return attempts made so far (1 after {@link #start}, 2 after one retry). */
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
     *     null when there is none; off the fast path: allocates.
     */
    public String explainJson()
    {
        return ExplainJson.compact(engine.plans(), lifecycle.selection(), lifecycle.request());
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
