package io.multifactor.kernel.plan;

/**
 * A decision's {@code session:} block: how strongly a session stays on the model that served it. The rules that use it
 * are {@code SessionRules}'; the table of entries is the engine's.
 * <p>
 * Instances are immutable and threadsafe.
 */
public final class SessionPolicy
{
    /** Default {@code stay_bias}. */
    public static final double DEFAULT_STAY_BIAS = 0.10;

    /** Default {@code switch_margin}. */
    public static final double DEFAULT_SWITCH_MARGIN = 0.05;

    /** Default {@code min_turns_before_switch}. */
    public static final int DEFAULT_MIN_TURNS_BEFORE_SWITCH = 1;

    /** Default {@code idle_timeout}: 300 s. */
    public static final long DEFAULT_IDLE_TIMEOUT_NS = 300_000_000_000L;

    /** Default {@code max_sessions}. */
    public static final int DEFAULT_MAX_SESSIONS = 100_000;

    /** The largest {@code max_sessions} a decision may have. */
    public static final int MAX_MAX_SESSIONS = 1 << 26;

    /** Every default. */
    public static final SessionPolicy DEFAULTS = new SessionPolicy(DEFAULT_STAY_BIAS, DEFAULT_SWITCH_MARGIN,
        DEFAULT_MIN_TURNS_BEFORE_SWITCH, DEFAULT_IDLE_TIMEOUT_NS, DEFAULT_MAX_SESSIONS);

    private final double staySwitchThreshold;
    private final double stayBias;
    private final double switchMargin;
    private final int minTurnsBeforeSwitch;
    private final long idleTimeoutNs;
    private final int maxSessions;

    /**
     * @param stayBias {@code stay_bias}, 0..1: added to the previous model's score.
     * @param switchMargin {@code switch_margin}, 0..1: another model must beat the biased score by more.
     * @param minTurnsBeforeSwitch {@code min_turns_before_switch}, >= 0.
     * @param idleTimeoutNs {@code idle_timeout} in nanoseconds, > 0.
     * @param maxSessions {@code max_sessions}, 1..{@link #MAX_MAX_SESSIONS}.
     * @throws IllegalArgumentException for a value out of range.
     */
    public SessionPolicy(
        final double stayBias,
        final double switchMargin,
        final int minTurnsBeforeSwitch,
        final long idleTimeoutNs,
        final int maxSessions)
    {
        if (!(stayBias >= 0.0 && stayBias <= 1.0))
        {
            throw new IllegalArgumentException("stay_bias must be in 0..1: " + stayBias);
        }
        if (!(switchMargin >= 0.0 && switchMargin <= 1.0))
        {
            throw new IllegalArgumentException("switch_margin must be in 0..1: " + switchMargin);
        }
        if (minTurnsBeforeSwitch < 0)
        {
            throw new IllegalArgumentException("min_turns_before_switch must be >= 0: " + minTurnsBeforeSwitch);
        }
        if (idleTimeoutNs <= 0)
        {
            throw new IllegalArgumentException("idle_timeout must be > 0: " + idleTimeoutNs + " ns");
        }
        if (maxSessions < 1 || maxSessions > MAX_MAX_SESSIONS)
        {
            throw new IllegalArgumentException("max_sessions must be in 1.." + MAX_MAX_SESSIONS + ": " + maxSessions);
        }
        this.stayBias = stayBias;
        this.switchMargin = switchMargin;
        this.staySwitchThreshold = stayBias + switchMargin;
        this.minTurnsBeforeSwitch = minTurnsBeforeSwitch;
        this.idleTimeoutNs = idleTimeoutNs;
        this.maxSessions = maxSessions;
    }

    /** @return {@code stay_bias}. */
    public double stayBias()
    {
        return stayBias;
    }

    /** @return {@code switch_margin}. */
    public double switchMargin()
    {
        return switchMargin;
    }

    /** @return {@code stay_bias + switch_margin}: what another model's score must exceed the previous one's by. */
    public double switchThreshold()
    {
        return staySwitchThreshold;
    }

    /** @return {@code min_turns_before_switch}. */
    public int minTurnsBeforeSwitch()
    {
        return minTurnsBeforeSwitch;
    }

    /** @return {@code idle_timeout} in nanoseconds: an entry seen this long ago or longer is not live. */
    public long idleTimeoutNs()
    {
        return idleTimeoutNs;
    }

    /** @return {@code max_sessions}: the most entries the decision's table holds. */
    public int maxSessions()
    {
        return maxSessions;
    }

    @Override
    public String toString()
    {
        return "session{stay_bias=" + stayBias + ", switch_margin=" + switchMargin + ", min_turns_before_switch=" +
            minTurnsBeforeSwitch + ", idle_timeout=" + idleTimeoutNs / 1_000_000 + "ms, max_sessions=" + maxSessions + '}';
    }
}
