package io.multifactor.config.read;

/**
 * Parses durations as written in the configuration: a positive whole number and a unit, such as {@code 250ms},
 * {@code 60s}, {@code 10m} or {@code 1h} (also {@code us} and {@code ns}).
 * <p>
 * This class is stateless and threadsafe.
 */
public final class Durations
{
    /** Returned by {@link #parseNs(String)} for text that is not a duration. */
    public static final long INVALID = -1L;

    private static final String[] UNITS = { "ns", "us", "ms", "s", "m", "h" };
    private static final long[] UNIT_NS = { 1L, 1_000L, 1_000_000L, 1_000_000_000L, 60_000_000_000L, 3_600_000_000_000L };

    private Durations()
    {
    }

    /**
     * @param text such as {@code 60s}.
     * @return the duration in nanoseconds, or {@link #INVALID} when the text is not a whole number followed by one of
     *     {@code ns}, {@code us}, {@code ms}, {@code s}, {@code m}, {@code h}, or the value overflows.
     */
    public static long parseNs(final String text)
    {
        final String s = text.strip();
        int digits = 0;
        while (digits < s.length() && Character.isDigit(s.charAt(digits)) && s.charAt(digits) < 128)
        {
            digits++;
        }
        if (digits == 0 || digits > 18)
        {
            return INVALID;
        }
        final String unit = s.substring(digits).strip();
        for (int i = 0; i < UNITS.length; i++)
        {
            if (UNITS[i].equals(unit))
            {
                final long value = Long.parseLong(s.substring(0, digits));
                if (value > Long.MAX_VALUE / UNIT_NS[i])
                {
                    return INVALID;
                }
                return value * UNIT_NS[i];
            }
        }
        return INVALID;
    }
}
