package io.multifactor.kernel.engine;

/**
 * Time per output token of a streamed response: {@code (endToEnd - ttft) / (outputTokens - 1)}, the time between the
 * first and the last token spread over the tokens after the first.
 * <p>
 * This class is stateless and threadsafe; it allocates nothing.
 */
public final class Tpot
{
    private Tpot()
    {
    }

    /**
     * Computes the TPOT of one response, rounded to the nearest microsecond and at least 1.
     * <p>
     * A response without a measurable TPOT gives 0, which every recorder refuses (and counts): fewer than two output
     * tokens (no interval between tokens), an end-to-end time not greater than the TTFT, or a negative TTFT.
     *
     * @param endToEndMicros time from request to last token, in microseconds.
     * @param ttftMicros time from request to first token, in microseconds.
     * @param outputTokens number of tokens streamed.
     * @return TPOT in microseconds, or 0 when it cannot be computed.
     */
    public static long tpotMicros(final long endToEndMicros, final long ttftMicros, final int outputTokens)
    {
        if (outputTokens <= 1 || ttftMicros < 0 || endToEndMicros <= ttftMicros)
        {
            return 0L;
        }
        final long intervals = outputTokens - 1L;
        final long spanMicros = endToEndMicros - ttftMicros;
        final long quotient = spanMicros / intervals;
        final long remainder = spanMicros % intervals;
        // Round half up without overflowing: compare the remainder with what is left to the next multiple.
        final long rounded = remainder >= intervals - remainder ? quotient + 1 : quotient;
        return Math.max(1L, rounded);
    }
}
