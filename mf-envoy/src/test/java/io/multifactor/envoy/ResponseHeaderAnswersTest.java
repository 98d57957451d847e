package io.multifactor.envoy;

import io.envoyproxy.envoy.config.core.v3.HeaderValueOption;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.multifactor.config.ConfigLoader;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.serving.ServingHeaders;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The prebuilt {@code response_headers} answers: equal to the answer built for the request, one instance per decision and
 * model of a snapshot, and never a stale name (a model routed under another name, or another snapshot's decision).
 */
class ResponseHeaderAnswersTest
{
    private static final String CONFIG = String.join("\n",
        "models:",
        "  - {name: a, quality_score: 0.5}",
        "  - {name: b, quality_score: 0.9}",
        "decisions:",
        "  - name: first",
        "    modelRefs: [{model: a}, {model: b}]",
        "  - name: second",
        "    modelRefs: [{model: b}]",
        "");

    @Test
    void shouldShareOneAnswerPerDecisionAndModelAndMatchTheBuiltOne() throws Exception
    {
        final Plans plans = ConfigLoader.load("c.yaml", CONFIG, null).plans();
        final ResponseHeaderAnswers answers = new ResponseHeaderAnswers(plans);
        final int first = plans.decisionId("first");
        final int second = plans.decisionId("second");
        final int a = plans.modelId("a");
        final int b = plans.modelId("b");

        final ProcessingResponse firstA = answers.answer(first, a, "a");
        assertThat(firstA).isEqualTo(ResponseHeaderAnswers.build("first", "a"));
        assertThat(answers.answer(first, a, "a")).isSameAs(firstA);
        assertThat(answers.answer(second, b, "b")).isEqualTo(ResponseHeaderAnswers.build("second", "b"))
            .isNotEqualTo(firstA);
        assertThat(ExtProcRequestPathTest.headers(answers.answer(first, b, "b").getResponseHeaders().getResponse()))
            .containsExactly(org.assertj.core.api.Assertions.entry("x-mf-decision", "first"),
                org.assertj.core.api.Assertions.entry("x-selected-model", "b"));
        // A stream routed under a name the snapshot does not give that handle: its own name, not the cached answer.
        assertThat(answers.answer(first, a, "renamed")).isEqualTo(ResponseHeaderAnswers.build("first", "renamed"));
        assertThat(answers.answer(first, a, "a")).isSameAs(firstA);
    }

    @Test
    void shouldShareOneSelectedModelHeaderPerModelAndNeverAStaleName() throws Exception
    {
        final Plans plans = ConfigLoader.load("c.yaml", CONFIG, null).plans();
        final ResponseHeaderAnswers answers = new ResponseHeaderAnswers(plans);
        final int a = plans.modelId("a");
        final int b = plans.modelId("b");

        final HeaderValueOption headerA = answers.selectedModelHeader(a, "a");
        assertThat(headerA).isEqualTo(ExtProcResponses.set(ServingHeaders.SELECTED_MODEL, "a"));
        assertThat(answers.selectedModelHeader(a, "a")).isSameAs(headerA);
        assertThat(answers.selectedModelHeader(b, "b"))
            .isEqualTo(ExtProcResponses.set(ServingHeaders.SELECTED_MODEL, "b"));
        assertThat(answers.selectedModelHeader(a, "renamed"))
            .isEqualTo(ExtProcResponses.set(ServingHeaders.SELECTED_MODEL, "renamed"));
        assertThat(answers.selectedModelHeader(a, "a")).isSameAs(headerA);
        assertThat(answers.selectedModelHeader(plans.modelCapacity() + 3, "x"))
            .isEqualTo(ExtProcResponses.set(ServingHeaders.SELECTED_MODEL, "x"));
    }

    @Test
    void theContextShouldBuildNewAnswersForNewPlans() throws Exception
    {
        final Plans before = ConfigLoader.load("c.yaml", CONFIG, null).plans();
        final Plans after = ConfigLoader.load("c.yaml", CONFIG.replace("name: second", "name: renamed"), before).plans();
        final io.multifactor.kernel.engine.MultiFactorEngine engine =
            io.multifactor.kernel.engine.MultiFactorEngine.builder(before).build();
        try
        {
            final ExtProcContext context = new ExtProcContext(engine, EnvoyMode.VSR,
                ConfigLoader.load("c.yaml", CONFIG, null));
            final ResponseHeaderAnswers old = context.responseHeaderAnswers(before);
            assertThat(context.responseHeaderAnswers(before)).isSameAs(old);
            final ResponseHeaderAnswers fresh = context.responseHeaderAnswers(after);
            assertThat(fresh).isNotSameAs(old);
            assertThat(fresh.answer(after.decisionId("renamed"), after.modelId("b"), "b"))
                .isEqualTo(ResponseHeaderAnswers.build("renamed", "b"));
        }
        finally
        {
            engine.close();
        }
    }
}
