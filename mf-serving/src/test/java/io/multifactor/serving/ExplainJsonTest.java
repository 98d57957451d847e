package io.multifactor.serving;

import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.config.LoadedConfig;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.explain.Explanation;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import io.multifactor.kernel.plan.SignalCeilings;
import io.multifactor.kernel.scoring.CandidateSignals;
import io.multifactor.kernel.scoring.ScoringKernel;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ExplainJsonTest
{
    @Test
    void shouldWriteTheSelectionThatChoseOnOneLineAsThePrettyObjectWithoutLayout()
    {
        final LoadedConfig loaded = Engines.load(Engines.TWO_MODELS);
        try (MultiFactorEngine engine = MultiFactorEngine.builder(loaded.plans()).build())
        {
            final RequestLifecycle lifecycle = new RequestLifecycle(engine);
            lifecycle.start(engine.decisionId("d"), null, Request.NO_TOKENS, Request.NO_TOKENS);
            final String compact = ExplainJson.compact(engine.plans(), lifecycle.selection());
            lifecycle.cancel();
            assertThat(compact).doesNotContain("\n").startsWith("{\"decision\":\"d\",\"outcome\":\"scored\"," +
                "\"selected\":\"a\",\"objective\":\"weighted\",\"weights\":{\"quality\":1.0,");
            // The selection that chose took its own lease: a. The pretty form of the same record says the same.
            final String pretty = ExplainJson.render(engine.explain(engine.decisionId("d"), null));
            assertThat(pretty).endsWith("\n").contains("\n \"outcome\": \"scored\",\n");
            assertThat(withoutLayout(pretty)).isEqualTo(compact);
        }
    }

    @Test
    void shouldWriteTheServersSignalsAndTheirDropReasonsOnlyWhenTheyTakePart()
    {
        final Plans plans = new PlansBuilder().model("a", 0.9, 1.0).model("b", 0.5, 1.0).model("c", 0.5, 1.0)
            .decision("d").candidates("a", "b", "c").weights(new double[] { 1, 0, 0, 0, 1, 0 })
            .signalCeilings(new SignalCeilings(0, 8, 0.9, false)).add()
            .decision("seed").candidates("a", "b").add().build();
        final CandidateSignals signals = CandidateSignals.standalone(3);
        signals.publishServerLoad(0, 12, 0.2, false);
        signals.publishServerLoad(1, 3, 0.95, false);
        final DecisionPlan plan = plans.decision(plans.decisionId("d"));
        final Selection selection = new Selection();
        ScoringKernel.select(plan, signals, null, selection);
        final String json = ExplainJson.render(Explanation.of(plans, plan, selection));
        assertThat(json).contains("\"dropped\": \"queue=12>8\"").contains("\"dropped\": \"kv_cache=0.95>0.9\"")
            // With the signals beyond the seed's, every factor of the table: prefix too (null: not supplied).
            .contains("\"weights\": {\"quality\": 0.5, \"latency\": 0.0, \"cost\": 0.0, \"load\": 0.0, \"queue\": 0.5, " +
                "\"kv_cache\": 0.0, \"prefix\": 0.0}")
            .contains("\"queue\": 12.0, \"kv_cache\": 0.2, \"prefix\": null, \"ejected_ms\": null")
            .contains("\"queue\": null, \"kv_cache\": null, \"prefix\": null, \"ejected_ms\": null");

        // A seed decision whose candidates have none of them reads exactly as before: no new key.
        final DecisionPlan seed = plans.decision(plans.decisionId("seed"));
        ScoringKernel.select(seed, CandidateSignals.standalone(2), null, selection);
        final String plain = ExplainJson.render(Explanation.of(plans, seed, selection));
        assertThat(plain).doesNotContain("queue").doesNotContain("kv_cache").doesNotContain("inflight_tokens")
            .doesNotContain("ejected_ms").doesNotContain("prefix");
    }

    @Test
    void shouldEscapeNamesAndWriteMissingNumbersAsNull()
    {
        assertThat(JsonText.string("a\"b\\c\n\u0001")).isEqualTo("\"a\\\"b\\\\c\\n\\u0001\"");
        assertThat(JsonText.number(Double.NaN)).isEqualTo("null");
        assertThat(ServingError.MODEL_NOT_FOUND.body("x \"y\""))
            .isEqualTo("{\"error\":{\"message\":\"x \\\"y\\\"\",\"type\":\"invalid_request_error\",\"param\":\"model\"," +
                "\"code\":\"model_not_found\"}}");
        assertThat(ServingError.UPSTREAM_TIMEOUT.body("slow")).as("no param: null")
            .isEqualTo("{\"error\":{\"message\":\"slow\",\"type\":\"server_error\",\"param\":null," +
                "\"code\":\"upstream_timeout\"}}");
    }

    /** Removes whitespace outside strings. */
    private static String withoutLayout(final String json)
    {
        final StringBuilder sb = new StringBuilder();
        boolean inString = false;
        for (int i = 0; i < json.length(); i++)
        {
            final char c = json.charAt(i);
            if (c == '"' && (i == 0 || json.charAt(i - 1) != '\\'))
            {
                inString = !inString;
            }
            if (inString || !Character.isWhitespace(c))
            {
                sb.append(c);
            }
        }
        return sb.toString();
    }
}
