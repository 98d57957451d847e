package io.multifactor.config.yaml;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class FlowTextTest
{
    @Test
    void shouldRenderNestedListsAndMappingsAsFlowYaml()
    {
        final YamlNode node = new YamlMapping(1, 1, List.of(
            new YamlEntry("name", 1, 2, scalar(YamlScalar.Kind.STRING, "fast")),
            new YamlEntry("samples", 1, 10, new YamlSequence(1, 20, List.of(
                scalar(YamlScalar.Kind.INTEGER, "1"), scalar(YamlScalar.Kind.FLOAT, ".nan")))),
            new YamlEntry("none", 1, 30, scalar(YamlScalar.Kind.NULL, ""))));

        assertThat(node.describe()).isEqualTo("a mapping {name: \"fast\", samples: [1, .nan], none: null}");
    }

    @Test
    void shouldCutALongValue()
    {
        final List<YamlNode> items = new ArrayList<>();
        for (int i = 0; i < 1000; i++)
        {
            items.add(scalar(YamlScalar.Kind.INTEGER, Integer.toString(i)));
        }

        final String text = new YamlSequence(1, 1, items).describe();

        assertThat(text).startsWith("a list [0, 1, 2, ").endsWith("...");
        assertThat(text.length()).isEqualTo("a list ".length() + FlowText.MAX_CHARS + "...".length());
    }

    private static YamlScalar scalar(final YamlScalar.Kind kind, final String text)
    {
        return new YamlScalar(1, 1, kind, text, Double.NaN, 0, false);
    }
}
