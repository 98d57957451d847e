package io.multifactor.config;

import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.SessionPolicy;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code session:} block of {@code multi_factor} (section 4.6): defaults, every key read into the plan, in the
 * project's format and in a vLLM Semantic Router decision, and each bad value refused where it is. Line numbers refer
 * to {@link ConfigRefusalTest#VALID}, whose line 23 ({@code on_no_candidates}) is followed by the added lines.
 */
class SessionConfigTest
{
    private static final String MF = "decisions[0].algorithm.multi_factor.session.";

    private static String with(final String... lines)
    {
        return PickAndLoadConfigTest.with(lines);
    }

    private static DecisionPlan plan(final String yaml) throws Exception
    {
        return PickAndLoadConfigTest.plan(yaml);
    }

    private static List<String> messages(final String yaml)
    {
        return PickAndLoadConfigTest.messages(yaml);
    }

    @Test
    void shouldHaveNoSessionsWithoutTheBlockAndTheDefaultsWithAnEmptyOne() throws Exception
    {
        assertThat(plan(ConfigRefusalTest.VALID).sessionOrNull()).isNull();
        final SessionPolicy policy = plan(with("        session: {}")).sessionOrNull();
        assertThat(policy.stayBias()).isEqualTo(0.10);
        assertThat(policy.switchMargin()).isEqualTo(0.05);
        assertThat(policy.minTurnsBeforeSwitch()).isEqualTo(1);
        assertThat(policy.idleTimeoutNs()).isEqualTo(300_000_000_000L);
        assertThat(policy.maxSessions()).isEqualTo(100_000);
    }

    @Test
    void shouldReadEveryKey() throws Exception
    {
        final SessionPolicy policy = plan(with("        session:", "          stay_bias: 0.2",
            "          switch_margin: 0", "          min_turns_before_switch: 3", "          idle_timeout: 90s",
            "          max_sessions: 5000")).sessionOrNull();
        assertThat(policy.stayBias()).isEqualTo(0.2);
        assertThat(policy.switchMargin()).isEqualTo(0.0);
        assertThat(policy.minTurnsBeforeSwitch()).isEqualTo(3);
        assertThat(policy.idleTimeoutNs()).isEqualTo(90_000_000_000L);
        assertThat(policy.maxSessions()).isEqualTo(5000);
    }

    @Test
    void shouldRefuseEveryValueOutOfRangeWhereItIs()
    {
        assertThat(messages(with("        session:", "          stay_bias: 1.5", "          switch_margin: -0.1",
            "          min_turns_before_switch: -1", "          idle_timeout: 0s", "          max_sessions: 0",
            "          stay_bais: 0.1"))).containsExactly(
            "r.yaml:25:22: " + MF + "stay_bias: must be in 0..1, got 1.5",
            "r.yaml:26:26: " + MF + "switch_margin: must be in 0..1, got -0.1",
            "r.yaml:27:36: " + MF + "min_turns_before_switch: must be in 0..2147483647, got -1",
            "r.yaml:28:25: " + MF + "idle_timeout: must be a positive duration, got 0s",
            "r.yaml:29:25: " + MF + "max_sessions: must be in 1..67108864, got 0",
            "r.yaml:30:11: " + MF + "stay_bais: unknown key \"stay_bais\" (did you mean stay_bias?)");
    }

    @Test
    void shouldRefuseSessionsWithTheLexicographicObjective()
    {
        assertThat(messages(with("        objective: lexicographic", "        priority: [quality]",
            "        session: {stay_bias: 0.1}"))).containsExactly(
            "r.yaml:26:18: decisions[0].algorithm.multi_factor.session: session applies to the weighted objective " +
            "only (it adds stay_bias to the previous model's weighted score), but the objective is lexicographic; " +
            "remove session or use objective: weighted");
    }

    @Test
    void shouldReadTheBlockInAVsrDecision() throws Exception
    {
        final String vsr = VsrConfigTest.ROUTER.replace("""
                      latency_percentile: 90
            """, """
                      latency_percentile: 90
                      session:
                        stay_bias: 0.3
                        max_sessions: 10
            """);
        assertThat(vsr).isNotEqualTo(VsrConfigTest.ROUTER);
        final LoadedConfig loaded = ConfigLoader.load("router.yaml", vsr, null);
        final SessionPolicy policy = loaded.plans().decision(loaded.plans().decisionId("code_route")).sessionOrNull();
        assertThat(policy.stayBias()).isEqualTo(0.3);
        assertThat(policy.maxSessions()).isEqualTo(10);
        assertThat(loaded.plans().decision(loaded.plans().decisionId("chat_route")).sessionOrNull()).isNull();
    }
}
