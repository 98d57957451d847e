package io.multifactor.testkit.reference;

import io.multifactor.api.Handles;
import io.multifactor.api.Selection;
import io.multifactor.api.SessionRule;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.SessionPolicy;
import io.multifactor.kernel.session.SessionRules;
import io.multifactor.kernel.session.SessionTable;
import io.multifactor.testkit.generators.ScoringGenerators;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

/**
 * The kernel's session rules ({@link SessionRules}, the code {@code select}, {@code selectAndBegin} and {@code explain}
 * run) against the oracle written from the semantics ({@link ReferenceSessions}), on generated decisions, policies and
 * entries: the same model and the same rule. Every rule is reached by the generators (asserted). A case whose pick X
 * differs between the kernel and the oracle (a tie) or whose switch comparison lies within the scores' tolerance is
 * not compared, and such cases are counted and bounded.
 */
class SessionRulesPropertiesTest
{
    private static final double[] BIASES = {0.0, 0.05, 0.1, 0.3};
    private static final long IDLE_TIMEOUT_MS = 1_000;

    @Test
    void shouldChooseAsTheOracleAndReachEveryRule()
    {
        final Map<String, Integer> rules = new TreeMap<>();
        final int[] skipped = new int[1];
        final int[] compared = new int[1];
        // One draw per case of stay_bias, switch_margin (4 values each) and the entry's turns (0..4).
        final Gen<Integer> knobs = integers().between(0, 16 * 5 - 1);
        qt().withFixedSeed(4_6L).withExamples(3_000)
            .forAll(ScoringGenerators.cases(integers().between(1, 6)), integers().between(-2, 7),
                longs().between(0, 2 * IDLE_TIMEOUT_MS), knobs)
            .checkAssert((c, pick, idleMs, knob) ->
            {
                final int turns = knob / 16;
                final int n = c.candidateCount();
                // -2: no entry; -1: a model that is not a candidate; else a candidate (modulo the count).
                final String model = pick == -2 ? null : pick == -1 ? "gone" :
                    c.decision().candidates().get(pick % n).name();
                final ReferenceSessions.Policy policy = new ReferenceSessions.Policy(
                    BIASES[knob % 4], BIASES[(knob / 4) % 4], (pick + 2) % 4, IDLE_TIMEOUT_MS);
                final ReferenceSessions.Entry entry = new ReferenceSessions.Entry(model, Math.max(1, turns), idleMs);
                final ReferenceResult reference = ReferenceScorer.select(c);
                final ReferenceSessions.Choice expected = ReferenceSessions.choose(reference, policy, entry);

                final Plans plans = KernelAdapter.plans(c.decision());
                final Selection out = KernelAdapter.selection(c, false);
                final String kernelX = out.hasSelection() ? plans.modelName(out.selectedModel()) : null;
                if (!java.util.Objects.equals(kernelX, reference.selectedModel()) || nearThreshold(reference, policy,
                    entry))
                {
                    skipped[0]++;
                    return;
                }
                final boolean live = model != null && idleMs < IDLE_TIMEOUT_MS;
                final int modelId = model == null ? Handles.NONE :
                    plans.modelId(model) == Handles.NONE ? plans.modelCapacity() : plans.modelId(model);
                final long stated = live ? SessionTable.value(modelId, entry.turns()) : SessionTable.NO_ENTRY;
                final int rule = SessionRules.apply(new SessionPolicy(policy.stayBias(), policy.switchMargin(),
                    policy.minTurnsBeforeSwitch(), IDLE_TIMEOUT_MS * 1_000_000L, 100), out, stated);
                assertThat(SessionRule.label(rule)).as("%s %s", entry, policy).isEqualTo(expected.rule());
                assertThat(out.hasSelection() ? plans.modelName(out.selectedModel()) : null).isEqualTo(expected.model());
                compared[0]++;
                rules.merge(expected.rule(), 1, Integer::sum);
            });
        assertThat(rules.keySet()).containsExactlyInAnyOrder("min_turns", "stay", "switch", "handoff", "new", "none");
        assertThat(compared[0]).as("compared, with %d skipped", skipped[0]).isGreaterThan(2_000);
    }

    // The switch comparison within the scores' tolerance: kernel and oracle scores may differ by rounding.
    private static boolean nearThreshold(
        final ReferenceResult reference, final ReferenceSessions.Policy policy, final ReferenceSessions.Entry entry)
    {
        if (reference.selectedModel() == null || entry.model() == null)
        {
            return false;
        }
        for (final ReferenceCandidate p : reference.candidates())
        {
            if (p.model().equals(entry.model()) && p.score() != null)
            {
                final double gap = reference.candidate(reference.selectedModel()).score() -
                    (p.score() + policy.stayBias() + policy.switchMargin());
                return Math.abs(gap) <= ScoreTolerance.TOLERANCE;
            }
        }
        return false;
    }
}
