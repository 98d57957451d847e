package io.multifactor.api;

/**
 * Why a candidate did not take part in scoring. The exclusion, the eligibility rules, ejection, quality floor and
 * ceilings are checked in this order: excluded, context, capability, ejected, quality, TPOT, TTFT, cost, in-flight,
 * in-flight tokens, queue, KV-cache, stale; the first one that applies is the reason. The codes follow that order but
 * for {@link #CONTEXT} and {@link #CAPABILITY}, added last.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class DropReason
{
    /** The candidate survived and was scored. */
    public static final int NONE = 0;

    /** The request excluded this candidate (for example it just failed on a retry). */
    public static final int EXCLUDED = 1;

    /** The model is ejected after failures or a {@code Retry-After} (its {@code reliability}), or its probe is out. */
    public static final int EJECTED = 2;

    /** Its quality score is below {@code slo.min_quality}, or it has none while the decision has that floor. */
    public static final int QUALITY = 3;

    /** Its TPOT latency is above {@code max_tpot_ms}. */
    public static final int TPOT = 4;

    /** Its TTFT latency is above {@code max_ttft_ms}. */
    public static final int TTFT = 5;

    /** Its cost per 1M tokens (the decision's or the request's token mix) is above {@code max_cost_per_1m}. */
    public static final int COST = 6;

    /** Its in-flight count is above {@code max_inflight}. */
    public static final int INFLIGHT = 7;

    /** Its in-flight tokens are above {@code max_inflight_tokens}. */
    public static final int INFLIGHT_TOKENS = 8;

    /** The smallest queue of its fresh servers is above {@code max_queue}. */
    public static final int QUEUE = 9;

    /** The smallest KV-cache use of its fresh servers is above {@code max_kv_cache}. */
    public static final int KV_CACHE = 10;

    /** Every server of the model is stale and the decision treats stale as saturated ({@code when_stale}). */
    public static final int STALE = 11;

    /** Its {@code context_window} is smaller than the request's prompt tokens plus output tokens. */
    public static final int CONTEXT = 12;

    /** It lacks a capability the request needs ({@code capabilities}). */
    public static final int CAPABILITY = 13;

    /** Number of codes (0 to {@code COUNT - 1}), for arrays indexed by reason. */
    public static final int COUNT = 14;

    private static final String[] LABELS = {
        "none", "excluded", "ejected", "quality", "tpot", "ttft", "cost", "inflight", "inflight_tokens", "queue",
        "kv_cache", "stale", "context", "capability" };

    private DropReason()
    {
    }

    /**
     * @param reason a code of this class.
     * @return whether it leaves the candidate out of the request altogether (excluded or ineligible): such a candidate
     *     counts for nothing after it, not even for a fallback.
     */
    public static boolean removesCandidate(final int reason)
    {
        return reason == EXCLUDED || reason == CONTEXT || reason == CAPABILITY;
    }

    /**
     * @param reason a code of this class.
     * @return whether it is a load reason (in-flight, in-flight tokens, queue, KV-cache, stale), the only ones after
     *     which {@code on_no_candidates: shed} sheds.
     */
    public static boolean isLoad(final int reason)
    {
        return reason == INFLIGHT || reason == INFLIGHT_TOKENS || reason == QUEUE || reason == KV_CACHE ||
            reason == STALE;
    }

    /**
     * Short label of a reason code.
     *
     * @param reason one of the codes of this class.
     * @return its label, such as {@code "tpot"}.
     * @throws IllegalArgumentException for a code that is not one of this class.
     */
    public static String label(final int reason)
    {
        if (reason < 0 || reason >= LABELS.length)
        {
            throw new IllegalArgumentException("unknown drop reason code: " + reason);
        }
        return LABELS[reason];
    }
}
