package io.multifactor.tools;

/**
 * Number formatting for the human-readable output (the JSON output has its own rules).
 * <p>
 * This class is stateless and threadsafe.
 */
final class Format
{
    private Format()
    {
    }

    /**
     * @param value a number, NaN when missing.
     * @return the number, or {@code -} when missing.
     */
    static String number(final double value)
    {
        return value != value ? "-" : Double.toString(value);
    }

    /**
     * @param value a number, NaN when missing.
     * @param decimals digits after the point.
     * @return the number rounded, or {@code -} when missing.
     */
    static String fixed(final double value, final int decimals)
    {
        return value != value ? "-" : String.format(java.util.Locale.ROOT, "%." + decimals + "f", value);
    }
}
