package io.multifactor.api;

import java.util.concurrent.ThreadLocalRandom;

/**
 * What one request tells the selection, owned by the caller and reused across requests like {@link Selection}: its
 * decision ({@link #decision(int)}), the models it leaves out ({@link #exclusions()}), its token counts when known
 * ({@link #promptTokens(long)}, {@link #maxOutputTokens(long)}), and the generator the {@code tie_break: random} rule
 * draws from.
 * <p>
 * Token counts price the request by its own mix: with either count set and their sum above 0, a candidate's cost is
 * {@code (promptTokens * prompt_per_1m + maxOutputTokens * completion_per_1m) / (promptTokens + maxOutputTokens)},
 * a count not set counting as 0, instead of the decision's {@code cost_mix}. Without them the decision's mix applies.
 * <p>
 * A request may also say, per model, which share of its prompt is already cached where that model's request would go
 * ({@link #prefixMatch(int, double)}: the {@code prefix} factor, and the cached prompt price where the model has
 * {@code cached_prompt_per_1m}); a model it says nothing of has no such share (missing).
 * <p>
 * The generator is a SplitMix64 sequence held in this object, so it is as per-thread as the request itself; a new
 * request starts from a random seed, {@link #seed(long)} makes its draws reproducible (tests, {@code explain}).
 * {@link #clear()} forgets exclusions, token counts, the session key and cached shares but not the generator's
 * position.
 * <p>
 * Nothing here allocates after construction (except {@link Exclusions#add(int)} growing for a handle beyond its
 * capacity, and {@link #prefixMatch(int, double)} on its first call and for a handle beyond the ones it has held).
 * <p>
 * This class is not threadsafe: one thread fills it, selects with it, then reuses it; give each thread its own instance.
 */
public final class Request
{
    /** Value of a token count that was not set. */
    public static final long NO_TOKENS = -1L;

    private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

    private static final double[] NO_SHARES = new double[0];
    private static final int[] NO_MODELS = new int[0];

    private final Exclusions exclusions;
    private int decisionId = Handles.NONE;
    private long promptTokens = NO_TOKENS;
    private long maxOutputTokens = NO_TOKENS;
    private long randomState;
    private boolean hasSession;
    private long sessionKey;
    // The cached prompt share per model handle (NaN: not supplied), allocated on first use; prefixModels lists the
    // handles set since the last clear, so that clear resets only those.
    private double[] prefixShares = NO_SHARES;
    private int[] prefixModels = NO_MODELS;
    private int prefixCount;

    /** An empty request: no decision, nothing excluded, no token counts, a randomly seeded generator. */
    public Request()
    {
        this(new Exclusions());
    }

    /**
     * An empty request around a caller's exclusion set (it becomes this request's: {@link #clear()} empties it).
     *
     * @param exclusions the set to use; not shared with another thread.
     */
    public Request(final Exclusions exclusions)
    {
        if (exclusions == null)
        {
            throw new NullPointerException("exclusions");
        }
        this.exclusions = exclusions;
        this.randomState = ThreadLocalRandom.current().nextLong();
    }

    /**
     * @param decisionId handle of the decision this request is routed by.
     * @return this request, for chaining.
     */
    public Request decision(final int decisionId)
    {
        this.decisionId = decisionId;
        return this;
    }

    /** @return handle of the decision, {@link Handles#NONE} until set. */
    public int decisionId()
    {
        return decisionId;
    }

    /** @return the models this request leaves out; add to it with {@link #exclude(int)} or directly. */
    public Exclusions exclusions()
    {
        return exclusions;
    }

    /**
     * Leaves a model out of this request. A negative handle (such as {@link Handles#NONE}) is ignored.
     *
     * @param modelId handle of the model.
     * @return this request, for chaining.
     */
    public Request exclude(final int modelId)
    {
        exclusions.add(modelId);
        return this;
    }

    /**
     * @param promptTokens number of prompt tokens of this request, >= 0.
     * @return this request, for chaining.
     * @throws IllegalArgumentException for a negative count.
     */
    public Request promptTokens(final long promptTokens)
    {
        this.promptTokens = requireCount("promptTokens", promptTokens);
        return this;
    }

    /**
     * @param maxOutputTokens the most completion tokens this request may generate, >= 0.
     * @return this request, for chaining.
     * @throws IllegalArgumentException for a negative count.
     */
    public Request maxOutputTokens(final long maxOutputTokens)
    {
        this.maxOutputTokens = requireCount("maxOutputTokens", maxOutputTokens);
        return this;
    }

    /** @return the prompt token count, {@link #NO_TOKENS} when not set. */
    public long promptTokens()
    {
        return promptTokens;
    }

    /** @return the completion token bound, {@link #NO_TOKENS} when not set. */
    public long maxOutputTokens()
    {
        return maxOutputTokens;
    }

    /** @return whether this request's token counts replace the decision's {@code cost_mix} (a count set, sum above 0). */
    public boolean hasTokens()
    {
        return promptTokens > 0 || maxOutputTokens > 0;
    }

    /** @return the prompt share of this request's mix: the prompt token count, 0 when not set. */
    public double promptShare()
    {
        return promptTokens > 0 ? promptTokens : 0.0;
    }

