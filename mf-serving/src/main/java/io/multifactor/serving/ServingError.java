package io.multifactor.serving;

/**
 * The one table of the errors a routing server answers itself, each with its HTTP status, OpenAI error {@code type} and
 * stable {@code code}, so that a client (an OpenAI SDK's {@code err.code}) can tell them apart. Adding an error is one
 * line here; {@link #body} writes OpenAI's shape, {@code {"error": {"message", "type", "param", "code"}}}.
 * <p>
 * This enum is immutable and threadsafe.
 */
public enum ServingError
{
    /** No decision named: neither the {@code x-mf-decision} header nor the body's {@code model}. */
    MISSING_MODEL(400, "invalid_request_error", "missing_model", "model"),
    /** The {@code x-mf-decision} header names no decision. */
    DECISION_NOT_FOUND(404, "invalid_request_error", "decision_not_found", null),
    /** The body's {@code model} names neither a decision nor a model. */
    MODEL_NOT_FOUND(404, "invalid_request_error", "model_not_found", "model"),
    /** The request body is larger than the limit. */
    REQUEST_TOO_LARGE(413, "invalid_request_error", "request_too_large", null),
    /** The request body is not JSON, not an object, or a field the router reads has the wrong type. */
    INVALID_JSON(400, "invalid_request_error", "invalid_json", null),
    /** A request malformed otherwise (a header too long, trailers where a buffered body is routed). */
    INVALID_REQUEST(400, "invalid_request_error", "invalid_request", null),
    /** No route for the method and path. */
    NOT_FOUND(404, "invalid_request_error", "not_found", null),
    /** The route exists, not with this method. */
    METHOD_NOT_ALLOWED(405, "invalid_request_error", "method_not_allowed", null),
    /** The decision found no candidate (outcome {@code failed}), or the model named directly is ejected. */
    NO_CANDIDATE(503, "server_error", "no_candidate", null),
    /** Every attempt failed and the last one got no answer from its backend (connect failure, reset). */
    UPSTREAM_UNAVAILABLE(502, "server_error", "upstream_unavailable", null),
    /** The backend sent no answer before the request's deadline, or went silent mid-stream. */
    UPSTREAM_TIMEOUT(504, "server_error", "upstream_timeout", null),
    /** Client keys are configured and the request carries no valid {@code Authorization: Bearer} key. */
    INVALID_API_KEY(401, "invalid_request_error", "invalid_api_key", null),
    /** The client's key may not use the decision the request names. */
    DECISION_NOT_ALLOWED(403, "invalid_request_error", "decision_not_allowed", null),
    /** No candidate can serve the request: its context or capabilities exceed every model's (outcome ineligible). */
    NO_ELIGIBLE_MODEL(400, "invalid_request_error", "no_eligible_model", null),
    /** A request header the router reads has a bad value ({@code x-slo-ttft-ms}, {@code x-mf-priority}, ...). */
    INVALID_HEADER(400, "invalid_request_error", "invalid_header", null),
    /** The request was shed under load (outcome {@code shed}), answered with {@code Retry-After}. */
    OVERLOADED(429, "rate_limit_error", "overloaded", null);

    private final int status;
    private final String type;
    private final String code;
    private final String param;

    ServingError(final int status, final String type, final String code, final String param)
    {
        this.status = status;
        this.type = type;
        this.code = code;
        this.param = param;
    }

    /** @return the HTTP status the error is answered with. */
    public int status()
    {
        return status;
    }

    /** @return OpenAI's error {@code type}, such as {@code invalid_request_error}. */
    public String type()
    {
        return type;
    }

    /** @return the stable {@code code}, such as {@code model_not_found}. */
    public String code()
    {
        return code;
    }

    /** @return the request parameter the error is about ({@code model}), or {@code null}. */
    public String param()
    {
        return param;
    }

    /**
     * Off the request's fast path: allocates.
     *
     * @param message what went wrong, for a person (never a parser's internals).
     * @return the OpenAI-shaped body: {@code {"error":{"message":...,"type":...,"param":...,"code":...}}}.
     */
    public String body(final String message)
    {
        return "{\"error\":{\"message\":" + JsonText.string(message) + ",\"type\":" + JsonText.string(type) +
            ",\"param\":" + JsonText.string(param) + ",\"code\":" + JsonText.string(code) + "}}";
    }
}
