package io.multifactor.serving;

/**
 * The one parser of a backend's {@code Retry-After} header (DESIGN 4.5 and 11): the delay in seconds
 * ({@code delay-seconds = 1*DIGIT} of RFC 9110, surrounding blanks ignored) becomes milliseconds for
 * {@code end(lease, status, retryAfterMs)}, which ejects the model for that time (capped by its
 * {@code max_ejection_time}). Anything else (absent, empty, a sign, a fraction, an HTTP date, more than
 * {@link #MAX_DIGITS} digits) is no delay: 0. A delay of 0 is no delay either.
 * <p>
 * This class is stateless and threadsafe; it allocates nothing.
 */
public final class RetryAfter
{
    /** Most digits read: nine digits of seconds (about 31 years) cannot overflow a {@code long} of milliseconds. */
    public static final int MAX_DIGITS = 9;

    private RetryAfter()
    {
    }

    /**
     * @param valueOrNull the header's value, or {@code null} when absent.
     * @return the delay in milliseconds, 0 when there is none or the value is not delay-seconds.
     */
    public static long delayMs(final CharSequence valueOrNull)
    {
        if (valueOrNull == null)
        {
            return 0;
        }
        int from = 0;
        int to = valueOrNull.length();
        while (from < to && blank(valueOrNull.charAt(from)))
        {
            from++;
        }
        while (to > from && blank(valueOrNull.charAt(to - 1)))
        {
            to--;
        }
        if (to == from || to - from > MAX_DIGITS)
        {
            return 0;
        }
        long seconds = 0;
        for (int i = from; i < to; i++)
        {
            final char c = valueOrNull.charAt(i);
            if (c < '0' || c > '9')
            {
                return 0;
            }
            seconds = seconds * 10 + (c - '0');
        }
        return seconds * 1_000L;
    }

    private static boolean blank(final char c)
    {
        return c == ' ' || c == '\t';
    }
}
