package io.multifactor.config;

import io.multifactor.api.Capability;
import io.multifactor.api.ConfigProblem;
import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.NoCandidatesPolicy;
import io.multifactor.kernel.plan.RequestRules;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The keys of eligibility and admission: a model's {@code context_window} and {@code capabilities} (absent: no window
 * and every capability; {@code []}: none), {@code signals.default_output_tokens} (default 512), a decision's
 * {@code admission: {sheddable_above}} and {@code on_no_candidates: shed}, read into the plans, also from an overlay;
 * and each bad value refused, located. Line numbers refer to {@link ConfigRefusalTest#VALID} and the lines added to it.
 */
class EligibilityConfigTest
{
    private static final String MODEL_A = "  - name: a\n    quality_score: 0.9\n";

    private static String withModelA(final String... lines)
    {
        return ConfigRefusalTest.VALID.replace(MODEL_A, MODEL_A + String.join("\n", lines) + "\n");
    }

    private static String withDecision(final String... lines)
    {
        return ConfigRefusalTest.VALID.replace("        on_no_candidates: cheapest\n",
            String.join("\n", lines) + "\n");
    }

    private static DecisionPlan plan(final String yaml) throws Exception
    {
        final LoadedConfig loaded = ConfigLoader.load("r.yaml", yaml, null);
        assertThat(loaded.warnings()).isEmpty();
        return loaded.plans().decision(loaded.plans().decisionId("d"));
    }

    @Test
    void shouldDefaultToNoWindowEveryCapabilityNoAdmission() throws Exception
    {
        final DecisionPlan plan = plan(ConfigRefusalTest.VALID);
        final RequestRules rules = plan.requestRules();
        assertThat(rules.contextWindow(0)).isEqualTo(RequestRules.NO_CONTEXT_WINDOW);
        assertThat(rules.capabilities(1)).isEqualTo(Capability.ALL);
        assertThat(rules.defaultOutputTokens()).isEqualTo(512L);
        assertThat(rules.sheddableAbove()).isZero();
        assertThat(plan.screensRequests()).isFalse();
    }

    @Test
    void shouldReadWindowsCapabilitiesAdmissionAndShed() throws Exception
    {
        final String yaml = withModelA("    context_window: 8192", "    capabilities: [tools, json_schema]")
            .replace("  - name: b\n", "  - name: b\n    capabilities: []\n")
            .replace("        on_no_candidates: cheapest\n",
                "        on_no_candidates: shed\n        admission: {sheddable_above: 0.8}\n")
            + "  default_output_tokens: 1024\n";
        final DecisionPlan plan = plan(yaml);
        final RequestRules rules = plan.requestRules();
        assertThat(rules.contextWindow(0)).isEqualTo(8_192L);
        assertThat(rules.capabilities(0)).isEqualTo(Capability.TOOLS | Capability.JSON_SCHEMA);
        assertThat(rules.capabilities(1)).as("[] is none").isZero();
        assertThat(rules.defaultOutputTokens()).isEqualTo(1_024L);
        assertThat(rules.sheddableAbove()).isEqualTo(0.8);
        assertThat(plan.policy()).isEqualTo(NoCandidatesPolicy.SHED);
        assertThat(plan.screensRequests()).isTrue();
    }

    @Test
    void shouldRefuseBadValuesLocated()
    {
        final List<String> messages = messages(withModelA("    context_window: 0", "    capabilities: [tool, 3d]")
            .replace("        on_no_candidates: cheapest\n",
                "        on_no_candidates: shedd\n        admission: {sheddable_above: 1.5}\n"));
        assertThat(messages).hasSize(5);
        assertThat(messages.get(0)).startsWith("r.yaml:4:21: models[0].context_window:");
        assertThat(messages.get(1)).startsWith("r.yaml:5:20: models[0].capabilities[0]: unknown capability \"tool\"")
            .contains("did you mean tools?");
        assertThat(messages.get(2)).startsWith("r.yaml:5:26: models[0].capabilities[1]: unknown capability \"3d\"");
        assertThat(messages.get(3)).startsWith("r.yaml:25:27: decisions[0].algorithm.multi_factor.on_no_candidates:")
            .contains("shed");
        assertThat(messages.get(4)).isEqualTo("r.yaml:26:38: decisions[0].algorithm.multi_factor.admission." +
            "sheddable_above: must be above 0 and at most 1, got 1.5");
    }

    @Test
    void shouldRefuseAnUnknownAdmissionKeyAndAZeroShare()
    {
        final List<String> messages = messages(withDecision("        admission: {sheddable_abov: 0.5}"));
        assertThat(messages).anySatisfy(m -> assertThat(m).contains("admission").contains("sheddable_above"));
        assertThat(messages(withDecision("        admission: {sheddable_above: 0}")))
            .containsExactly("r.yaml:23:38: decisions[0].algorithm.multi_factor.admission.sheddable_above: must be " +
                "above 0 and at most 1, got 0.0");
    }

    @Test
    void shouldTakeEligibilityFromAnOverlay(@TempDir final Path dir) throws Exception
    {
        final Path config = dir.resolve("router.yaml");
        Files.writeString(config, String.join("\n",
            "version: v0.3",
            "providers:",
            "  models:",
            "    - name: small",
            "    - name: large",
            "routing:",
            "  modelCards:",
            "    - {name: small, quality_score: 0.5}",
            "    - {name: large, quality_score: 0.9}",
            "  decisions:",
            "    - name: d",
            "      modelRefs: [{model: small}, {model: large}]",
            "      algorithm: {type: multi_factor}",
            ""));
        final Path overlay = dir.resolve("o.yaml");
        Files.writeString(overlay, "models:\n  - name: large\n    context_window: 4096\n    capabilities: [vision]\n");
        final LoadedConfig loaded = ConfigLoader.load(config, overlay, null, 4_096);
        final RequestRules rules = loaded.plans().decision(loaded.plans().decisionId("d")).requestRules();
        assertThat(rules.contextWindow(1)).isEqualTo(4_096L);
        assertThat(rules.capabilities(1)).isEqualTo(Capability.VISION);
        assertThat(rules.contextWindow(0)).isEqualTo(RequestRules.NO_CONTEXT_WINDOW);
        assertThat(rules.capabilities(0)).isEqualTo(Capability.ALL);
    }

    private static List<String> messages(final String yaml)
    {
        final InvalidConfigurationException thrown =
            catchThrowableOfType(InvalidConfigurationException.class, () -> ConfigLoader.load("r.yaml", yaml, null));
        assertThat(thrown).as("refused").isNotNull();
        final List<String> messages = new ArrayList<>();
        for (final ConfigProblem problem : thrown.problems())
        {
            messages.add(problem.toString());
        }
        return messages;
    }
}
