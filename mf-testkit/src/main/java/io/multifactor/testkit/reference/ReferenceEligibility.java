package io.multifactor.testkit.reference;

import java.util.Map;

/**
 * The eligibility and admission keys of a problem (section "Eligibility, request SLOs and shedding" of
 * docs/semantics.md), the configuration's and the request's side together: each model's {@code context_window} (absent:
 * none) and {@code capabilities} (absent: every one; bits as mf-api's {@code Capability}), the engine's
 * {@code default_output_tokens}, the decision's {@code admission.sheddable_above} (0: none), and the request's needs,
 * its own TTFT and TPOT ceilings (0: none) and whether it is {@code sheddable}. The policy {@code shed} is the
 * decision's {@code policy} word.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param contextWindows model name to context window in tokens; a model absent has none.
 * @param capabilities model name to capability bits; a model absent has every one.
 * @param defaultOutputTokens output tokens of a request without {@code max_output_tokens}.
 * @param sheddableAbove {@code admission.sheddable_above}, 0 for none.
 * @param needs the request's capability bits.
 * @param maxTtftMs the request's TTFT ceiling, 0 for none.
 * @param maxTpotMs the request's TPOT ceiling, 0 for none.
 * @param sheddable whether the request's priority is {@code sheddable}.
 */
public record ReferenceEligibility(
    Map<String, Long> contextWindows, Map<String, Integer> capabilities, long defaultOutputTokens,
    double sheddableAbove, int needs, double maxTtftMs, double maxTpotMs, boolean sheddable)
{
    /** No limit anywhere: every candidate eligible, no admission, the default 512 output tokens. */
    public static final ReferenceEligibility NONE =
        new ReferenceEligibility(Map.of(), Map.of(), 512L, 0.0, 0, 0.0, 0.0, false);

    /** Copies the maps. */
    public ReferenceEligibility
    {
        contextWindows = Map.copyOf(contextWindows);
        capabilities = Map.copyOf(capabilities);
    }

    /** @return whether any key differs from {@link #NONE}'s. */
    public boolean any()
    {
        return !equals(NONE);
    }

    /**
     * @param model a model name.
     * @param promptTokens the request's prompt tokens, 0 when it states none.
     * @param maxOutputTokens its output bound, or null.
     * @return the reason the model cannot serve the request ({@code "context"}, {@code "capability"}), or null.
     */
    public String ineligibility(final String model, final long promptTokens, final Long maxOutputTokens)
    {
        final Long window = contextWindows.get(model);
        final long tokens = promptTokens + (maxOutputTokens == null ? defaultOutputTokens : maxOutputTokens);
        if (window != null && tokens > window)
        {
            return "context";
        }
        final int has = capabilities.getOrDefault(model, 7);
        return (needs & ~has) != 0 ? "capability" : null;
    }
}
