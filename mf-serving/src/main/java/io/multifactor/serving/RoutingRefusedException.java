package io.multifactor.serving;

/**
 * A call the request flow refused before any model was called: no decision named, no candidate, or every attempt
 * without a callable model. It carries what the gateway would answer over HTTP: the status and the OpenAI error type
 * ({@link RequestFlow#errorStatus()}), so a framework integration reports the same refusal the gateway does.
 * <p>
 * Instances are immutable and threadsafe.
 */
public final class RoutingRefusedException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    private final int status;
    private final String type;

    /**
     * @param status the HTTP status the gateway answers with.
     * @param type the OpenAI error type ({@code invalid_request_error}, {@code server_error}, ...: {@link ServingError#type()}).
     * @param message what went wrong.
     */
    public RoutingRefusedException(final int status, final String type, final String message)
    {
        super(message);
        this.status = status;
        this.type = type;
    }

    /** @return the HTTP status the gateway answers the same refusal with (400, 502, 503). */
    public int status()
    {
        return status;
    }

    /** @return the OpenAI error type. */
    public String type()
    {
        return type;
    }
}
