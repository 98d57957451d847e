package io.multifactor.kernel.reliability;

/**
 * The layout of a model's ejection word: its phase, its ejection count k and one time, all in one 64-bit value so
 * that every transition is a single compare-and-swap and {@code select} learns "healthy" from one load.
 * <pre>
 *   bits 63..12: time, milliseconds since the engine's origin   bits 11..2: k (0..1023)   bits 1..0: phase
 *   HEALTHY  (0): time = when it became healthy (k decays from then)
 *   EJECTED  (1): time = when the ejection ends; from then on the model is half-open (no probe out yet)
 *   PROBING  (2): time = when the ejection had ended; a probe lease is out, select still sees the model as ejected
 * </pre>
 * The word of a model that has never been ejected is 0. This class is stateless and threadsafe.
 */
public final class EjectionWord
{
    /** Phase: selectable; failures are counted. */
    public static final int HEALTHY = 0;

    /** Phase: ejected until the word's time, half-open after it. */
    public static final int EJECTED = 1;

    /** Phase: half-open with its one probe out. */
    public static final int PROBING = 2;

    /** Largest k the word holds (further ejections keep it there; ejection time is capped long before). */
    public static final int MAX_EJECTIONS = 1023;

    /** Largest time the word holds, in milliseconds (about 71,000 years). */
    public static final long MAX_TIME_MS = (1L << 51) - 1;

    private static final int PHASE_MASK = 3;
    private static final int K_SHIFT = 2;
    private static final int TIME_SHIFT = 12;

    private EjectionWord()
    {
    }

    /**
     * @param phase {@link #HEALTHY}, {@link #EJECTED} or {@link #PROBING}.
     * @param ejections k, clamped to 0..{@link #MAX_EJECTIONS}.
     * @param timeMs the phase's time, clamped to 0..{@link #MAX_TIME_MS}.
     * @return the word.
     */
    public static long of(final int phase, final int ejections, final long timeMs)
    {
        final long k = Math.max(0, Math.min(MAX_EJECTIONS, ejections));
        final long time = Math.max(0, Math.min(MAX_TIME_MS, timeMs));
        return time << TIME_SHIFT | k << K_SHIFT | phase;
    }

    /**
     * @param word a word.
     * @return its phase.
     */
    public static int phase(final long word)
    {
        return (int)(word & PHASE_MASK);
    }

    /**
     * @param word a word.
     * @return its k.
     */
    public static int ejections(final long word)
    {
        return (int)(word >>> K_SHIFT) & MAX_EJECTIONS;
    }

    /**
     * @param word a word.
     * @return its time in milliseconds since the engine's origin.
     */
    public static long timeMs(final long word)
    {
        return word >>> TIME_SHIFT;
    }

    /**
     * @param word a word.
     * @param nowMs now, milliseconds since the engine's origin.
     * @return whether {@code select} sees the model as ejected now: ejected and not yet over, or a probe out.
     */
    public static boolean ejectedAt(final long word, final long nowMs)
    {
        final int phase = phase(word);
        return phase == PROBING || phase == EJECTED && timeMs(word) > nowMs;
    }
}
