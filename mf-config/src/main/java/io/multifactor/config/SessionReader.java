package io.multifactor.config;

import io.multifactor.api.Objective;
import io.multifactor.config.read.Durations;
import io.multifactor.config.read.MappingReader;
import io.multifactor.config.read.Problems;
import io.multifactor.kernel.plan.SessionPolicy;

import java.util.List;

/**
 * Reads the {@code session:} block of a decision's {@code multi_factor:} (both file formats read it through
 * {@link MultiFactorReader}): {@code stay_bias} and {@code switch_margin} in 0..1, {@code min_turns_before_switch}
 * >= 0, {@code idle_timeout} a positive duration, {@code max_sessions} 1..{@value SessionPolicy#MAX_MAX_SESSIONS};
 * refused with {@code objective: lexicographic}. Every problem is reported where it is.
 * <p>
 * This class is stateless and threadsafe.
 */
final class SessionReader
{
    static final String KEY = "session";
    static final List<String> KEYS =
        List.of("stay_bias", "switch_margin", "min_turns_before_switch", "idle_timeout", "max_sessions");

    private SessionReader()
    {
    }

    /**
     * @param mf reader of the {@code multi_factor:} mapping.
     * @param problems where to report.
     * @param objective the block's objective code, as read.
     * @return the block's policy, or {@code null} when it is absent; meaningful only when no error was reported.
     */
    static SessionPolicy read(final MappingReader mf, final Problems problems, final int objective)
    {
        final MappingReader session = mf.optionalMapping(KEY, KEYS);
        if (session == null)
        {
            return null;
        }
        if (objective == Objective.LEXICOGRAPHIC)
        {
            problems.error(mf.value(KEY), mf.path(KEY), "session applies to the weighted objective only (it adds " +
                "stay_bias to the previous model's weighted score), but the objective is lexicographic; remove " +
                "session or use objective: weighted");
        }
        final double stayBias = session.has("stay_bias") ?
            RankingReader.unitInterval(session, problems, "stay_bias") : SessionPolicy.DEFAULT_STAY_BIAS;
        final double switchMargin = session.has("switch_margin") ?
            RankingReader.unitInterval(session, problems, "switch_margin") : SessionPolicy.DEFAULT_SWITCH_MARGIN;
        final long minTurns = session.optionalInteger(
            "min_turns_before_switch", SessionPolicy.DEFAULT_MIN_TURNS_BEFORE_SWITCH, 0L, Integer.MAX_VALUE);
        final long idleNs = session.optionalDurationNs("idle_timeout", SessionPolicy.DEFAULT_IDLE_TIMEOUT_NS);
        final long maxSessions = session.optionalInteger(
            "max_sessions", SessionPolicy.DEFAULT_MAX_SESSIONS, 1L, SessionPolicy.MAX_MAX_SESSIONS);
        if (Double.isNaN(stayBias) || Double.isNaN(switchMargin) || idleNs == Durations.INVALID || problems.hasErrors())
        {
            return SessionPolicy.DEFAULTS;
        }
        return new SessionPolicy(stayBias, switchMargin, (int)minTurns, idleNs, (int)maxSessions);
    }
}
