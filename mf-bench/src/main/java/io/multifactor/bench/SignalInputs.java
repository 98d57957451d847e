package io.multifactor.bench;

import java.util.SplittableRandom;

/**
 * Pre-built inputs for the signal benchmarks: {@link #SIZE} (model handle, TTFT sample, TPOT sample) triples over the
 * fixture's pool, walked in order so that every invocation records a different model and value.
 * <p>
 * This class is not threadsafe: each benchmark thread builds and walks its own instance.
 */
public final class SignalInputs
{
    /** Number of pre-built inputs, a power of two. */
    public static final int SIZE = 1024;

    private static final int MASK = SIZE - 1;

    final int[] modelIds = new int[SIZE];
    final long[] ttftMicros = new long[SIZE];
    final long[] tpotMicros = new long[SIZE];
    private int cursor;

    /**
     * @param fixture the pool the models and nominal latencies come from (its handles are its pool indices).
     * @param models how many pool models to spread the inputs over, 1..{@link SelectFixture#POOL_SIZE}.
     * @param seed seed of the choice of models.
     */
    public SignalInputs(final SelectFixture fixture, final int models, final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        for (int k = 0; k < SIZE; k++)
        {
            final int model = random.nextInt(models);
            modelIds[k] = model;
            ttftMicros[k] = fixture.sampleMicros(fixture.nominalTtftMs(model));
            tpotMicros[k] = fixture.sampleMicros(fixture.nominalTpotMs(model));
        }
    }

    /** @return index of the next input. */
    public int next()
    {
        final int k = cursor;
        cursor = (k + 1) & MASK;
        return k;
    }
}
