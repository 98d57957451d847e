package io.multifactor.kernel.reliability;

/**
 * What the end of one request tells ejection, from its HTTP status and {@code Retry-After}: a success, a failure, a
 * Retry-After ejection, or nothing.
 * <ul>
 *   <li>a 5xx (but a 503 with {@code Retry-After}) or 0 (connect failure, reset, timeout) is a {@link #FAILURE};</li>
 *   <li>a 429 or 503 with {@code Retry-After} is {@link #RETRY_AFTER}: not a failure, it ejects the model for the delay;</li>
 *   <li>a 429 without it, a status outside 0..599, or no status at all is {@link #NOTHING};</li>
 *   <li>any other status is a {@link #SUCCESS}.</li>
 * </ul>
 * This class is stateless and threadsafe.
 */
public final class RequestResult
{
    /** Any status that is not a failure: resets the run of failures; a half-open model's probe makes it healthy. */
    public static final int SUCCESS = 0;

    /** A 5xx (but a 503 with Retry-After) or 0. */
    public static final int FAILURE = 1;

    /** A 429 or 503 with a Retry-After delay: ejects for the delay without raising the ejection count. */
    public static final int RETRY_AFTER = 2;

    /** No status (a cancelled request), a 429 without Retry-After, or a value that is no HTTP status: changes nothing. */
    public static final int NOTHING = 3;

    /** The status of a request that never got a response: a connect failure, a reset by the backend or a timeout. */
    public static final int NO_RESPONSE = 0;

    /** A {@code retryAfterMillis} that says the response carried no {@code Retry-After}. */
    public static final long NO_RETRY_AFTER = 0L;

    private RequestResult()
    {
    }

    /**
     * @param status the HTTP status, {@link #NO_RESPONSE} when there was no response.
     * @param retryAfterMillis the response's {@code Retry-After} in milliseconds, {@code <= 0} when it had none.
     * @return {@link #SUCCESS}, {@link #FAILURE}, {@link #RETRY_AFTER} or {@link #NOTHING}.
     */
    public static int classify(final int status, final long retryAfterMillis)
    {
        if (status == NO_RESPONSE)
        {
            return FAILURE;
        }
        if (status < 100 || status > 599)
        {
            return NOTHING;
        }
        if (status == 429 || status == 503)
        {
            if (retryAfterMillis > 0)
            {
                return RETRY_AFTER;
            }
            return status == 429 ? NOTHING : FAILURE;
        }
        return status >= 500 ? FAILURE : SUCCESS;
    }
}
