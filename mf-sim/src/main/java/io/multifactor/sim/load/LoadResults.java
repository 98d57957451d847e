package io.multifactor.sim.load;

/**
 * What every request of one load run gave, in arrival order, as parallel arrays: when it was sent (from the start of
 * the run), its HTTP status (0 when no response came: connect failure, reset, cut at the end of the drain), the model
 * that served it (the response's {@code x-selected-model}, else the {@code model} of its body, else null), its TTFT and
 * TPOT in microseconds (-1 when not measured: not streamed, no content chunk, or one content chunk for TPOT), its
 * content chunks and whether the stream finished ({@code data: [DONE]}, or a whole non-streamed body).
 * <p>
 * This class is not threadsafe: the run fills it on its event loop and hands it over once, completed, to the caller.
 */
public final class LoadResults
{
    private final int capacity;
    private final long[] startNs;
    private final long[] promptTokens;
    private final int[] status;
    private final String[] model;
    private final long[] ttftMicros;
    private final long[] tpotMicros;
    private final int[] chunks;
    private final boolean[] complete;
    private int count;
    private double elapsedS;

    /** @param capacity most requests of the run. */
    public LoadResults(final int capacity)
    {
        this.capacity = capacity;
        startNs = new long[capacity];
        promptTokens = new long[capacity];
        status = new int[capacity];
        model = new String[capacity];
        ttftMicros = new long[capacity];
        tpotMicros = new long[capacity];
        chunks = new int[capacity];
        complete = new boolean[capacity];
        java.util.Arrays.fill(ttftMicros, -1L);
        java.util.Arrays.fill(tpotMicros, -1L);
    }

    /** @return most requests it can hold. */
    public int capacity()
    {
        return capacity;
    }

    /**
     * Takes the next request's slot.
     *
     * @param sentNs when it was sent, nanoseconds from the start of the run.
     * @return its index.
     */
    int add(final long sentNs)
    {
        return add(sentNs, 0L);
    }

    /**
     * Takes the next request's slot.
     *
     * @param sentNs when it was sent, nanoseconds from the start of the run.
     * @param prompt its prompt's tokens.
     * @return its index.
     */
    int add(final long sentNs, final long prompt)
    {
        startNs[count] = sentNs;
        promptTokens[count] = prompt;
        return count++;
    }

    /**
     * @param index a request.
     * @return its prompt's tokens (4 bytes of text each).
     */
    public long promptTokens(final int index)
    {
        return promptTokens[index];
    }

    /** @return the prompt tokens of the requests answered 2xx, per second of the run (input tokens/s). */
    public double inputTokensPerS()
    {
        long tokens = 0;
        for (int i = 0; i < count; i++)
        {
            tokens += ok(i) ? promptTokens[i] : 0L;
        }
        return elapsedS > 0.0 ? tokens / elapsedS : 0.0;
    }

    void finish(final int index, final int httpStatus, final String servedBy, final long ttft, final long tpot,
        final int contentChunks, final boolean finished)
    {
        status[index] = httpStatus;
        model[index] = servedBy;
        ttftMicros[index] = ttft;
        tpotMicros[index] = tpot;
        chunks[index] = contentChunks;
        complete[index] = finished;
    }

    void elapsedS(final double seconds)
    {
        elapsedS = seconds;
    }

    /** @return how long the run took, seconds, from the first arrival to the last response (or the cut). */
    public double elapsedS()
    {
        return elapsedS;
    }

    /** @return requests sent. */
    public int count()
    {
        return count;
    }

    /**
     * @param i request index.
     * @return when it was sent, nanoseconds from the start of the run.
     */
    public long startNs(final int i)
    {
        return startNs[i];
    }

    /**
     * @param i request index.
     * @return its HTTP status, 0 when no response came.
     */
    public int status(final int i)
    {
        return status[i];
    }

    /**
     * @param i request index.
     * @return the model that served it, or null.
     */
    public String model(final int i)
    {
        return model[i];
    }

    /**
     * @param i request index.
     * @return its TTFT in microseconds, -1 when not measured.
     */
    public long ttftMicros(final int i)
    {
        return ttftMicros[i];
    }

    /**
     * @param i request index.
     * @return its TPOT in microseconds, -1 when not measured.
     */
    public long tpotMicros(final int i)
    {
        return tpotMicros[i];
    }

    /**
     * @param i request index.
     * @return its content chunks.
     */
    public int chunks(final int i)
    {
        return chunks[i];
    }

    /**
     * @param i request index.
     * @return whether its response finished.
     */
    public boolean complete(final int i)
    {
        return complete[i];
    }

    /**
     * @param i request index.
     * @return whether it succeeded: status 200 and a finished response.
     */
    public boolean ok(final int i)
    {
        return status[i] == 200 && complete[i];
    }

    /**
     * @param i request index.
     * @param maxTtftMs TTFT ceiling in milliseconds, 0 = none.
     * @param maxTpotMs TPOT ceiling in milliseconds, 0 = none.
     * @return whether it met the SLO: it succeeded and its TTFT and TPOT, where measured, are within the ceilings
     *     (a value not measured, as for a non-streamed request, breaks no ceiling).
     */
    public boolean attained(final int i, final double maxTtftMs, final double maxTpotMs)
    {
        if (!ok(i))
        {
            return false;
        }
        if (maxTtftMs > 0.0 && ttftMicros[i] > maxTtftMs * 1000.0)
        {
            return false;
        }
        return !(maxTpotMs > 0.0 && tpotMicros[i] > maxTpotMs * 1000.0);
    }
}
