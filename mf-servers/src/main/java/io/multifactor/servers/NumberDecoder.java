package io.multifactor.servers;

/**
 * Decodes a decimal number as Prometheus writes one ({@code 3}, {@code 0.25}, {@code 1.2288e+04}, {@code .5},
 * {@code NaN}, {@code +Inf}, {@code -Inf}, case-insensitively, also {@code Infinity}) from bytes, without allocating.
 * The result is the nearest double when the number has up to 15 significant digits and a decimal exponent within 22 of
 * them; otherwise within a few units in the last place.
 * <p>
 * This class is not threadsafe: one decoder per thread.
 */
final class NumberDecoder
{
    private static final double[] POWERS_OF_TEN = {
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
        1e20, 1e21, 1e22};
    private static final long MAX_EXACT_MANTISSA = 1L << 53;
    private static final int MAX_EXPONENT = 400;

    private double number;

    /** @return the value of the last successful {@link #decode}. */
    double value()
    {
        return number;
    }

    /**
     * Decodes {@code [from, to)}. Allocation-free.
     *
     * @param b the bytes.
     * @param from first byte.
     * @param to end, exclusive.
     * @return whether it is a number; then {@link #value()} holds it.
     */
    boolean decode(final byte[] b, final int from, final int to)
    {
        int p = from;
        boolean negative = false;
        if (p < to && (b[p] == '+' || b[p] == '-'))
        {
            negative = b[p] == '-';
            p++;
        }
        if (p < to && (b[p] | 0x20) == 'n' || p < to && (b[p] | 0x20) == 'i')
        {
            return parseWord(b, p, to, negative);
        }
        long mantissa = 0;
        int digits = 0;
        int exponent = 0;
        int seen = 0;
        while (p < to && b[p] >= '0' && b[p] <= '9')
        {
            if (digits < 18)
            {
                mantissa = mantissa * 10 + (b[p] - '0');
                if (mantissa != 0)
                {
                    digits++;
                }
            }
            else
            {
                exponent++;
            }
            p++;
            seen++;
        }
        if (p < to && b[p] == '.')
        {
            p++;
            while (p < to && b[p] >= '0' && b[p] <= '9')
            {
                if (digits < 18)
                {
                    mantissa = mantissa * 10 + (b[p] - '0');
                    if (mantissa != 0)
                    {
                        digits++;
                    }
                    exponent--;
                }
                p++;
                seen++;
            }
        }
        if (seen == 0)
        {
            return false;
        }
        if (p < to && (b[p] == 'e' || b[p] == 'E'))
        {
            p++;
            boolean negativeExponent = false;
            if (p < to && (b[p] == '+' || b[p] == '-'))
            {
                negativeExponent = b[p] == '-';
                p++;
            }
            int written = 0;
            final int exponentDigits = p;
            while (p < to && b[p] >= '0' && b[p] <= '9')
            {
                if (written < MAX_EXPONENT)
                {
                    written = written * 10 + (b[p] - '0');
                }
                p++;
            }
            if (p == exponentDigits)
            {
                return false;
            }
            exponent += negativeExponent ? -Math.min(written, MAX_EXPONENT) : Math.min(written, MAX_EXPONENT);
        }
        if (p != to)
        {
            return false;
        }
        while (exponent < 0 && mantissa != 0 && mantissa % 10 == 0)
        {
            mantissa /= 10;
            exponent++;
        }
        double value;
        if (mantissa == 0)
        {
            value = 0.0;
        }
        else if (mantissa < MAX_EXACT_MANTISSA && exponent >= 0 && exponent < POWERS_OF_TEN.length)
        {
            value = mantissa * POWERS_OF_TEN[exponent];
        }
        else if (mantissa < MAX_EXACT_MANTISSA && exponent < 0 && -exponent < POWERS_OF_TEN.length)
        {
            value = mantissa / POWERS_OF_TEN[-exponent];
        }
        else if (exponent < -300)
        {
            value = mantissa * Math.pow(10, exponent + 300) * 1e-300;
        }
        else
        {
            value = mantissa * Math.pow(10, exponent);
        }
        number = negative ? -value : value;
        return true;
    }

    private boolean parseWord(final byte[] b, final int from, final int to, final boolean negative)
    {
        final int length = to - from;
        if (length == 3 && lower(b[from]) == 'n' && lower(b[from + 1]) == 'a' && lower(b[from + 2]) == 'n')
        {
            number = Double.NaN;
            return true;
        }
        final boolean inf = length == 3 && lower(b[from]) == 'i' && lower(b[from + 1]) == 'n' && lower(b[from + 2]) == 'f';
        final boolean infinity = length == 8 && lower(b[from]) == 'i' && lower(b[from + 1]) == 'n' &&
            lower(b[from + 2]) == 'f' && lower(b[from + 3]) == 'i' && lower(b[from + 4]) == 'n' &&
            lower(b[from + 5]) == 'i' && lower(b[from + 6]) == 't' && lower(b[from + 7]) == 'y';
        if (inf || infinity)
        {
            number = negative ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
            return true;
        }
        return false;
    }

    private static int lower(final byte c)
    {
        return c | 0x20;
    }
}
