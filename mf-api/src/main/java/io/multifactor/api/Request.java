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
 * {@link #clear()} forgets exclusions, token counts, the session key, cached shares, needs, request ceilings and priority
 * but not the generator's position.
 * <p>
 * Eligibility and admission (section "Eligibility, request SLOs and shedding" of docs/semantics.md): what the request
 * needs ({@link #needs(int)}, bits of {@link Capability}), its own latency ceilings ({@link #maxTtftMs(double)},
 * {@link #maxTpotMs(double)}: the smaller of the request's and the decision's applies) and its {@link Priority}. Its
 * prompt tokens plus output tokens ({@link #maxOutputTokens()}, else the engine's {@code default_output_tokens}) are
 * checked against each candidate's {@code context_window}.
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
        clearLimits();
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
    // Eligibility and admission. limits holds one bit per rule the request carries, so that a request carrying none
    // costs the kernel one test.
    private static final int LIMIT_NEEDS = 1;
    private static final int LIMIT_TTFT = 1 << 1;
    private static final int LIMIT_TPOT = 1 << 2;
    private static final int LIMIT_SHEDDABLE = 1 << 3;

    private int limits;
    private int needs;
    private double maxTtftMs;
    private double maxTpotMs;
    private int priority = Priority.STANDARD;
    private long contextPromptTokens = NO_TOKENS;

    /**
     * The prompt tokens of a request that does not price itself by its own token counts (a server that knows the
     * prompt's size but not an output bound): counted against each candidate's {@code context_window} only, when
     * {@link #promptTokens()} is not set.
     *
     * @param promptTokens the prompt token estimate, >= 0.
     * @return this request, for chaining.
     * @throws IllegalArgumentException for a negative count.
     */
    public Request contextPromptTokens(final long promptTokens)
    {
        this.contextPromptTokens = requireCount("contextPromptTokens", promptTokens);
        return this;
    }

    /**
     * @return the prompt tokens a context window is checked for: {@link #promptTokens()} when set, else
     *     {@link #contextPromptTokens(long)}'s, else 0.
     */
    public long contextPromptTokens()
    {
        return promptTokens != NO_TOKENS ? promptTokens : contextPromptTokens != NO_TOKENS ? contextPromptTokens : 0L;
    }

    /**
     * @param needs what the request needs, bits of {@link Capability} (0: nothing).
     * @return this request, for chaining.
     * @throws IllegalArgumentException for a bit that is not a capability.
     */
    public Request needs(final int needs)
    {
        if ((needs & ~Capability.ALL) != 0)
        {
            throw new IllegalArgumentException("needs must be bits of Capability: " + needs);
        }
        this.needs = needs;
        limits = needs != 0 ? limits | LIMIT_NEEDS : limits & ~LIMIT_NEEDS;
        return this;
    }

    /** @return what the request needs, bits of {@link Capability}; 0 when nothing. */
    public int needs()
    {
        return needs;
    }

    /**
     * @param maxTtftMs the request's own TTFT ceiling in milliseconds, > 0; 0 for none. It can only tighten the
     *     decision's {@code max_ttft_ms}.
     * @return this request, for chaining.
     * @throws IllegalArgumentException for a negative, NaN or infinite value.
     */
    public Request maxTtftMs(final double maxTtftMs)
    {
        this.maxTtftMs = requireCeiling("maxTtftMs", maxTtftMs);
        limits = maxTtftMs > 0.0 ? limits | LIMIT_TTFT : limits & ~LIMIT_TTFT;
        return this;
    }

    /** @return the request's own TTFT ceiling in milliseconds, 0 when none. */
    public double maxTtftMs()
    {
        return maxTtftMs;
    }

    /**
     * @param maxTpotMs the request's own TPOT ceiling in milliseconds, > 0; 0 for none. It can only tighten the
     *     decision's {@code max_tpot_ms}.
     * @return this request, for chaining.
     * @throws IllegalArgumentException for a negative, NaN or infinite value.
     */
    public Request maxTpotMs(final double maxTpotMs)
    {
        this.maxTpotMs = requireCeiling("maxTpotMs", maxTpotMs);
        limits = maxTpotMs > 0.0 ? limits | LIMIT_TPOT : limits & ~LIMIT_TPOT;
        return this;
    }

    /** @return the request's own TPOT ceiling in milliseconds, 0 when none. */
    public double maxTpotMs()
    {
        return maxTpotMs;
    }

    /** @return whether the request has a TTFT or TPOT ceiling of its own. */
    public boolean hasLatencyCeilings()
    {
        return (limits & (LIMIT_TTFT | LIMIT_TPOT)) != 0;
    }

    /**
     * @param priority a code of {@link Priority}.
     * @return this request, for chaining.
     * @throws IllegalArgumentException for an unknown code.
     */
    public Request priority(final int priority)
    {
        Priority.label(priority);
        this.priority = priority;
        limits = priority == Priority.SHEDDABLE ? limits | LIMIT_SHEDDABLE : limits & ~LIMIT_SHEDDABLE;
        return this;
    }

    /** @return the request's {@link Priority}, {@link Priority#STANDARD} unless set. */
    public int priority()
    {
        return priority;
    }

    /**
     * @return whether the request carries a need, a latency ceiling of its own or the {@code sheddable} priority: one
     *     test, so that the kernel's path for requests without them stays as it is.
     */
    public boolean carriesLimits()
    {
        return limits != 0;
    }

    private void clearLimits()
    {
        limits = 0;
        needs = 0;
        maxTtftMs = 0.0;
        maxTpotMs = 0.0;
        priority = Priority.STANDARD;
        contextPromptTokens = NO_TOKENS;
    }

    private static double requireCeiling(final String what, final double ms)
    {
        if (!(ms >= 0.0 && ms < Double.POSITIVE_INFINITY))
        {
            throw new IllegalArgumentException(what + " must be finite and >= 0: " + ms);
        }
        return ms;
    }
}
