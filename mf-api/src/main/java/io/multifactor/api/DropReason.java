package io.multifactor.api;

/**
 * Why a candidate did not take part in scoring. The quality floor and the SLO ceilings are checked in the order of these
 * codes (quality, TPOT, TTFT, cost, in-flight) and the first one broken is the reason.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class DropReason
{
    /** The candidate survived and was scored. */
    public static final int NONE = 0;

    /** The request excluded this candidate (for example it just failed on a retry). */
    public static final int EXCLUDED = 1;

    /** Its quality score is below {@code slo.min_quality}, or it has none while the decision has that floor. */
    public static final int QUALITY = 2;

    /** Its TPOT percentile is above {@code max_tpot_ms}. */
    public static final int TPOT = 3;

    /** Its TTFT percentile is above {@code max_ttft_ms}. */
    public static final int TTFT = 4;

    /** Its cost per 1M tokens (the decision's or the request's token mix) is above {@code max_cost_per_1m}. */
    public static final int COST = 5;

    /** Its in-flight count is above {@code max_inflight}. */
    public static final int INFLIGHT = 6;

    /** Number of codes (0 to {@code COUNT - 1}), for arrays indexed by reason. */
    public static final int COUNT = 7;

    private static final String[] LABELS = { "none", "excluded", "quality", "tpot", "ttft", "cost", "inflight" };

    private DropReason()
    {
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
