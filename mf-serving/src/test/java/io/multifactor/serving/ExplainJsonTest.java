package io.multifactor.serving;

import io.multifactor.api.Request;
import io.multifactor.config.LoadedConfig;
import io.multifactor.kernel.engine.MultiFactorEngine;
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
    void shouldEscapeNamesAndWriteMissingNumbersAsNull()
    {
        assertThat(JsonText.string("a\"b\\c\n\u0001")).isEqualTo("\"a\\\"b\\\\c\\n\\u0001\"");
        assertThat(JsonText.number(Double.NaN)).isEqualTo("null");
        assertThat(JsonText.error("invalid_request_error", "x \"y\""))
            .isEqualTo("{\"error\":{\"message\":\"x \\\"y\\\"\",\"type\":\"invalid_request_error\"}}");
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