    /** @return the completion share of this request's mix: the completion token bound, 0 when not set. */
    public double completionShare()
    {
        return maxOutputTokens > 0 ? maxOutputTokens : 0.0;
    }

    /**
     * Gives this request a session key: a decision with a {@code session} block keeps the request on the model that
     * served the key before, as its rules say ({@link SessionRule}). A decision without one ignores the key.
     *
     * @param key any 64-bit value the caller derives from its conversation, stable across replicas and restarts.
     * @return this request, for chaining.
     */
    public Request session(final long key)
    {
        sessionKey = key;
        hasSession = true;
        return this;
    }

    /**
     * Says which share of this request's prompt is already cached for a model: P(m), the match of its prompt on the
     * backend the model's request would go to. It is the {@code prefix} factor's value of that model (higher is better)
     * and, where the model has a {@code cached_prompt_per_1m}, prices its prompt as
     * {@code (1 - P) * prompt_per_1m + P * cached_prompt_per_1m}. Never throws: a share below 0 counts as 0 and one
     * above 1 as 1; NaN forgets the model's share (missing again); a negative handle (such as {@link Handles#NONE}) is
     * ignored. Allocates only the first time, or for a handle beyond those held before.
     *
     * @param modelId handle of the model.
     * @param share the cached share of the prompt, 0..1.
     * @return this request, for chaining.
     */
    public Request prefixMatch(final int modelId, final double share)
    {
        if (modelId < 0)
        {
            return this;
        }
        if (modelId >= prefixShares.length)
        {
            growPrefixSlowPath(modelId);
        }
        if (prefixShares[modelId] != prefixShares[modelId])
        {
            if (share != share)
            {
                return this;
            }
            if (prefixCount == prefixModels.length)
            {
                prefixModels = java.util.Arrays.copyOf(prefixModels, Math.max(8, prefixCount * 2));
            }
            prefixModels[prefixCount++] = modelId;
        }
        prefixShares[modelId] = share < 0.0 ? 0.0 : share > 1.0 ? 1.0 : share;
        return this;
    }

    /**
     * Takes the session key away ({@link #clear()} does too).
     *
     * @return this request, for chaining.
     */
    public Request noSession()
    {
        hasSession = false;
        sessionKey = 0L;
        return this;
    }

    /** @return whether this request carries a session key. */
    public boolean hasSession()
    {
        return hasSession;
    }

    /** @return the session key; meaningful only when {@link #hasSession()}. */
    public long sessionKey()
    {
        return sessionKey;
    }

    /**
     * @param modelId handle of a model.
     * @return the cached share of this request's prompt for that model, 0..1, NaN when not supplied.
     */
    public double prefixMatch(final int modelId)
    {
        return modelId >= 0 && modelId < prefixShares.length ? prefixShares[modelId] : Double.NaN;
    }

    /** @return whether a cached share was supplied for some model since the last {@link #clear()}. */
    public boolean hasPrefixMatches()
    {
        return prefixCount != 0;
    }

    /**
     * Forgets exclusions, token counts, the session key and cached shares for the next request, keeping the
     * decision, storage and the generator's position.
     *
     * @return this request, for chaining.
     */
    public Request clear()
    {
        exclusions.clear();
        promptTokens = NO_TOKENS;
        maxOutputTokens = NO_TOKENS;
        noSession();
        for (int i = 0; i < prefixCount; i++)
        {
            prefixShares[prefixModels[i]] = Double.NaN;
        }
        prefixCount = 0;
        return this;
    }

    /**
     * Restarts the tie-break generator from a seed: the same seed gives the same draws.
     *
     * @param seed any value.
     * @return this request, for chaining.
     */
    public Request seed(final long seed)
    {
        randomState = seed;
        return this;
    }

    /**
     * Draws a uniform index from the tie-break generator. Called by the kernel for {@code tie_break: random}; allocates
     * nothing.
     *
     * @param bound number of tied candidates, >= 1.
     * @return a value in {@code [0, bound)}.
     */
    public int nextIndex(final int bound)
    {
        // The high 32 bits scaled to the bound: a bias below bound / 2^32, far under what any test can see.
        return (int)(((nextBits() >>> 32) * bound) >>> 32);
    }

    /**
     * Draws 64 uniform bits from the tie-break generator, one step of it as {@link #nextIndex} takes. Called by the
     * kernel for {@code pick: p2c}, which scales each half to a range; allocates nothing.
     *
     * @return the next 64 bits of the generator.
     */
    public long nextBits()
    {
        randomState += GOLDEN_GAMMA;
        long z = randomState;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    private void growPrefixSlowPath(final int modelId)
    {
        final int oldLength = prefixShares.length;
        prefixShares = java.util.Arrays.copyOf(prefixShares, Math.max(modelId + 1, Math.max(64, oldLength * 2)));
        java.util.Arrays.fill(prefixShares, oldLength, prefixShares.length, Double.NaN);
    }

    private static long requireCount(final String what, final long count)
    {
        if (count < 0)
        {
            throw new IllegalArgumentException(what + " must be >= 0: " + count);
        }
        return count;
    }
}
