package io.multifactor.kernel.plan;

import io.multifactor.api.Capability;

import java.util.Arrays;

/**
 * A decision's rules that depend on the request (section "Eligibility, request SLOs and shedding" of
 * docs/semantics.md): each candidate's {@code context_window} and {@code capabilities}, the output tokens a request
 * that states none is counted for ({@code signals.default_output_tokens}), and {@code admission.sheddable_above}.
 * <p>
 * Instances are immutable and threadsafe.
 */
public final class RequestRules
{
    /** Default of {@code signals.default_output_tokens}. */
    public static final long DEFAULT_OUTPUT_TOKENS = 512L;

    /** The context window of a model without {@code context_window}: no request exceeds it. */
    public static final long NO_CONTEXT_WINDOW = Long.MAX_VALUE;

    private final long[] contextWindows;
    private final int[] capabilities;
    private final long defaultOutputTokens;
    private final double sheddableAbove;
    private final boolean contextWindow;
    private final boolean restricted;

    /**
     * @param contextWindows per candidate, its context window in tokens or {@link #NO_CONTEXT_WINDOW} (copied).
     * @param capabilities per candidate, bits of {@link Capability} ({@link Capability#ALL} when not listed; copied).
     * @param defaultOutputTokens output tokens of a request that states none, >= 0.
     * @param sheddableAbove {@code admission.sheddable_above}, in (0, 1], or 0 when the decision has no admission.
     * @throws IllegalArgumentException for a value out of range or arrays of different lengths.
     */
    public RequestRules(
        final long[] contextWindows, final int[] capabilities, final long defaultOutputTokens, final double sheddableAbove)
    {
        if (contextWindows.length != capabilities.length)
        {
            throw new IllegalArgumentException("context windows and capabilities of different candidates");
        }
        if (defaultOutputTokens < 0)
        {
            throw new IllegalArgumentException("default_output_tokens must be >= 0: " + defaultOutputTokens);
        }
        if (!(sheddableAbove >= 0.0 && sheddableAbove <= 1.0))
        {
            throw new IllegalArgumentException("sheddable_above must be in (0, 1]: " + sheddableAbove);
        }
        this.contextWindows = contextWindows.clone();
        this.capabilities = capabilities.clone();
        this.defaultOutputTokens = defaultOutputTokens;
        this.sheddableAbove = sheddableAbove;
        boolean anyWindow = false;
        boolean anyRestricted = false;
        for (int i = 0; i < contextWindows.length; i++)
        {
            if (contextWindows[i] <= 0)
            {
                throw new IllegalArgumentException("context_window must be > 0: " + contextWindows[i]);
            }
            if ((capabilities[i] & ~Capability.ALL) != 0)
            {
                throw new IllegalArgumentException("capabilities must be bits of Capability: " + capabilities[i]);
            }
            anyWindow |= contextWindows[i] != NO_CONTEXT_WINDOW;
            anyRestricted |= capabilities[i] != Capability.ALL;
        }
        this.contextWindow = anyWindow;
        this.restricted = anyRestricted;
    }

    /**
     * Rules of a decision whose candidates have no context window and every capability.
     *
     * @param candidateCount number of candidates.
     * @param defaultOutputTokens output tokens of a request that states none.
     * @param sheddableAbove {@code admission.sheddable_above}, or 0.
     * @return the rules.
     */
    public static RequestRules unrestricted(
        final int candidateCount, final long defaultOutputTokens, final double sheddableAbove)
    {
        final long[] windows = new long[candidateCount];
        Arrays.fill(windows, NO_CONTEXT_WINDOW);
        final int[] capabilities = new int[candidateCount];
        Arrays.fill(capabilities, Capability.ALL);
        return new RequestRules(windows, capabilities, defaultOutputTokens, sheddableAbove);
    }

    /**
     * @param index candidate index.
     * @return its context window in tokens, {@link #NO_CONTEXT_WINDOW} when it has none.
     */
    public long contextWindow(final int index)
    {
        return contextWindows[index];
    }

    /**
     * @param index candidate index.
     * @return its capabilities, bits of {@link Capability}.
     */
    public int capabilities(final int index)
    {
        return capabilities[index];
    }

    /** @return the number of candidates these rules are for. */
    public int contextWindowCount()
    {
        return contextWindows.length;
    }

    /** @return the output tokens of a request that states none ({@code signals.default_output_tokens}). */
    public long defaultOutputTokens()
    {
        return defaultOutputTokens;
    }

    /** @return {@code admission.sheddable_above}, 0 when the decision has no admission. */
    public double sheddableAbove()
    {
        return sheddableAbove;
    }

    /** @return whether a candidate has a context window: then every request is checked against it. */
    public boolean hasContextWindow()
    {
        return contextWindow;
    }

    /** @return whether a candidate lacks a capability: only then can a request's needs drop one. */
    public boolean restrictsCapabilities()
    {
        return restricted;
    }
}
